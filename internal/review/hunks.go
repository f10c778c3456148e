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
// the user has now. A hunk whose region the user edited since is marked
// as a conflict.
func Hunks(f File, current string) []Hunk {
	cs := edits.Diff(f.ReviewBase, f.Proposed)
	user := edits.Diff(f.ReviewBase, current)
	hs := make([]Hunk, 0, len(cs))
	for _, c := range cs {
		h := Hunk{ID: HunkID(c), Change: c, Cur: c}
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
