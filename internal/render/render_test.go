package render

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// A short task: text that stops mid-line, a tool call and its result, an
// error result, failed checks, a plan, a retry and the end.
func task() []agent.Event {
	read := &agent.ToolCall{ID: "1", Name: "read_file", Arguments: `{"path":"hello.txt"}`}
	run := &agent.ToolCall{ID: "2", Name: "run_command", Arguments: `{"command":"go test ./..."}`}
	return []agent.Event{
		{Kind: agent.KindState, Step: 0, To: agent.Executing},
		{Kind: agent.KindText, Step: 1, Text: "Let me look"},
		{Kind: agent.KindText, Step: 1, Text: ".\nThen edit"},
		{Kind: agent.KindToolCall, Step: 1, Call: read},
		{Kind: agent.KindToolResult, Step: 1, Call: read, Output: "1\thello\n2\tworld\n"},
		{Kind: agent.KindToolCall, Step: 2, Call: run},
		{Kind: agent.KindToolResult, Step: 2, Call: run, Output: "error: not allowed", IsErr: true},
		{Kind: agent.KindVerify, Step: 2, Verify: &agent.VerifyReport{Summary: "`go vet` failed", Located: []string{"a.go:3:1: bad"}, Problems: 2, Commands: []string{"go vet ./..."}}},
		{Kind: agent.KindPlan, Step: 2, Plan: &agent.WorkPlan{Steps: []agent.PlanStep{{Step: "Read", Status: agent.StepCompleted}, {Step: "Fix", Status: agent.StepInProgress}}}},
		{Kind: agent.KindRetry, Step: 3, Text: "the model timed out; retrying"},
		{Kind: agent.KindText, Step: 3, Text: "Done"},
		{Kind: agent.KindUsage, Step: 3, Usage: &agent.Usage{InputTokens: 1}},
		{Kind: agent.KindEnd, Step: 3, Result: &agent.Result{Status: agent.StatusError, Reason: "maxSteps", Error: "stopped at the step limit", Steps: 3}},
	}
}

func renderAll(style Style) []string {
	r := New(style)
	var out []string
	for _, ev := range task() {
		out = append(out, r.Event(ev))
	}
	return out
}

func TestPlain(t *testing.T) {
	got := strings.Join(renderAll(Plain), "")
	want := "Let me look.\nThen edit\n" +
		"→ read_file hello.txt\n" +
		"  ← read_file: 1\thello …\n" +
		"→ run_command go test ./...\n" +
		"  ✗ run_command: not allowed\n" +
		"✗ checks failed: `go vet` failed\n    a.go:3:1: bad\n    … and 1 more\n" +
		"· plan (1 of 2 done):\n    [x] Read\n    [>] Fix\n" +
		"· the model timed out; retrying\n" +
		"Done\nstopped at the step limit\n" +
		"── stopped: step limit · no files changed · 3 steps · 0 in / 0 out tokens\n"
	if got != want {
		t.Errorf("plain:\n%s\nwant:\n%s", got, want)
	}
}

