package review

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/edits"
)

func upper(old string) func([]byte, bool) ([]byte, error) {
	return func(b []byte, _ bool) ([]byte, error) {
		return []byte(strings.Replace(string(b), old, strings.ToUpper(old), 1)), nil
	}
}

// Proposals build on each other; accepting one hunk moves the review base
// past it, rejecting one takes it out, and a commit planned against an
// older proposal is refused.
func TestProposalMapping(t *testing.T) {
	var c Log
	base := "alpha\nmid\nomega\n"
	if err := c.Propose("f", base, true, upper("alpha")); err != nil {
		t.Fatal(err)
	}
	if err := c.Propose("f", "ignored: the second edit builds on the proposal", true, upper("omega")); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Proposal("f"); p != "ALPHA\nmid\nOMEGA\n" {
		t.Fatalf("proposal %q", p)
	}
	fc := c.Pending()[0]
	hs := Hunks(fc, base)
	if len(hs) != 2 {
		t.Fatalf("%d hunks", len(hs))
	}
	if c.CommitAccept("f", fc.Gen-1, nil, base, true, base) {
		t.Error("a commit planned against an older proposal was accepted")
	}
	first := hs[0]
	next := base[:first.Cur.Start] + first.Change.NewText + base[first.Cur.End:]
	if !c.CommitAccept("f", fc.Gen, []edits.Change{first.Change}, base, true, next) {
		t.Fatal("commit refused")
	}
	fc = c.Pending()[0]
	if fc.ReviewBase != "ALPHA\nmid\nomega\n" || !c.HasApplied() {
		t.Errorf("after accept: base %q applied %v", fc.ReviewBase, c.HasApplied())
	}
	left := Hunks(fc, next)
	if len(left) != 1 || left[0].ID != fmt.Sprintf("%d-%d", 10, 15) {
		t.Fatalf("left %+v", left)
	}
	if n := c.Reject("f", left[0].ID); n != 1 || len(c.Pending()) != 0 {
		t.Errorf("reject took %d, pending %d", n, len(c.Pending()))
	}
	c.Forget()
	if c.HasApplied() || !c.Forgotten() || len(c.Applied()) != 0 {
		t.Error("a forgotten log still holds changes")
	}
}
