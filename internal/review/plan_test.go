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
		{"over the user's line above", "new\n" + f.ReviewBase, "", true, nil, "new\nALPHA\nmid\nOMEGA\n", 2},
		{"the user's edit is kept", "alpha\nMID!\nomega\n", "", true, nil, "ALPHA\nMID!\nOMEGA\n", 2},
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
		"top\nalpha\nmid\nomega\n": "top\nALPHA\nmid\nOMEGA\n 2 0",
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
	l.ProposeWhole("f", "alpha\nmid\nomega\n", true, "ALPHA\nmid\nOMEGA\n")
	f, _ := l.File("f")
	if !f.Pending() {
		t.Fatal("the whole change is not pending")
	}
	for _, c := range []struct {
		name, cur, next string
		ok              bool
		conflicts       int
	}{
		{"clean", "alpha\nmid\nomega\n", "ALPHA\nmid\nOMEGA\n", true, 0},
		{"the user's line stays", "alpha\nMID!\nomega\n", "ALPHA\nMID!\nOMEGA\n", true, 0},
		{"one hunk over the user's edit", "alpXa\nmid\nomega\n", "alpXa\nmid\nOMEGA\n", true, 1},
		{"both over the user's edits", "alpXa\nmid\nomegX\n", "", false, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, ok, conflicts := PlanMerge(f, c.cur, true)
			if ok != c.ok || len(conflicts) != c.conflicts || ok && a.Next != c.next {
				t.Errorf("PlanMerge = %q, %v, %d conflicts; want %q, %v, %d", a.Next, ok, len(conflicts), c.next, c.ok, c.conflicts)
			}
		})
	}
}
