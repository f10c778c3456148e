package review

import (
	"errors"
	"fmt"
	"testing"
)

func TestPlanAccept(t *testing.T) {
	f := File{Rel: "f", ReviewBase: "alpha\nmid\nomega\n", ReviewExisted: true, Proposed: "ALPHA\nmid\nOMEGA\n", Proposing: true, Gen: 3}
	for _, c := range []struct {
		name, cur, hunk string
		ok              bool
		err             error
		next            string
		accepted        int
	}{
		{"all", f.ReviewBase, "", true, nil, "ALPHA\nmid\nOMEGA\n", 2},
		{"one hunk", f.ReviewBase, "0-5", true, nil, "ALPHA\nmid\nomega\n", 1},
		{"an unknown hunk", f.ReviewBase, "1-2", false, nil, "", 0},
		{"over the user's line above", "new\n" + f.ReviewBase, "10-15", true, nil, "new\nalpha\nmid\nOMEGA\n", 1},
		{"the user's line above is adjacent", "new\n" + f.ReviewBase, "0-5", false, ErrEditedOver, "", 0},
		{"the user's line between is adjacent to both", "alpha\nMID!\nomega\n", "", false, ErrEditedOver, "", 0},
		{"the user's line two apart is kept", "alpha\nmid\nomega\nmore\n", "0-5", true, nil, "ALPHA\nmid\nomega\nmore\n", 1},
		{"edited over", "alpXa\nmid\nomega\n", "", false, ErrEditedOver, "", 0},
		{"edited over another hunk", "alpXa\nmid\nomega\n", "10-15", true, nil, "alpXa\nmid\nOMEGA\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, ok, err := PlanAccept(f, c.cur, true, c.hunk)
			if ok != c.ok || !errors.Is(err, c.err) {
				t.Fatalf("ok %v err %v; want %v %v", ok, err, c.ok, c.err)
			}
			if !ok {
				return
			}
			if a.Next != c.next || len(a.Accepted) != c.accepted || a.Gen != f.Gen || a.Cur != c.cur {
				t.Errorf("plan %+v; want next %q and %d accepted", a, c.next, c.accepted)
			}
		})
	}
}

// An accept planned against a generation commits only if the proposal has
// not moved since; each commit and rejection moves it.
func TestCommitChecksTheGeneration(t *testing.T) {
	var c Log
	base := "alpha\nmid\nomega\n"
	_ = c.Propose("f", base, true, upper("alpha"))
	a, ok, err := PlanAccept(c.Pending()[0], base, true, "")
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	_ = c.Propose("f", base, true, upper("omega")) // the task went on meanwhile
	if c.CommitAccept(a.Rel, a.Gen, a.Accepted, a.Cur, a.Existed, a.Next) {
		t.Fatal("committed against a proposal that moved")
	}
	a, _, _ = PlanAccept(c.Pending()[0], base, true, "")
	if !c.CommitAccept(a.Rel, a.Gen, a.Accepted, a.Cur, a.Existed, a.Next) {
		t.Fatal("refused a current plan")
	}
	if len(c.Pending()) != 0 || c.Applied()[0].After != "ALPHA\nmid\nOMEGA\n" || c.Applied()[0].Base != base {
		t.Fatalf("after the commit: pending %v applied %+v", c.Pending(), c.Applied())
	}
}

func TestPlanUndo(t *testing.T) {
	edited := File{Rel: "f", Base: "a\nb\nc\n", Existed: true, After: "A\nb\nC\n", Applied: true}
	created := File{Rel: "n", Existed: false, After: "new\n", Applied: true}
	for _, c := range []struct {
		name    string
		f       File
		cur     string
		exists  bool
		want    string // the undo as "delete", "keep" or the next text
		conflct int
	}{
		{"untouched since", edited, "A\nb\nC\n", true, "a\nb\nc\n", 0},
		{"the user typed elsewhere", edited, "A\nb and more\nC\n", true, "a\nb and more\nc\n", 0},
		{"the user edited a changed line", edited, "A!\nb\nC\n", true, "A!\nb\nc\n", 1},
		{"created, unchanged", created, "new\n", true, "delete", 0},
		{"created, changed since", created, "new\nmore\n", true, "keep", 1},
		{"created, deleted since", created, "", false, "keep", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := PlanUndo(c.f, c.cur, c.exists)
			got := u.Next
			switch {
			case u.Delete:
				got = "delete"
			case !u.Delete && len(u.Changes) == 0:
				got = "keep"
			}
			if got != c.want || len(u.Conflicts) != c.conflct {
				t.Errorf("undo %q with %d conflicts %v; want %q, %d", got, len(u.Conflicts), u.Conflicts, c.want, c.conflct)
			}
		})
	}
}

