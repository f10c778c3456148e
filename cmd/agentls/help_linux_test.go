//go:build linux

package main

import (
	"strings"
	"testing"
)

// Plain agentls on a terminal prints the help and how to serve, instead of
// waiting silently for LSP input (issue 13, item 12).
func TestNoArgumentsOnATerminal(t *testing.T) {
	e := newEnv(t, nil)
	term := onTerminal(t, e.command(), true)
	term.waitFor("run: agentls serve", 1)
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, term.String())
	}
	if s := term.String(); !strings.Contains(s, "  sessions ") {
		t.Errorf("no help:\n%s", s)
	}
}
