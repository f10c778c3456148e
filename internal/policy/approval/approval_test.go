package approval

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
)

// With the sandbox off by choice, only what tools.allow covers runs
// unasked; a deny rule refuses whatever hides the program; an "always"
// answer is remembered; "never" refuses what it would ask.
func TestApprover(t *testing.T) {
	cfg := config.Config{}
	cfg.Sandbox.Mode = proc.ModeOff
	cfg.Tools.Allow = []string{"go test"}
	cfg.Tools.Deny = []string{"rm"}
	var asked []string
	answer := AllowAlways
	ask := func(_ context.Context, command, why string) (Answer, error) {
		asked = append(asked, command)
		return answer, nil
	}
	var always Allowed
	var refused []string
	a := Reporting(cfg, &always, ask, func(command, _ string) { refused = append(refused, command) })
	run := func(cmd string) (bool, string) {
		ok, why, err := a.Approve(context.Background(), cmd)
		if err != nil {
			t.Fatal(err)
		}
		return ok, why
	}
	if ok, _ := run("go test ./..."); !ok || len(asked) != 0 {
		t.Errorf("an allowed command: ok %v, asked %v", ok, asked)
	}
	if ok, _ := run("env FOO=1 /bin/rm -rf x"); ok || len(asked) != 0 {
		t.Errorf("a denied command behind a wrapper: ok %v, asked %v", ok, asked)
	}
	if ok, _ := run("make lint"); !ok || len(asked) != 1 {
		t.Errorf("an unlisted command: ok %v, asked %v", ok, asked)
	}
	answer = Deny
	if ok, _ := run("make lint"); !ok || len(asked) != 1 {
		t.Errorf("an answer of always is not remembered: ok %v, asked %v", ok, asked)
	}
	if ok, why := run("make other"); ok || !strings.Contains(why, "denied") {
		t.Errorf("the user's no: ok %v, %q", ok, why)
	}
	if len(refused) != 0 {
		t.Errorf("decisions reported as refusals: %v", refused)
	}

	cfg.Tools.Approval = config.ApprovalNever
	never := Reporting(cfg, nil, ask, func(command, _ string) { refused = append(refused, command) })
	n := len(asked)
	if ok, why, _ := never.Approve(context.Background(), "make lint"); ok || len(asked) != n || !strings.Contains(why, "never") || len(refused) != 1 {
		t.Errorf("never: ok %v, asked %v, %q, refused %v", ok, asked[n:], why, refused)
	}
}
