//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --review reports on what was accepted (issue 13, item 7): nothing about
// the outcome before the questions, then the checks run again on the
// files written, and the end line and exit status follow them. Only the
// written file is counted and remembered (item 6).
func TestReviewChecksWhatWasAccepted(t *testing.T) {
	// The check needs both files: the whole proposal passes, hello.txt
	// alone does not.
	e := newEnv(t, map[string]string{".agentls.json": `{"verify": {"commands": ["grep -q goodbye hello.txt && test -e new.txt"]}}`})
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "er", "name": "read_file", "arguments": "{\"path\":\"hello.txt\"}"}, {"id": "e", "name": "edit_file", "arguments": "{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
		{"toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"new.txt\",\"content\":\"new\\n\"}"}]},
		{"text": "Done."}
	]}`)
	term := onTerminal(t, e.command("run", "--review", "--trust", "--base-url", srv.URL(), "edit and create"), false)
	term.waitFor("[1/2] apply hello.txt", 1)
	if s := term.String(); strings.Contains(s, "──") || strings.Contains(s, "verified") {
		t.Errorf("the outcome was reported before the review:\n%s", s)
	}
	term.answer("y")
	term.waitFor("[2/2] apply new.txt", 1)
	term.answer("n")
	err := term.cmd.Wait()
	if ee, ok := err.(interface{ ExitCode() int }); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (the accepted files fail the checks)\n%s", err, term.String())
	}
	s := term.String()
	for _, w := range []string{"wrote 1 of 2 changed files", "on the accepted files", "✗ checks failed", "── done, checks failing · 1 file changed"} {
		if !strings.Contains(s, w) {
			t.Errorf("the screen lacks %q:\n%s", w, s)
		}
	}
	if strings.Contains(s, "ok, verified") {
		t.Errorf("the proposal's verdict was reported:\n%s", s)
	}
	r := e.run("sessions", "--json")
	id := strings.Split(strings.Split(r.stdout, `"id": "`)[1], `"`)[0]
	if r = e.run("sessions", "show", id); !strings.Contains(r.stdout, "done, checks failing · 1 file changed") {
		t.Errorf("sessions show:\n%s", r.stdout)
	}
	if mem := memoryOf(t, e); strings.Contains(mem, "new.txt") || !strings.Contains(mem, "changed hello.txt") {
		t.Errorf("memory: %s", mem)
	}
}

// memoryOf is the workspace memory file's text.
func memoryOf(t *testing.T, e *env) string {
	t.Helper()
	var out string
	filepath.WalkDir(e.state, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "memory.jsonl" {
			b, _ := os.ReadFile(p)
			out += string(b)
		}
		return nil
	})
	return out
}

// A dry run writes nothing, so nothing is remembered as changed (item 6).
func TestDryRunIsNotRememberedAsAChange(t *testing.T) {
	e := newEnv(t, nil)
	r := e.run("run", "--dry-run", "--base-url", fakeModel(t, "read-edit.json").URL(), "replace hello with goodbye")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if mem := memoryOf(t, e); mem == "" || strings.Contains(mem, "changed hello.txt") {
		t.Errorf("memory: %q", mem)
	}
	r2 := e.run("sessions", "--json")
	id := strings.Split(strings.Split(r2.stdout, `"id": "`)[1], `"`)[0]
	if r2 = e.run("sessions", "show", id); !strings.Contains(r2.stdout, "no files changed") {
		t.Errorf("sessions show:\n%s", r2.stdout)
	}
}
