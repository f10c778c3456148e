package gate

import (
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/internal/verify"
)

func TestLineMap(t *testing.T) {
	old := "a\nb\nc\nd\ne\n"
	for _, c := range []struct {
		name, cur string
		from, to  int
		ok        bool
	}{
		{"unchanged", old, 4, 4, true},
		{"two lines inserted above", "x\ny\na\nb\nc\nd\ne\n", 4, 6, true},
		{"a line deleted above", "a\nc\nd\ne\n", 4, 3, true},
		{"the line itself changed", "a\nb\nc\nD\ne\n", 4, 0, false},
		{"text joined to the line's start", "a\nb\nc\nxd\ne\n", 4, 0, false},
		{"a change below", "a\nb\nc\nd\nE\n", 4, 4, true},
		{"a line inserted right above", "a\nb\nc\nnew\nd\ne\n", 4, 5, true},
		{"out of range", old, 9, 0, false},
	} {
		got, ok := newLineMap(old, c.cur).to(c.from)
		if ok != c.ok || got != c.to {
			t.Errorf("%s: line %d → %d, %v; want %d, %v", c.name, c.from, got, ok, c.to, c.ok)
		}
	}
}

// excuse: only a failure the baseline had too, at the mapped line, is
// pre-existing; never one in a file the task created or changed without
// its earlier text known, nor a check that passed before.
func TestExcuse(t *testing.T) {
	root := "/w"
	diag := func(rel string, line int, msg string) verify.Diagnostic {
		return verify.Diagnostic{Path: filepath.Join(root, rel), Line: line, Message: msg}
	}
	failing := func(ds ...verify.Diagnostic) verify.Result {
		return verify.Result{Command: "go build ./...", Diagnostics: ds, Root: root}
	}
	maps := map[string]lineMap{"a.go": newLineMap("1\n2\nuser\n", "new\n1\n2\nuser\n")}

	// The user's line moved down by the task's insertion: excused.
	after := []verify.Result{failing(diag("a.go", 4, "unexpected /"))}
	if !excuse(root, after, []verify.Result{failing(diag("a.go", 3, "unexpected /"))}, []string{"a.go"}, maps) || !after[0].PreExisting || !after[0].Diagnostics[0].PreExisting {
		t.Errorf("the user's moved line is not excused: %+v", after)
	}
	// Plus an error of the task's own in the same file: that one counts.
	after = []verify.Result{failing(diag("a.go", 4, "unexpected /"), diag("a.go", 1, "undefined: x"))}
	excuse(root, after, []verify.Result{failing(diag("a.go", 3, "unexpected /"))}, []string{"a.go"}, maps)
	if after[0].PreExisting || !after[0].Diagnostics[0].PreExisting || after[0].Diagnostics[1].PreExisting {
		t.Errorf("the task's own error was excused: %+v", after)
	}
	// The same message at the unmapped line: the task's.
	after = []verify.Result{failing(diag("a.go", 3, "unexpected /"))}
	if excuse(root, after, []verify.Result{failing(diag("a.go", 3, "unexpected /"))}, []string{"a.go"}, maps) {
		t.Errorf("a finding at another line was excused")
	}
	// A changed file whose earlier text is unknown (a command wrote it).
	after = []verify.Result{failing(diag("b.go", 2, "unexpected /"))}
	if excuse(root, after, []verify.Result{failing(diag("b.go", 2, "unexpected /"))}, []string{"b.go"}, maps) {
		t.Errorf("a finding in a file with no known earlier text was excused")
	}
	// A file the task did not change: the same line.
	after = []verify.Result{failing(diag("c.go", 7, "unexpected /"))}
	if !excuse(root, after, []verify.Result{failing(diag("c.go", 7, "unexpected /"))}, []string{"a.go"}, maps) {
		t.Errorf("an untouched file's old failure was not excused")
	}
	// The check passed before: nothing is excused.
	after = []verify.Result{failing(diag("c.go", 7, "unexpected /"))}
	if excuse(root, after, []verify.Result{{Command: "go build ./...", Passed: true}}, []string{"a.go"}, maps) {
		t.Errorf("a failure of a check that passed before was excused")
	}
	// Report: an excused failure passes, says so and sends no feedback.
	after = []verify.Result{failing(diag("c.go", 7, "unexpected /"))}
	excuse(root, after, []verify.Result{failing(diag("c.go", 7, "unexpected /"))}, nil, nil)
	rep := Report(after, []string{"go build ./..."})
	if !rep.Passed || rep.Feedback != "" || rep.PreExisting != 1 || rep.Summary != "no new problems from this task (go build ./...); there before this task, not its own: c.go:7: unexpected /" {
		t.Errorf("report %+v", rep)
	}
}
