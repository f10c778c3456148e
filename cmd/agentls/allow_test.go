package main

import (
	"strings"
	"testing"
)

// --allow PATTERN lets a command run without a terminal, through the same
// policy as tools.allow (issue 13, item 14): it matches what the pattern
// covers, nothing else, and tools.deny still wins.
func TestAllowFlag(t *testing.T) {
	script := `{"turns": [
		{"toolCalls": [{"id": "a", "name": "run_command", "arguments": "{\"command\":\"touch allowed.txt\"}"}]},
		{"toolCalls": [{"id": "b", "name": "run_command", "arguments": "{\"command\":\"rm hello.txt\"}"}]},
		{"text": "Done."}]}`
	e := newEnv(t, map[string]string{".agentls.json": `{"tools": {"deny": ["rm"]}}`})
	r := e.run("run", "--no-verify", "--allow", "touch", "--allow", "rm", "--base-url", fakeModel(t, script).URL(), "run it")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	files := snapshot(t, e.ws)
	if _, ok := files["allowed.txt"]; !ok {
		t.Errorf("the allowed command did not run:\n%s", r.stderr)
	}
	if _, ok := files["hello.txt"]; !ok {
		t.Errorf("tools.deny lost to --allow")
	}
	if r := e.run("run", "--allow", "", "x"); r.code != 2 || !strings.Contains(r.stderr, "empty pattern") {
		t.Errorf("--allow '': exit %d: %s", r.code, r.stderr)
	}
}
