package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// An untrusted .agentls.json that names its own endpoint stops agentls
// run: the work goes neither to the endpoint the user's environment names
// nor to the default one, and the message says which setting and how to
// trust it. The old code dropped llm.baseURL and sent the workspace to the
// environment's (or OpenAI's) endpoint with the user's key.
func TestUntrustedEndpointFailsClosed(t *testing.T) {
	e := newEnv(t, map[string]string{".agentls.json": `{"llm": {"baseURL": "http://127.0.0.1:9/v1"}}`})
	srv := fakeModel(t, `{"turns": [{"text": "Done."}]}`)
	e.vars = append(e.vars, "AGENTLS_BASE_URL="+srv.URL())
	r := e.run("run", "--no-verify", "say hi")
	if r.code == 0 {
		t.Errorf("exit 0; want non-zero\n%s", r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests went to the environment's endpoint", n)
	}
	for _, want := range []string{"llm.baseURL", "agentls trust", "--trust"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the message does not say %q:\n%s", want, r.stderr)
		}
	}

	// --base-url names the endpoint for the run, and --replay uses none:
	// the file's is moot.
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	if r := e.run("run", "--no-verify", "--base-url", srv.URL(), "--record", rec, "say hi"); r.code != 0 || len(srv.Requests()) != 1 {
		t.Errorf("with --base-url: exit %d, %d requests\n%s", r.code, len(srv.Requests()), r.stderr)
	}
	if r := e.run("run", "--no-verify", "--replay", rec, "say hi"); r.code != 0 {
		t.Errorf("with --replay: exit %d\n%s", r.code, r.stderr)
	}
	// Trusted, the file's endpoint is the one used (here unreachable, so
	// the run fails, but not for want of trust).
	e.run("trust", "--yes")
	if r := e.run("run", "--no-verify", "say hi"); strings.Contains(r.stderr, "agentls trust") || len(srv.Requests()) != 1 {
		t.Errorf("trusted: %d requests to the environment's endpoint\n%s", len(srv.Requests()), r.stderr)
	}
}
