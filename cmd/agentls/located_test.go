package main

import (
	"strings"
	"testing"
)

// Failed checks show the person the located problems, file:line: message,
// on the terminal and in the Markdown transcript (issue 13, item 5), not
// only "1 problem located".
func TestFailedChecksShowTheProblems(t *testing.T) {
	e := newEnv(t, map[string]string{
		"go.mod":        "module example.com/calc\n\ngo 1.22\n",
		"calc.go":       "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		".agentls.json": `{"verify": {"commands": ["go build ./..."]}, "agent": {"maxRetries": 0}}`,
	})
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "er", "name": "read_file", "arguments": "{\"path\":\"calc.go\"}"}, {"id": "e", "name": "edit_file", "arguments": "{\"path\":\"calc.go\",\"old_string\":\"a + b\",\"new_string\":\"a + undefinedThing\"}"}]},
		{"text": "Changed Add."}]}`)
	r := e.run("run", "--base-url", srv.URL(), "break it")
	if r.code != 1 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "\n    calc.go:3: undefined: undefinedThing\n") {
		t.Errorf("the terminal lacks the problem:\n%s", r.stderr)
	}
	if tr := transcriptOf(t, r.stderr); !strings.Contains(tr, "- `calc.go:3` undefined: undefinedThing") {
		t.Errorf("the transcript lacks the problem:\n%s", tr)
	}
}
