//go:build linux

package main

import (
	"strings"
	"testing"
)

// Plain agentls on a terminal prints the help and how to serve, instead of
// waiting silently for LSP input (issue 13, item 12).
func TestNoArgumentsOnATerminal(t *testing.T) {
	master, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	e := newEnv(t, nil)
	cmd := e.command()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	sc := readScreen(master)
	sc.waitFor(t, cmd.Process, "run: agentls serve", 1)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, sc.String())
	}
	if s := sc.String(); !strings.Contains(s, "  sessions ") {
		t.Errorf("no help:\n%s", s)
	}
}
