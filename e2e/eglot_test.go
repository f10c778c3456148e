package e2e

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

const fixThenRefix = `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"BROKEN\",\"new_string\":\"FIXED\"}"}]},
 {"text":"fixed"},
 {"toolCalls":[{"id":"c2r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c2","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"FIXED\",\"new_string\":\"FIXED AGAIN\"}"}]},
 {"text":"fixed again"}]}`

// Eglot 1.9 can answer applyEdit "applied" and never send the didChange.
// The checks then run on what the agent produced (here they pass only on
// the edited text), and the next edit, made after the user typed, lands
// on the text the editor really has.
func TestAppliedWithoutDidChange(t *testing.T) {
	s := start(t, setup{files: map[string]string{"f.txt": "status: BROKEN\n"}, script: fixThenRefix,
		settings: map[string]any{"verify": map[string]any{"enabled": true, "commands": []string{"grep -q FIXED f.txt"}}}})
	s.Configure(func(e *lspclient.Editor) { e.SilentApply = true })
	if err := s.Open(s.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "fix it"})
	if r.Status != "ok" || !r.Verified {
		t.Fatalf("checks ran on the old text: %+v", r)
	}
	if got, _ := s.Text("f.txt"); got != "status: FIXED\n" {
		t.Fatalf("buffer %q", got)
	}
	// The user types; the editor's changes are relative to the edited text.
	if err := s.Type(s.ctx, "f.txt", len("status: FIXED\n"), len("status: FIXED\n"), "typed\n"); err != nil {
		t.Fatal(err)
	}
	s.Configure(func(e *lspclient.Editor) { e.SilentApply = false })
	r = s.run(t, map[string]any{"task": "fix it again"})
	if r.Status != "ok" {
		t.Fatalf("second task: %+v", r)
	}
	if got, _ := s.Text("f.txt"); got != "status: FIXED AGAIN\ntyped\n" {
		t.Errorf("buffer %q", got)
	}
	if n := disagreements(s); n != 0 {
		t.Errorf("%d disagreement warnings, want none", n)
	}
}

// When the editor's didChange leaves another text than the edit it said it
// applied, the user is told, once.
func TestAppliedTextDisagrees(t *testing.T) {
	s := start(t, setup{files: map[string]string{"f.txt": "status: BROKEN\n"}, script: fixThenRefix})
	s.Configure(func(e *lspclient.Editor) {
		e.AfterApply = func(u, text string) string { return text + "// added by the editor\n" }
	})
	if err := s.Open(s.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"fix it", "fix it again"} {
		if r := s.run(t, map[string]any{"task": task}); r.Status != "ok" {
			t.Fatalf("%s: %+v", task, r)
		}
	}
	if n := disagreements(s); n != 1 {
		t.Errorf("%d disagreement warnings, want 1", n)
	}
}

func disagreements(s *session) int {
	n := 0
	for _, m := range s.Notes(protocol.MethodWindowShowMessage) {
		if strings.Contains(string(m.Params), "differs from the edited text") {
			n++
		}
	}
	return n
}

// Neovim 0.10 sends one didChange per text edit of an applied edit: the
// first carries only the first hunk. The edited text is what the last one
// leaves, and no disagreement is reported (issue 25, item 7).
func TestOneDidChangePerEditIsNoDisagreement(t *testing.T) {
	s := start(t, setup{files: map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n"}, script: `{"turns": [
 {"toolCalls": [{"id": "w1", "name": "write_file", "arguments": "{\"path\": \"f.txt\", \"content\": \"ONE\\ntwo\\nthree\\nfour\\nFIVE\\n\"}"}]},
 {"text": "Capitalised the ends."}]}`})
	s.Configure(func(e *lspclient.Editor) { e.OneChangePerEdit = true })
	if err := s.Open(s.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	if r := s.run(t, map[string]any{"task": "capitalise the ends"}); r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if got, _ := s.Text("f.txt"); got != "ONE\ntwo\nthree\nfour\nFIVE\n" {
		t.Errorf("buffer %q", got)
	}
	if n := disagreements(s); n != 0 {
		t.Errorf("%d disagreement warnings, want none", n)
	}
}
