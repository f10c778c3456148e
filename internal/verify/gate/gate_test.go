package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/verify"
)

func TestReport(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes: cut at a character, not in one
	tests := []struct {
		name    string
		results []verify.Result
		passed  bool
		summary string
		located []string
	}{
		{"passed", []verify.Result{{Command: "go vet ./...", Passed: true}, {Command: "go test ./...", Passed: true}},
			true, "2 checks passed (go vet ./...; go test ./...)", nil},
		{"failed, located relative to the root", []verify.Result{{Command: "go vet ./...", ExitCode: 1, Root: "/w",
			Diagnostics: []verify.Diagnostic{{Path: "/w/a/b.go", Line: 3, Message: "bad\n  thing"}, {Path: "/elsewhere/c.go", Line: 1, Message: long}}}},
			false, "`go vet ./...` failed (exit 1); 2 problems located",
			[]string{"a/b.go:3: bad thing", "/elsewhere/c.go:1: " + strings.Repeat("é", 100) + "…"}},
		{"timed out, output unlocated", []verify.Result{{Command: "make", ExitCode: -1, TimedOut: true, Unlocated: []string{"a", "b", "c", "d"}}},
			false, "`make` timed out; 0 problems located; output: a | b | c", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cmds []string
			for _, r := range tc.results {
				cmds = append(cmds, r.Command)
			}
			rep := Report(tc.results, cmds)
			if rep.Passed != tc.passed || rep.Summary != tc.summary || strings.Join(rep.Located, "\n") != strings.Join(tc.located, "\n") {
				t.Errorf("got %v %q %q", rep.Passed, rep.Summary, rep.Located)
			}
			if !tc.passed && rep.Feedback == "" {
				t.Error("a failure gives the model no feedback")
			}
		})
	}
}

// A detected gate with nothing to check skips instead of passing.
func TestDetectedGateWithNoSourcesSkips(t *testing.T) {
	root := t.TempDir()
	g := &Gate{Root: root, Commands: []string{"go build ./..."}, Detected: true, Sandbox: proc.Sandbox{Mode: proc.ModeOff}}
	rep, err := g.Verify(context.Background(), []string{"notes.txt"})
	if err != nil || !rep.Skipped || !rep.Passed || !strings.HasPrefix(rep.Summary, "nothing to check") {
		t.Fatalf("%+v %v", rep, err)
	}
}
