package review

import (
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/textcut"
)

// Hunk is one proposed change of a file, placed in the current text.
type Hunk struct {
	ID       string       // "start-end" in the review base: stable until the base moves
	Change   edits.Change // against the review base
	Cur      edits.Change // the same change against the current text
	Conflict bool         // the user edited this region since
}

// Hunks returns the file's proposed hunks mapped onto current, the text
// the user has now. A hunk is a conflict when the user changed the same or
// an adjacent line since (git merge-file's rule, edits.Block.Touch): two
// edits of one line are never combined into a line neither side wrote.
func Hunks(f File, current string) []Hunk {
	cs := edits.Diff(f.ReviewBase, f.Proposed)
	user := edits.Diff(f.ReviewBase, current)
	var mine, theirs []edits.Block
	if len(cs) > 0 && len(user) > 0 {
		mine, theirs = edits.LineBlocks(f.ReviewBase, f.Proposed), edits.LineBlocks(f.ReviewBase, current)
	}
	starts := lineStarts(f.ReviewBase)
	hs := make([]Hunk, 0, len(cs))
	for _, c := range cs {
		h := Hunk{ID: HunkID(c), Change: c, Cur: c}
		if b, ok := blockOf(mine, starts, c); ok {
			for _, u := range theirs {
				if b.Touch(u) {
					h.Conflict = true
				}
			}
		}
		shift := 0
		for _, u := range user {
			switch {
			// A user change that ends where a replacement begins (typing
			// above it, even a pure insertion) is before it.
			case u.End < c.Start || (u.End == c.Start && c.Start < c.End):
				shift += len(u.NewText) - (u.End - u.Start)
			case u.Start > c.End || (u.Start == c.End && c.Start < c.End):
			default:
				h.Conflict = true
			}
		}
		h.Cur.Start, h.Cur.End = c.Start+shift, c.End+shift
		if h.Cur.End > len(current) || h.Cur.Start < 0 {
			h.Conflict = true
		}
		hs = append(hs, h)
	}
	return hs
}

// lineStarts are the offsets where the lines of s start, and len(s).
func lineStarts(s string) []int {
	out := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, i+1)
		}
	}
	if out[len(out)-1] != len(s) {
		out = append(out, len(s))
	}
	return out
}

// blockOf finds the block of changed lines that holds the character
// change c (both diffs of the same two texts).
func blockOf(bs []edits.Block, starts []int, c edits.Change) (edits.Block, bool) {
	at := func(line int) int { return starts[min(line, len(starts)-1)] }
	for _, b := range bs {
		if at(b.A0) <= c.Start && c.End <= at(b.A1) {
			return b, true
		}
	}
	return edits.Block{}, false
}

// HunkID names a change of the review base.
func HunkID(c edits.Change) string { return fmt.Sprintf("%d-%d", c.Start, c.End) }

// Describe says in a line what a hunk does to base.
func Describe(c edits.Change, base string) string {
	old := base[c.Start:c.End]
	first := func(s string) string {
		s = strings.TrimSpace(s)
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i] + " …"
		}
		if len(s) > 80 {
			s = textcut.Head(s, 80) + "…"
		}
		return s
	}
	switch {
	case c.NewText == "":
		return fmt.Sprintf("delete %q", first(old))
	case old == "":
		return fmt.Sprintf("insert %q", first(c.NewText))
	default:
		return fmt.Sprintf("replace %q with %q", first(old), first(c.NewText))
	}
}

// Proposed is the text the file's proposal makes of current, leaving out
// the hunks the user edited over since (accepting them is refused
// anyway), with how many hunks it applies and leaves out.
func Proposed(f File, current string) (text string, hunks, conflicts int) {
	var cs []edits.Change
	for _, h := range Hunks(f, current) {
		if h.Conflict {
			conflicts++
			continue
		}
		c := h.Cur
		c.NewText = h.Change.NewText
		cs = append(cs, c)
		hunks++
	}
	return edits.ApplyChanges(current, cs), hunks, conflicts
}

// Sides returns, for a hunk that is a conflict, the region as the user has
// it now and as the task proposed it (whole lines, both sides of the
// three-way line merge of the review base, current and the proposal), so a
// conflict shows both and combines neither. ok is false when the hunk is
// no conflict of that merge.
func Sides(f File, current string, h Hunk) (yours, task string, line int, ok bool) {
	at := strings.Count(f.ReviewBase[:h.Change.Start], "\n") + 1
	for _, c := range edits.Merge3(f.ReviewBase, current, f.Proposed).Conflicts {
		n := max(strings.Count(c.Base, "\n"), 1)
		if c.BaseLine <= at && at <= c.BaseLine+n {
			return c.Ours, c.Theirs, c.Line, true
		}
	}
	return "", "", 0, false
}
