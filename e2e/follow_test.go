package e2e

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// Proposals follow the text: after the user types above them, they are
// published again at their new lines, and a cursor anywhere on a moved
// proposal's line finds Accept/Reject as quick fixes.
func TestProposalsFollowTheText(t *testing.T) {
	s, _ := proposeTwoHunks(t, nil)
	u := s.URI("f.txt")
	if err := s.Type(s.ctx, "f.txt", 0, 0, "a new first line\n"); err != nil {
		t.Fatal(err)
	}
	atLines := func(want ...uint32) func() bool {
		return func() bool {
			ds, _ := s.diagsFor(u)
			if len(ds) != len(want) {
				return false
			}
			for i, d := range ds {
				if d.Range.Start.Line != want[i] {
					return false
				}
			}
			return true
		}
	}
	if !s.WaitFor(testWait, atLines(1, 7)) {
		ds, _ := s.diagsFor(u)
		t.Fatalf("proposals not re-published at lines 2 and 8: %+v", ds)
	}
	// The cursor at the start of the moved "omega" line, outside the
	// diagnostic's old range.
	at := protocol.Position{Line: 7, Character: 0}
	acts := codeActions(t, s, u, protocol.Range{Start: at, End: at}, nil)
	acc := acts["Accept this change"]
	if acc == nil || acc.Kind == nil || *acc.Kind != protocol.CodeActionKindQuickFix {
		t.Fatalf("no Accept quick fix at the moved line: %v", keys(acts))
	}
	if rej := acts["Reject this change"]; rej == nil || rej.Kind == nil || *rej.Kind != protocol.CodeActionKindQuickFix {
		t.Fatalf("no Reject quick fix at the moved line")
	}
	execute(t, s, acc)
	want := "a new first line\n" + strings.Replace(fText, "omega", "OMEGA", 1)
	if got, _ := s.Text("f.txt"); got != want {
		t.Fatalf("buffer %q, want %q", got, want)
	}
	// The other proposal, published again after the accept, where it is.
	if !s.WaitFor(testWait, atLines(1)) {
		ds, _ := s.diagsFor(u)
		t.Fatalf("after accept: %+v", ds)
	}
	// Anywhere on its line, even past the diagnostic's end.
	end := protocol.Position{Line: 1, Character: 5}
	if acts := codeActions(t, s, u, protocol.Range{Start: end, End: end}, nil); acts["Reject this change"] == nil {
		t.Fatalf("no Reject at the end of the line: %v", keys(acts))
	}
}
