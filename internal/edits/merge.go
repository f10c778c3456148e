package edits

import (
	"sort"
	"strings"
)

// Block is a run of changed lines: lines [A0, A1) of the first text became
// lines [B0, B1) of the second (0-based). Blocks are sorted and separated
// by at least one unchanged line.
type Block struct{ A0, A1, B0, B1 int }

// LineBlocks diffs a and b line by line. A diff go-diff cannot make
// (above about a million distinct lines) is one block of everything.
func LineBlocks(a, b string) []Block {
	if a == b {
		return nil
	}
	ab, bb := lineBounds(a), lineBounds(b)
	hs, ok := lineHunks(a, b, ab, bb)
	if !ok {
		hs = []hunk{{0, len(ab) - 1, 0, len(bb) - 1}}
	}
	out := make([]Block, len(hs))
	for i, h := range hs {
		out[i] = Block{h.a0, h.a1, h.b0, h.b1}
	}
	return out
}

// Touch reports whether two blocks of changes to the same base conflict
// in a line merge: they overlap, or one ends on the line where the other
// begins (adjacent lines), as git merge-file judges it. Blocks with a
// line of the base between them do not touch.
func (x Block) Touch(y Block) bool { return x.A0 <= y.A1 && y.A0 <= x.A1 }

// MergeConflict is a region both sides changed differently.
type MergeConflict struct {
	// Line is the 1-based line of the merged text where the region starts;
	// Lines how many lines of the merged text it spans.
	Line, Lines int
	// BaseLine is the 1-based line of the base where the region starts.
	BaseLine int
	// The region's text in the base and in each side.
	Base, Ours, Theirs string
}

// Merged is the result of a three-way merge.
type Merged struct {
	// Text is the merge; a conflicting region holds ours, or the conflict
	// markers when they were asked for.
	Text      string
	Conflicts []MergeConflict
}

// Merge3 merges ours and theirs, two texts made from base, line by line
// with git merge-file's rules: changes of one side apply where the other
// side left the lines alone; changes of both sides to the same or to
// adjacent lines conflict, unless they are the same change. A conflicting
// region keeps ours in Text, and is reported with both sides: never a
// combination neither side wrote.
func Merge3(base, ours, theirs string) Merged {
	return merge3(base, ours, theirs, nil)
}

// Markers are the labels of the conflict markers Merge3Markers writes.
type Markers struct{ Ours, Theirs string }

// Merge3Markers is Merge3 that writes each conflict into Text between
// git's conflict markers (<<<<<<< ours, =======, >>>>>>> theirs).
func Merge3Markers(base, ours, theirs string, m Markers) Merged {
	return merge3(base, ours, theirs, &m)
}

func merge3(base, ours, theirs string, markers *Markers) Merged {
	bb, ob, tb := lineBounds(base), lineBounds(ours), lineBounds(theirs)
	type side struct {
		b      Block
		theirs bool
	}
	var all []side
	for _, b := range LineBlocks(base, ours) {
		all = append(all, side{b, false})
	}
	for _, b := range LineBlocks(base, theirs) {
		all = append(all, side{b, true})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].b.A0 < all[j].b.A0 })

	var out strings.Builder
	var res Merged
	line := 0 // lines written to out
	pos := 0  // base lines copied so far
	emit := func(s string) {
		out.WriteString(s)
		line += strings.Count(s, "\n")
	}
	for i := 0; i < len(all); {
		// A group: blocks that touch one another, from either side.
		g0, g1 := all[i].b.A0, all[i].b.A1
		var first, last [2]*Block
		j := i
		for ; j < len(all) && (j == i || all[j].b.A0 <= g1); j++ {
			b := &all[j].b
			k := 0
			if all[j].theirs {
				k = 1
			}
			if first[k] == nil {
				first[k] = b
			}
			last[k] = b
			g1 = max(g1, b.A1)
			g0 = min(g0, b.A0)
		}
		i = j
		emit(base[bb[pos]:bb[g0]])
		pos = g1
		// Each side's text for base lines [g0, g1): outside its own blocks
		// a side has the base's lines.
		text := func(k int, s string, sb []int) (string, bool) {
			if first[k] == nil {
				return base[bb[g0]:bb[g1]], false
			}
			s0 := g0 + first[k].B0 - first[k].A0
			s1 := g1 + last[k].B1 - last[k].A1
			return s[sb[s0]:sb[s1]], true
		}
		o, oc := text(0, ours, ob)
		t, tc := text(1, theirs, tb)
		switch {
		case !tc || o == t:
			emit(o)
		case !oc:
			emit(t)
		default:
			c := MergeConflict{Line: line + 1, BaseLine: g0 + 1, Base: base[bb[g0]:bb[g1]], Ours: o, Theirs: t}
			if markers != nil {
				start := line
				emit("<<<<<<< " + markers.Ours + "\n")
				emit(withNewline(o))
				emit("=======\n")
				emit(withNewline(t))
				emit(">>>>>>> " + markers.Theirs + "\n")
				c.Lines = line - start
			} else {
				emit(o)
				c.Lines = strings.Count(o, "\n")
			}
			res.Conflicts = append(res.Conflicts, c)
		}
	}
	emit(base[bb[pos]:])
	res.Text = out.String()
	return res
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
