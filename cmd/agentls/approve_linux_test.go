//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// The command-approval question stays on screen while it waits (issue 13,
// item 13): the progress line, redrawn about 8 times a second, used to
// erase it with "\r\x1b[K".
func TestApprovalPromptIsNotErased(t *testing.T) {
	e := newEnv(t, alwaysAsk)
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "a", "name": "run_command", "arguments": "{\"command\":\"echo asked > ran.txt\"}"}]},
		{"text": "Done."}
	]}`)
	term := onTerminal(t, e.command("run", "--no-verify", "--base-url", srv.URL(), "run it"), false)
	const prompt = "Run it? [y]es once, [a]lways this command, [n]o: "
	term.waitFor(prompt, 1)
	// Not a timing assertion: a person takes this long to read the
	// question, and the old spinner redrew several times meanwhile. The
	// fixed one never draws while the question waits, however long.
	time.Sleep(600 * time.Millisecond)
	_, after, _ := strings.Cut(term.String(), prompt)
	term.answer("y")
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, term.String())
	}
	if strings.Contains(after, "\r") || strings.Contains(after, "\x1b[K") {
		t.Errorf("the question was overwritten while it waited: %q", after)
	}
	// The progress line comes back after the answer.
	_, rest, _ := strings.Cut(term.String(), prompt)
	if !strings.Contains(rest, "── ok") {
		t.Errorf("the task did not finish:\n%s", term.String())
	}
}
