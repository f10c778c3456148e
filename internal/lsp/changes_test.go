package lsp

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
	var c changeLog
	base := "alpha\nmid\nomega\n"
	if err := c.propose("f", base, true, upper("alpha")); err != nil {
		t.Fatal(err)
	}
	if err := c.propose("f", "ignored: the second edit builds on the proposal", true, upper("omega")); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.proposal("f"); p != "ALPHA\nmid\nOMEGA\n" {
		t.Fatalf("proposal %q", p)
	}
	fc := c.pendingFiles()[0]
	hs := hunksOf(fc, base)
	if len(hs) != 2 {
		t.Fatalf("%d hunks", len(hs))
	}
	if c.commitAccept("f", fc.gen-1, nil, base, true, base) {
		t.Error("a commit planned against an older proposal was accepted")
	}
	first := hs[0]
	next := base[:first.cur.Start] + first.change.NewText + base[first.cur.End:]
	if !c.commitAccept("f", fc.gen, []edits.Change{first.change}, base, true, next) {
		t.Fatal("commit refused")
	}
	fc = c.pendingFiles()[0]
	if fc.reviewBase != "ALPHA\nmid\nomega\n" || !c.hasApplied() {
		t.Errorf("after accept: base %q applied %v", fc.reviewBase, c.hasApplied())
	}
	left := hunksOf(fc, next)
	if len(left) != 1 || left[0].id != fmt.Sprintf("%d-%d", 10, 15) {
		t.Fatalf("left %+v", left)
	}
	if n := c.reject("f", left[0].id); n != 1 || len(c.pendingFiles()) != 0 {
		t.Errorf("reject took %d, pending %d", n, len(c.pendingFiles()))
	}
	c.forget()
	if c.hasApplied() || !c.isForgotten() || len(c.sessionChanges()) != 0 {
		t.Error("a forgotten log still holds changes")
	}
}
