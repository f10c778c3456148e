package acpclient

import (
	"io"
	"os/exec"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// An agent that writes several lines to stderr keeps its stderr: with
// zap's standard-library writer, os/exec stopped copying after the first
// line (a short write) and the agent's second line hit a closed pipe.
// Lines are logged one by one, a partial last line at its end.
func TestAgentStderrKeepsThePipeOpen(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	cmd := exec.Command("/bin/sh", "-c", `echo "  one  " >&2; echo two >&2; printf 'three' >&2; echo done`)
	cmd.Stderr = newAgentStderr(zap.New(core))
	out, err := cmd.Output()
	if err != nil || string(out) != "done\n" {
		t.Fatalf("the agent's stderr was not copied to its end: stdout %q, %v", out, err)
	}
	var lines []string
	for _, e := range logs.All() {
		lines = append(lines, e.ContextMap()["line"].(string))
	}
	if got := strings.Join(lines, "|"); got != "one|two" {
		t.Errorf("logged %q, want one|two (three has no newline yet)", got)
	}
	w := newAgentStderr(zap.NewNop())
	big := strings.Repeat("x", maxStderrLine+1)
	if n, err := io.WriteString(w, big); n != len(big) || err != nil || len(w.line) != 0 {
		t.Errorf("a runaway line: wrote %d, %v, %d bytes held", n, err, len(w.line))
	}
}
