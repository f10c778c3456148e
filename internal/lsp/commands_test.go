package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// A command's arguments decode strictly into its declared type, and a bad
// argument names the command and its documented shape.
func TestCommandDecoding(t *testing.T) {
	var got runArgs
	c := cmd("agentls.test", "{task, uri?}", func(s *Server) *Server { return s }, func(_ *Server, _ context.Context, a runArgs) (any, error) {
		got = a
		return "ran", nil
	})
	cases := []struct {
		raw     string
		wantErr string // "" for success
		task    string
	}{
		{`{"task":"do it"}`, "", "do it"},
		{`{}`, "", ""},
		{`{"task":"x","review":true,"range":{"start":{"line":1,"character":0},"end":{"line":2,"character":0}}}`, "", "x"},
		{`{"taks":"typo"}`, `agentls.test: bad arguments (json: unknown field "taks"); expected {task, uri?}`, ""},
		{`{"task":1}`, "agentls.test: bad arguments", ""},
		{`[]`, "agentls.test: bad arguments", ""},
		{`{"task":"a"} {"task":"b"}`, "more than one JSON value", ""},
	}
	for _, tc := range cases {
		got = runArgs{}
		res, err := c.run(nil, context.Background(), json.RawMessage(tc.raw))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.raw, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.raw, err, tc.wantErr)
		case tc.wantErr == "" && (res != "ran" || got.Task != tc.task):
			t.Errorf("%s: ran with %+v", tc.raw, got)
		}
	}
}

// Every declared command is advertised once, with its argument shape.
func TestCommandsDeclaredOnce(t *testing.T) {
	s := newServer(Options{})
	seen := map[string]bool{}
	for _, c := range s.commandList() {
		if seen[c.name] || c.args == "" || !strings.HasPrefix(c.name, "agentls.") {
			t.Errorf("command %q declared twice or without arguments", c.name)
		}
		seen[c.name] = true
	}
	if seen["agentls.debug.heap"] {
		t.Error("the test-only command is advertised without its hook")
	}
	if len(s.commandNames()) != len(commands) {
		t.Errorf("%d names for %d commands", len(s.commandNames()), len(commands))
	}
}
