package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
)

func TestTranscript(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.md")
	tr, err := createTranscript(dir, "t", func(s string) string { return s })
	if err != nil {
		t.Fatal(err)
	}
	read := &agent.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"hello.txt"}`}
	edit := &agent.ToolCall{ID: "c2", Name: "edit_file", Arguments: `{"path":"hello.txt","old_string":"a","new_string":"b"}`}
	run := &agent.ToolCall{ID: "c3", Name: "run_command", Arguments: `{"command":"go test ./..."}`}
	res := agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true, FilesChanged: []string{"hello.txt"},
		Usage: agent.Usage{InputTokens: 1200, OutputTokens: 80}, Cost: 0.0123, Steps: 3, Summary: "Changed a to b."}
	tr.header("t1", "s1", "/w", "m", "change a\nto b", time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC))
	for _, ev := range []agent.Event{
		{Kind: agent.KindState, From: agent.Idle, To: agent.Planning},
		{Kind: agent.KindText, Step: 1, Text: "Let me "},
		{Kind: agent.KindText, Step: 1, Text: "look."},
		{Kind: agent.KindUsage, Step: 1},
		{Kind: agent.KindToolCall, Step: 1, Call: read},
		{Kind: agent.KindToolResult, Step: 1, Call: read, Output: "     1\ta\n     2\tb\n     3\tc\n     4\td\n"},
		{Kind: agent.KindRetry, Step: 2, Text: "model error (HTTP 503): busy; retry 1 of 2 in 500ms"},
		{Kind: agent.KindToolCall, Step: 2, Call: edit},
		{Kind: agent.KindToolCall, Step: 2, Call: run},
		{Kind: agent.KindToolResult, Step: 2, Call: edit, Output: "edited hello.txt: 1 replacement, line 1"},
		{Kind: agent.KindToolResult, Step: 2, Call: run, Output: "error: command \"go test ./...\" is not allowed", IsErr: true},
		{Kind: agent.KindVerify, Step: 2, Verify: &agent.VerifyReport{Passed: false, Commands: []string{"go vet ./..."}, Summary: "`go vet ./...` failed (exit 1); 1 problem located", Feedback: "hello.go:3:1: bad\n"}},
		{Kind: agent.KindText, Step: 3, Text: "Changed a to b."},
		{Kind: agent.KindVerify, Step: 3, Verify: &agent.VerifyReport{Passed: true, Commands: []string{"go vet ./..."}, Summary: "1 check passed"}},
		{Kind: agent.KindEnd, Step: 3, Result: &res},
	} {
		tr.Event(ev)
	}
	tr.end(res, []Change{{Path: "hello.txt"}, {Path: "new.go", Created: true}})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# agentls task t1\n\n" +
		"- session: `s1`\n- workspace: `/w`\n- started: 2026-11-01T10:00:00Z\n- model: `m`\n\n" +
		"> change a\n> to b\n\n" +
		"## Step 1\n\nLet me look.\n\n" +
		"- → `read_file hello.txt`\n" +
		"  - ← read_file ok: 1\ta ⏎      2\tb ⏎      3\tc …\n\n" +
		"> retry: model error (HTTP 503): busy; retry 1 of 2 in 500ms\n\n" +
		"## Step 2\n\n" +
		"- → `edit_file hello.txt`\n" +
		"- → `run_command go test ./...`\n" +
		"  - ← edit_file ok: edited hello.txt: 1 replacement, line 1\n" +
		"  - ← run_command error: command \"go test ./...\" is not allowed\n\n" +
		"### Checks ✗ failed\n\n`go vet ./...` failed (exit 1); 1 problem located\n\nCommands: `go vet ./...`\n\n```text\nhello.go:3:1: bad\n```\n\n" +
		"## Step 3\n\nChanged a to b.\n\n" +
		"### Checks ✓ passed\n\n1 check passed\n\nCommands: `go vet ./...`\n\n" +
		"## Result\n\n- ok, verified · 1 file changed · 3 steps · 1200 in / 80 out tokens · $0.0123\n- changed `hello.txt`\n- created `new.go`\n\nChanged a to b.\n"
	if string(got) != want {
		t.Fatalf("transcript:\n%s\n--- want:\n%s\n--- first difference at byte %d", got, want, commonLen(string(got), want))
	}
}

// A run with nothing to check is not a pass, in the transcript as in the
// editor and on the terminal.
func TestTranscriptSkippedChecksAreNoPass(t *testing.T) {
	dir := t.TempDir()
	tr, err := createTranscript(dir, "t", func(s string) string { return s })
	if err != nil {
		t.Fatal(err)
	}
	tr.Event(agent.Event{Kind: agent.KindVerify, Step: 1, Verify: &agent.VerifyReport{Passed: true, Skipped: true,
		Summary: "nothing to check: no source files yet for go build ./..."}})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "t.md"))
	if want := "### Checks · skipped\n\nnothing to check: no source files yet for go build ./...\n"; !strings.Contains(string(got), want) {
		t.Errorf("transcript:\n%s\nwant it to hold:\n%s", got, want)
	}
}

func commonLen(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func TestTranscriptNamesNeverClash(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for range 3 {
		tr, err := createTranscript(dir, "s-1", func(s string) string { return s })
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(tr.Path()))
		tr.Close()
	}
	if strings.Join(paths, " ") != "s-1.md s-1.1.md s-1.2.md" {
		t.Fatal(paths)
	}
}