func TestProposedLeavesOutEditedHunks(t *testing.T) {
	f := File{ReviewBase: "alpha\nmid\nomega\n", Proposed: "ALPHA\nmid\nOMEGA\n", Proposing: true}
	for cur, want := range map[string]string{
		"alpha\nmid\nomega\n":      "ALPHA\nmid\nOMEGA\n 2 0",
		"alpXa\nmid\nomega\n":      "alpXa\nmid\nOMEGA\n 1 1",
		"top\nalpha\nmid\nomega\n": "top\nalpha\nmid\nOMEGA\n 1 1",
	} {
		text, n, conflicts := Proposed(f, cur)
		if got := fmt.Sprintf("%s %d %d", text, n, conflicts); got != want {
			t.Errorf("over %q: %q, want %q", cur, got, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	base := "alpha\nmid\n"
	for _, c := range []struct {
		hunk File
		want string
	}{
		{File{ReviewBase: base, Proposed: "ALPHA\nmid\n"}, `replace "alpha" with "ALPHA"`},
		{File{ReviewBase: base, Proposed: "mid\n"}, `delete "alpha"`},
		{File{ReviewBase: base, Proposed: base + "end\n"}, `insert "end"`},
	} {
		hs := Hunks(c.hunk, base)
		if len(hs) != 1 {
			t.Fatalf("%d hunks", len(hs))
		}
		if got := Describe(hs[0].Change, base); got != c.want {
			t.Errorf("Describe = %s, want %s", got, c.want)
		}
	}
}

// A worktree task's whole change, merged over the user's text: hunks the
// user did not edit over land, the user's own edits stay, and a hunk over
// the user's edit is a conflict left proposed, never applied.
func TestPlanMerge(t *testing.T) {
	var l Log
	l.ProposeWhole("f", "alpha\nmid\nx\nomega\n", true, "ALPHA\nmid\nx\nOMEGA\n")
	f, _ := l.File("f")
	if !f.Pending() {
		t.Fatal("the whole change is not pending")
	}
	for _, c := range []struct {
		name, cur, next string
		ok              bool
		conflicts       int
	}{
		{"clean", "alpha\nmid\nx\nomega\n", "ALPHA\nmid\nx\nOMEGA\n", true, 0},
		{"the user's line two apart stays", "alpha\nmid\nX!\nomega\n", "ALPHA\nmid\nX!\nomega\n", true, 1},
		{"a user's line adjacent to both", "alpha\nMID!\nX!\nomega\n", "", false, 2},
		{"one hunk over the user's edit", "alpXa\nmid\nx\nomega\n", "alpXa\nmid\nx\nOMEGA\n", true, 1},
		{"same line, other characters", "alpha // note\nmid\nx\nomega\n", "alpha // note\nmid\nx\nOMEGA\n", true, 1},
		{"both over the user's edits", "alpXa\nmid\nx\nomegX\n", "", false, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, ok, conflicts := PlanMerge(f, c.cur, true)
			if ok != c.ok || len(conflicts) != c.conflicts || ok && a.Next != c.next {
				t.Errorf("PlanMerge = %q, %v, %d conflicts; want %q, %v, %d", a.Next, ok, len(conflicts), c.next, c.ok, c.conflicts)
			}
		})
	}
}

// Issue 31: task A appended a comment to a line, task B rewrote the
// expression on it. Merged one after the other, B's change is a conflict
// that shows both lines, never a line neither task wrote.
func TestMergeSameLineIsAConflict(t *testing.T) {
	base := "func add(a, b int) int {\n\treturn a + b\n}\n"
	afterA := "func add(a, b int) int {\n\treturn a + b // A: sum\n}\n"
	f := File{Rel: "calc.go", ReviewBase: base, ReviewExisted: true, Proposed: "func add(a, b int) int {\n\treturn b + a\n}\n", Proposing: true}
	a, ok, conflicts := PlanMerge(f, afterA, true)
	if ok || len(conflicts) == 0 {
		t.Fatalf("merging B over A: %q, ok %v, %d conflicts; want a conflict and nothing applied", a.Next, ok, len(conflicts))
	}
	yours, task, line, ok := Sides(f, afterA, conflicts[0])
	if !ok || yours != "\treturn a + b // A: sum\n" || task != "\treturn b + a\n" || line != 2 {
		t.Errorf("Sides = %q, %q, line %d, %v", yours, task, line, ok)
	}
}

// A file the task's command deleted is made again with its text and mode
// unless someone made it since; one the task made and then deleted is
// left alone. PlanRewind does the same for a file the session left
// deleted.
func TestPlanUndoOfADeletion(t *testing.T) {
	var c Log
	c.RecordDeleted("gone", "was here\x00\xff", 0o751)
	gone, _ := c.File("gone")
	if !gone.Gone || !gone.Applied || gone.Mode != 0o751 || len(c.Changed()) != 1 {
		t.Fatalf("recorded %+v; changed %v", gone, c.Changed())
	}
	if u := PlanUndo(gone, "", false); !u.Restore || u.Next != "was here\x00\xff" || u.Mode != 0o751 || len(u.Conflicts) != 0 {
		t.Errorf("undo of a deletion: %+v", u)
	}
	if u := PlanUndo(gone, "made again\n", true); u.Restore || len(u.Conflicts) != 1 {
		t.Errorf("undo of a deletion made again since: %+v", u)
	}
	c.RecordApplied("tmp", "", false, "scratch\n")
	c.RecordDeleted("tmp", "scratch\n", 0o644)
	tmp, _ := c.File("tmp")
	if u := PlanUndo(tmp, "", false); u.Restore || u.Delete || len(u.Conflicts) != 0 {
		t.Errorf("undo of a file made and deleted by the task: %+v", u)
	}
	if len(c.Changed()) != 1 {
		t.Errorf("a file made and deleted by the task counts as changed: %v", c.Changed())
	}
	if u := PlanRewind("gone", false, "", true, "at the step\n", "", false); !u.Restore || u.Next != "at the step\n" {
		t.Errorf("rewind of a deletion: %+v", u)
	}
	if u := PlanRewind("gone", false, "", true, "at the step\n", "mine\n", true); u.Restore || len(u.Conflicts) != 1 {
		t.Errorf("rewind of a deletion made again since: %+v", u)
	}
}
