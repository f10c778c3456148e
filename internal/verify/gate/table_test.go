package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/verify"
)

func TestReportTable(t *testing.T) {
	root := "/w"
	long := strings.Repeat("é", 150) // 300 bytes: cut at a character boundary
	diags := func(n int) []verify.Diagnostic {
		var out []verify.Diagnostic
		for i := range n {
			out = append(out, verify.Diagnostic{Path: fmt.Sprintf("/w/p/f%d.go", i), Line: i + 1, Message: "bad\n\tthing"})
		}
		return out
	}
	for _, c := range []struct {
		name    string
		results []verify.Result
		cmds    []string
		passed  bool
		summary string
		located []string
	}{
		{"all passed", []verify.Result{{Command: "a", Passed: true}, {Command: "b", Passed: true}}, []string{"a", "b"},
			true, "2 checks passed (a; b)", nil},
		{"one passed", []verify.Result{{Command: "a", Passed: true}}, []string{"a"},
			true, "1 check passed (a)", nil},
		{"a failure with its problems", []verify.Result{{Command: "go vet", ExitCode: 1, Root: root, Diagnostics: diags(2)}}, []string{"go vet"},
			false, "`go vet` failed (exit 1); 2 problems located", []string{"p/f0.go:1: bad thing", "p/f1.go:2: bad thing"}},
		{"a timeout, with output nobody located", []verify.Result{{Command: "make", ExitCode: -1, TimedOut: true, Unlocated: []string{"u1", "u2", "u3", "u4"}}}, []string{"make"},
			false, "`make` timed out; 0 problems located; output: u1 | u2 | u3", nil},
		{"one problem; a path outside the root stays absolute", []verify.Result{{Command: "c", ExitCode: 2, Root: root, Diagnostics: []verify.Diagnostic{{Path: "/elsewhere/x.go", Line: 3, Message: long}}}}, []string{"c"},
			false, "`c` failed (exit 2); 1 problem located", []string{"/elsewhere/x.go:3: " + strings.Repeat("é", 100) + "…"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := Report(c.results, c.cmds)
			if rep.Passed != c.passed || rep.Summary != c.summary || strings.Join(rep.Located, "\n") != strings.Join(c.located, "\n") {
				t.Errorf("Report = passed %v, %q, located %q; want %v, %q, %q", rep.Passed, rep.Summary, rep.Located, c.passed, c.summary, c.located)
			}
			if c.passed != (rep.Feedback == "") {
				t.Errorf("feedback %q", rep.Feedback)
			}
			for _, l := range rep.Located {
				if !utf8.ValidString(l) {
					t.Errorf("located cut a character: %q", l)
				}
			}
		})
	}
	// The located problems are capped; the count is not.
	rep := Report([]verify.Result{{Command: "x", ExitCode: 1, Root: root, Diagnostics: diags(agent.MaxLocated + 5)}}, []string{"x"})
	if len(rep.Located) != agent.MaxLocated || rep.Problems != agent.MaxLocated+5 {
		t.Errorf("%d located, %d problems", len(rep.Located), rep.Problems)
	}
}

// The gate runs its commands and reports each run to OnStart and
// OnResults; a failing command fails the report.
func TestGateRunsItsCommands(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("ok\n"), 0o644)
	for _, c := range []struct {
		cmds    []string
		passed  bool
		summary string
	}{
		{[]string{"grep -q ok a.txt", "test -f a.txt"}, true, "2 checks passed (grep -q ok a.txt; test -f a.txt)"},
		{[]string{"grep -q nope a.txt", "test -f a.txt"}, false, "`grep -q nope a.txt` failed (exit 1)"},
	} {
		g := &Gate{Root: root, Commands: c.cmds, Sandbox: proc.Sandbox{Mode: proc.ModeOff}}
		var started []string
		var results int
		g.OnStart = func(cmd string) { started = append(started, cmd) }
		g.OnResults = func(_ context.Context, r []verify.Result) { results = len(r) }
		g.Approve = func(context.Context, string) (bool, string, error) {
			t.Error("asked to approve a check with the sandbox off by choice")
			return false, "", nil
		}
		rep, err := g.Verify(context.Background(), []string{"a.txt"})
		if err != nil || rep.Passed != c.passed || !strings.HasPrefix(rep.Summary, c.summary) {
			t.Errorf("%q: %+v, %v", c.cmds, rep, err)
		}
		// The checks stop at the first that fails.
		if want := map[bool]int{true: 2, false: 1}[c.passed]; len(started) != want || results != want {
			t.Errorf("%q: started %q, %d results", c.cmds, started, results)
		}
	}
}