// The log takes whole lines: a line the model has not finished waits for
// the next event, and a model call's end lets it out.
func TestLogReturnsWholeLines(t *testing.T) {
	outs := renderAll(Log)
	for i, o := range outs {
		if o != "" && !strings.HasSuffix(o, "\n") {
			t.Errorf("event %d gave a partial line %q", i, o)
		}
	}
	if outs[1] != "" || outs[2] != "Let me look.\n" || outs[3] != "Then edit\n→ read_file hello.txt\n" {
		t.Errorf("streamed text: %q", outs[1:4])
	}
	if outs[10] != "" || outs[11] != "Done\n" {
		t.Errorf("the usage event does not let the last line out: %q", outs[10:12])
	}
	if plain := strings.Join(renderAll(Plain), ""); strings.Join(outs, "") != plain {
		t.Errorf("log and plain differ:\n%s\n---\n%s", strings.Join(outs, ""), plain)
	}
	r := New(Log)
	r.Event(agent.Event{Kind: agent.KindText, Text: "half"})
	if got := r.Flush(); got != "half\n" {
		t.Errorf("Flush %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	r := New(Markdown)
	got := r.Text("# agentls task t1\n\n> do it\n")
	for _, ev := range task() {
		got += r.Event(ev)
	}
	got += r.Block("## Result\n\n- x\n")
	want := "# agentls task t1\n\n> do it\n" +
		"\n## Step 1\n\nLet me look.\nThen edit\n\n" +
		"- → `read_file hello.txt`\n" +
		"  - ← read_file ok: 1\thello ⏎ 2\tworld\n\n" +
		"## Step 2\n\n" +
		"- → `run_command go test ./...`\n" +
		"  - ← run_command error: not allowed\n\n" +
		"### Checks ✗ failed\n\n`go vet` failed\n\n- `a.go:3:1` bad\n- … and 1 more\n\nCommands: `go vet ./...`\n\n" +
		"### Plan (1 of 2 done)\n\n- [x] Read\n- [>] Fix\n\n" +
		"> retry: the model timed out; retrying\n\n" +
		"## Step 3\n\nDone\n\n" +
		"> error: stopped at the step limit\n\n" +
		"## Result\n\n- x\n"
	if got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

// A question asked mid-line starts on a line of its own, and the next
// line is not doubled.
func TestBreak(t *testing.T) {
	r := New(Plain)
	r.Event(agent.Event{Kind: agent.KindText, Text: "thinking"})
	if r.AtLineStart() {
		t.Fatal("at a line start mid-line")
	}
	if got := r.Break(); got != "\n" {
		t.Errorf("Break %q", got)
	}
	if got := r.Break(); got != "" {
		t.Errorf("second Break %q", got)
	}
	if got := r.Line("note"); got != "note\n" {
		t.Errorf("Line %q", got)
	}
}

func TestChecksAndClip(t *testing.T) {
	if got := Checks(agent.VerifyReport{Passed: true, Summary: "1 check passed"}); got != "✓ 1 check passed" {
		t.Errorf("passed: %q", got)
	}
	if got := Checks(agent.VerifyReport{Summary: "failed", Feedback: "a.go:1: x"}); got != "✗ failed\n\na.go:1: x" {
		t.Errorf("failed: %q", got)
	}
	// Cut at a character boundary: "é" is two bytes.
	if got := Clip("ééé", 3); got != "é\n… (4 more bytes)" {
		t.Errorf("Clip %q", got)
	}
}

// The package stays pure: no I/O, no clock, no goroutines.
func TestPackageIsPure(t *testing.T) {
	allowed := map[string]bool{"encoding/json": true, "fmt": true, "strings": true,
		"github.com/agentls/agentls/internal/agent": true, "github.com/agentls/agentls/internal/textcut": true}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[p] {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}

// A command's line says how it ran: unasked in the sandbox, by your
// rules, approved by you, outside the sandbox; and how it ended.
func TestRunNote(t *testing.T) {
	for _, c := range []struct {
		run  agent.CommandRun
		want string
	}{
		{agent.CommandRun{Approval: agent.RanUnasked, Sandboxed: true}, "exit 0 · in the sandbox, unasked"},
		{agent.CommandRun{Approval: agent.RanApproved, ExitCode: 1}, "exit 1 · outside the sandbox, approved by you"},
		{agent.CommandRun{Approval: agent.RanAllowed, Sandboxed: true, ExitCode: -1, TimedOut: true}, "timed out · in the sandbox, allowed by your rules"},
		{agent.CommandRun{Approval: agent.RanApproved, Sandboxed: true, ExitCode: -1, Network: true}, "killed · in the sandbox, approved by you, with network"},
	} {
		if got := RunNote(&c.run); got != c.want {
			t.Errorf("RunNote(%+v) = %q, want %q", c.run, got, c.want)
		}
	}
	run := &agent.ToolCall{ID: "1", Name: "run_command", Arguments: `{"command":"go test ./..."}`}
	ev := agent.Event{Kind: agent.KindToolResult, Call: run, Output: "ok\n[exit code 0]\n", Run: &agent.CommandRun{Approval: agent.RanUnasked, Sandboxed: true}}
	if got := New(Plain).Event(ev); got != "  ← run_command: exit 0 · in the sandbox, unasked: ok …\n" {
		t.Errorf("plain: %q", got)
	}
	if got := New(Markdown).Event(ev); !strings.Contains(got, "← run_command ok (exit 0 · in the sandbox, unasked): ok ⏎ [exit code 0]") {
		t.Errorf("markdown: %q", got)
	}
}

// How a task ended, in words: the reason, not "error:"; a cancel once; a
// task whose edits all failed and that changed nothing is not "ok".
func TestEndWord(t *testing.T) {
	for _, c := range []struct {
		res        agent.Result
		word, line string
	}{
		{agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true, FilesChanged: []string{"a"}}, "ok", "ok, verified · 1 file changed"},
		{agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled", Error: "cancelled"}, "cancelled by you", "cancelled by you · no files changed"},
		{agent.Result{Status: agent.StatusError, Reason: "maxSteps", Error: "stopped at the step limit"}, "stopped: step limit", "stopped: step limit · no files"},
		{agent.Result{Status: agent.StatusOK, Reason: "budget", Verified: true}, "stopped: cost limit", "stopped: cost limit, verified ·"},
		{agent.Result{Status: agent.StatusOK, Reason: "done", FailedEdits: 3, Summary: "Added three constants"}, "edits failed (3), nothing changed", "edits failed (3), nothing changed · no files changed"},
		{agent.Result{Status: agent.StatusOK, Reason: "done", FailedEdits: 1, FilesChanged: []string{"a"}}, "ok", "ok · 1 file changed"},
		{agent.Result{Status: agent.StatusError, Reason: "llm", Error: "HTTP 401"}, "error (the model failed)", "error (the model failed) ·"},
		{agent.Result{Status: agent.StatusOK, Reason: "verifyFailed", Verified: false}, "done, checks failing", "done, checks failing ·"},
	} {
		if got := EndWord(c.res); got != c.word {
			t.Errorf("EndWord(%+v) = %q, want %q", c.res, got, c.word)
		}
		if got := ResultLine(c.res); !strings.HasPrefix(got, c.line) {
			t.Errorf("ResultLine(%+v) = %q, want it to start %q", c.res, got, c.line)
		}
	}
}
