//go:build linux

package main

import (
	"strings"
	"testing"
)

// On a terminal, agentls trust and agentls run ask before trusting the
// workspace file's widening settings; only yes trusts it.
func TestTrustAskedOnATerminal(t *testing.T) {
	e := newEnv(t, map[string]string{".agentls.json": `{"verify": {"commands": ["grep -q goodbye hello.txt"]}}`})
	term := onTerminal(t, e.command("trust"), true)
	term.waitFor("[y/N]: ", 1)
	term.answer("n")
	if err := term.cmd.Wait(); err == nil {
		t.Fatalf("trust, answered no: exit 0\n%s", term.String())
	}
	term.waitFor("not trusted", 1) // the screen may lag the exit

	srv := fakeModel(t, "read-edit.json")
	term = onTerminal(t, e.command("run", "--base-url", srv.URL(), "replace hello with goodbye"), false)
	term.waitFor("verify.commands", 1)
	term.waitFor("[y/N]: ", 1)
	term.answer("yes")
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("run, trusted on the terminal: %v\n%s", err, term.String())
	}
	term.waitFor("running grep -q goodbye hello.txt", 1)
	if r := e.run("trust"); r.code != 0 || !strings.Contains(r.stdout, "trusted as it is") {
		t.Errorf("the answer was not remembered: exit %d %q", r.code, r.stdout)
	}
}
