package delegate

import (
	"slices"
	"strings"
	"testing"
)

// A NATS URL with a user and password never shows them in an error.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"nats://user:pa55@host:4222":            "nats://…@host:4222",
		"tls://tok3n@host:4222":                 "tls://…@host:4222",
		"nats://a:1@h1:4222,nats://b:2@h2:4222": "nats://…@h1:4222,nats://…@h2:4222",
		"nats://host:4222":                      "nats://host:4222",
	} {
		got := redactURL(in)
		if got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(got, "pa55") || strings.Contains(got, "tok3n") || strings.Contains(got, "b:2") {
			t.Errorf("redactURL(%q) leaks the secret: %q", in, got)
		}
	}
}

// A job's agentls gets nothing of the worker's NATS connection (URL with
// credentials, creds and nkey files) and the job's own state directory.
func TestChildEnvKeepsTheNATSConnectionOut(t *testing.T) {
	t.Setenv("AGENTLS_NATS_URL", "nats://user:pa55@host:4222")
	t.Setenv("AGENTLS_NATS_CREDENTIALS", "/secret/worker.creds")
	t.Setenv("NATS_URL", "nats://user:pa55@host:4222")
	t.Setenv("XDG_STATE_HOME", "/home/worker/.local/state")
	t.Setenv("KEEP_ME", "1")
	env := childEnv("/jobs/j1/state")
	for _, kv := range env {
		if strings.HasPrefix(kv, "AGENTLS_NATS_") || strings.HasPrefix(kv, "NATS_URL=") || strings.Contains(kv, "pa55") {
			t.Errorf("the job's environment has %q", kv)
		}
	}
	if !slices.Contains(env, "XDG_STATE_HOME=/jobs/j1/state") || slices.Contains(env, "XDG_STATE_HOME=/home/worker/.local/state") {
		t.Errorf("XDG_STATE_HOME is not the job's own")
	}
	if !slices.Contains(env, "KEEP_ME=1") {
		t.Errorf("the rest of the environment is lost")
	}
}
