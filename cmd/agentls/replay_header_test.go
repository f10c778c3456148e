package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A replay's header names the recorded model, which is the one answering,
// not the configured default (issue 13, item 16).
func TestReplayHeaderShowsTheRecordedModel(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	e1 := newEnv(t, nil)
	e1.vars = append(e1.vars, "AGENTLS_MODEL=recorded-model")
	if r := e1.run("run", "--record", rec, "--base-url", fakeModel(t, "hello.json").URL(), "say hello"); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	e2 := newEnv(t, nil)
	r := e2.run("run", "--replay", rec, "say hello")
	if r.code != 0 || !strings.Contains(r.stderr, "model recorded-model ·") {
		t.Fatalf("replay: exit %d\n%s", r.code, r.stderr)
	}
}
