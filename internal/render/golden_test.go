package render

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// Run with -update to rewrite testdata/golden after a deliberate change of
// wording: go test ./internal/render -update. Read the diff before
// committing it; it is the change every front end shows.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenCase is one event, rendered alone by a fresh Renderer of each style
// after the text "Reading" (so that a line the model left open shows how
// each event ends it), then flushed.
type goldenCase struct {
	name string
	ev   agent.Event
}

func goldenCases() []goldenCase {
	read := &agent.ToolCall{ID: "1", Name: "read_file", Arguments: `{"path":"hello.txt"}`}
	run := &agent.ToolCall{ID: "2", Name: "run_command", Arguments: "{\"command\":\"go test ./... `-v`\"}"}
	explore := &agent.ToolCall{ID: "3", Name: "explore", Arguments: `{"question":"where is main?"}`}
	usage := &agent.Usage{InputTokens: 1200, OutputTokens: 30}
	return []goldenCase{
		{"state", agent.Event{Kind: agent.KindState, Step: 0, From: agent.Planning, To: agent.Executing}},
		{"text", agent.Event{Kind: agent.KindText, Step: 1, Text: " the file.\nThen I edit"}},
		{"plan", agent.Event{Kind: agent.KindPlan, Step: 1, Plan: &agent.WorkPlan{Explanation: "Two steps.", Steps: []agent.PlanStep{
			{Step: "Read", Status: agent.StepCompleted}, {Step: "Fix", Status: agent.StepInProgress}, {Step: "Test", Status: agent.StepPending}}}}},
		{"toolCall", agent.Event{Kind: agent.KindToolCall, Step: 1, Call: read}},
		{"toolCall_backquote", agent.Event{Kind: agent.KindToolCall, Step: 2, Call: run}},
		{"toolResult", agent.Event{Kind: agent.KindToolResult, Step: 1, Call: read, Output: "1\thello\n2\tworld\n3\t!\n4\t?\n"}},
		{"toolResult_error", agent.Event{Kind: agent.KindToolResult, Step: 2, Call: run, Output: "error: not allowed by the policy", IsErr: true}},
		{"verify_passed", agent.Event{Kind: agent.KindVerify, Step: 2, Verify: &agent.VerifyReport{Passed: true, Summary: "2 checks passed", Commands: []string{"go build ./...", "go vet ./..."}}}},
		{"verify_failed", agent.Event{Kind: agent.KindVerify, Step: 2, Verify: &agent.VerifyReport{Summary: "`go vet` failed", Located: []string{"a.go:3:1: bad", "b.go:9:2: worse"}, Problems: 3,
			Commands: []string{"go vet ./..."}, Feedback: "a.go:3:1: bad\nb.go:9:2: worse\n```\nc.go:1:1: worst"}}},
		{"verify_skipped", agent.Event{Kind: agent.KindVerify, Step: 2, Verify: &agent.VerifyReport{Skipped: true, Summary: "nothing to check: no Go files yet"}}},
		{"usage", agent.Event{Kind: agent.KindUsage, Step: 1, Usage: usage, TaskUsage: usage}},
		{"retry", agent.Event{Kind: agent.KindRetry, Step: 2, Text: "the model timed out; retry 1 of 3 in 1s"}},
		{"compaction", agent.Event{Kind: agent.KindCompaction, Step: 4, Text: "dropped 6 messages (about 9000 → 4000 tokens), replaced by a summary"}},
		{"budget", agent.Event{Kind: agent.KindBudget, Step: 9, Text: "1 step left of 10: wrap up"}},
		{"notice", agent.Event{Kind: agent.KindNotice, Step: 1, Text: "@missing.txt was not read: no such file"}},
		{"nested_toolCall", agent.Event{Kind: agent.KindNested, Step: 1, Call: explore, Nested: &agent.Event{Kind: agent.KindToolCall, Call: read}}},
		{"nested_end", agent.Event{Kind: agent.KindNested, Step: 1, Call: explore, Nested: &agent.Event{Kind: agent.KindEnd, Result: &agent.Result{Status: agent.StatusOK, Reason: "done", Steps: 2}}}},
		{"thought", agent.Event{Kind: agent.KindThought, Step: 1, Text: "maybe the main package"}},
		{"commands", agent.Event{Kind: agent.KindCommands, Step: 0, Commands: []agent.AgentCommand{{Name: "review", Description: "review the change"}}}},
		{"options", agent.Event{Kind: agent.KindOptions, Step: 0, Options: []agent.AgentOption{{ID: "model", Name: "Model", Current: "fast"}}}},
		{"end_ok", agent.Event{Kind: agent.KindEnd, Step: 3, Result: &agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true, FilesChanged: []string{"a.go", "b.go"}, Steps: 3, Usage: *usage, Summary: "Fixed it."}}},
		{"end_verifyFailed", agent.Event{Kind: agent.KindEnd, Step: 3, Result: &agent.Result{Status: agent.StatusOK, Reason: "verifyFailed", FilesChanged: []string{"a.go"}, Steps: 3}}},
		{"end_maxSteps", agent.Event{Kind: agent.KindEnd, Step: 10, Result: &agent.Result{Status: agent.StatusError, Reason: "maxSteps", Error: "stopped at the step limit", Steps: 10}}},
		{"end_error", agent.Event{Kind: agent.KindEnd, Step: 1, Result: &agent.Result{Status: agent.StatusError, Reason: "llm", Error: "401 bad key", Steps: 1}}},
		{"end_cancelled", agent.Event{Kind: agent.KindEnd, Step: 2, Result: &agent.Result{Status: agent.StatusCancelled, Reason: "cancelled", Cancelled: true, Error: "cancelled", Steps: 2}}},
		{"end_awaitingReview", agent.Event{Kind: agent.KindEnd, Step: 2, Result: &agent.Result{Status: agent.StatusOK, Reason: "done", Outcome: "awaiting review", FilesChanged: []string{"a.go"}, Steps: 2}}},
	}
}

// renderGolden is c in every style, as the golden file holds it.
func renderGolden(c goldenCase) string {
	var b strings.Builder
	for _, s := range []struct {
		name  string
		style Style
	}{{"plain", Plain}, {"log", Log}, {"markdown", Markdown}} {
		r := New(s.style)
		out := r.Event(agent.Event{Kind: agent.KindText, Step: c.ev.Step, Text: "Reading"})
		out += "⟨event⟩" + r.Event(c.ev) + "⟨flush⟩" + r.Flush()
		fmt.Fprintf(&b, "-- %s --\n%s\n", s.name, out)
	}
	return b.String()
}

// Every event kind in every style, against testdata/golden/<case>.txt: a
// change of wording, or a skipped check shown as failed, fails here.
func TestGolden(t *testing.T) {
	cases := goldenCases()
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.ev.Kind] = true
		path := filepath.Join("testdata", "golden", c.name+".txt")
		got := renderGolden(c)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (go test ./internal/render -update writes it)", c.name, err)
			continue
		}
		if got != string(want) {
			t.Errorf("%s renders differently from %s (go test ./internal/render -update after a deliberate change):\n%s", c.name, path, got)
		}
	}
	for _, k := range agent.EventKinds {
		if !seen[k.Kind] {
			t.Errorf("event kind %q has no golden case", k.Kind)
		}
	}
	// A golden file no case writes is a case someone deleted.
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.txt"))
	names := map[string]bool{}
	for _, c := range cases {
		names[c.name] = true
	}
	for _, f := range files {
		if n := strings.TrimSuffix(filepath.Base(f), ".txt"); !names[n] {
			t.Errorf("%s has no case", f)
		}
	}
}
