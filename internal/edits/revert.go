package edits

import "fmt"

// Conflict is a place where undoing a task would overwrite the user's work:
// a block of lines the task changed and the user edited since. Revert
// leaves such blocks as they are in the current text.
type Conflict struct {
	Start, End int // byte offsets in the current text
	Line       int // 1-based line of Start in the current text
	Reason     string
}

// Revert undoes a task that turned base into after, in current, which is
// after plus whatever the user has edited since. Every block of lines the
// task changed goes back to its base text, unless the user edited lines of
// that block (or inserted lines at the very place the task deleted some):
// those blocks are left alone and reported as conflicts, unless the user
// already put the block back as it was. User edits outside the task's
// blocks are kept. With current == after, the result is base.
func Revert(base, after, current string) (result string, conflicts []Conflict) {
	cs, conflicts := RevertChanges(base, after, current)
	return ApplyChanges(current, cs), conflicts
}

// RevertChanges is Revert as changes against current, so the server can
// send the editor minimal edits instead of the whole document.
func RevertChanges(base, after, current string) ([]Change, []Conflict) {
	if base == after {
		return nil, nil
	}
	ab, bb, cb := lineBounds(after), lineBounds(base), lineBounds(current)
	// The task's inverse, as blocks of after's lines to turn back into base.
	undo, ok := lineHunks(after, base, ab, bb)
	if !ok {
		undo = []hunk{{0, len(ab) - 1, 0, len(bb) - 1}}
	}
	// The user's edits since, as blocks of after's lines.
	var user []hunk
	if after != current {
		if user, ok = lineHunks(after, current, ab, cb); !ok {
			user = []hunk{{0, len(ab) - 1, 0, len(cb) - 1}}
		}
	}

	var cs []Change
	var conflicts []Conflict
	k := 0     // first user block not yet known to lie before the task block
	delta := 0 // current line number minus after line number before user[k]
	for _, t := range undo {
		for k < len(user) && user[k].a1 <= t.a0 && !clash(t, user[k]) {
			delta += (user[k].b1 - user[k].b0) - (user[k].a1 - user[k].a0)
			k++
		}
		j := k
		for j < len(user) && clash(t, user[j]) {
			j++
		}
		if j == k+1 && user[k].a0 == t.a0 && user[k].a1 == t.a1 &&
			current[cb[user[k].b0]:cb[user[k].b1]] == base[bb[t.b0]:bb[t.b1]] {
			continue // the user already undid this block by hand
		}
		if j > k {
			conflicts = append(conflicts, conflictAt(current, cb, t, user[k:j], delta))
			continue
		}
		c0, c1 := t.a0+delta, t.a1+delta
		from, to := after[ab[t.a0]:ab[t.a1]], base[bb[t.b0]:bb[t.b1]]
		if current[cb[c0]:cb[c1]] != from {
			// Cannot happen when both diffs are right; refuse to guess.
			conflicts = append(conflicts, Conflict{Start: cb[c0], End: cb[c1], Line: c0 + 1,
				Reason: "the text the task wrote here could not be found unchanged; not reverted"})
			continue
		}
		cs = refine(cs, from, to, cb[c0])
	}
	return crlfSafe(current, cs), conflicts
}

// clash reports whether user block u touches lines of task block t, or
// inserts at the very place where t is an insertion (where both texts
// would go is then a guess).
func clash(t, u hunk) bool {
	if t.a0 < u.a1 && u.a0 < t.a1 {
		return true
	}
	return t.a0 == t.a1 && u.a0 == u.a1 && t.a0 == u.a0
}

// conflictAt describes task block t, which clashes with the user blocks us;
// delta maps after's line numbers before us[0] to current's.
func conflictAt(current string, cb []int, t hunk, us []hunk, delta int) Conflict {
	first, last := us[0], us[len(us)-1]
	start := t.a0 + delta
	if first.a0 <= t.a0 {
		start = first.b0
	}
	end := last.b1
	if last.a1 < t.a1 {
		for _, u := range us {
			delta += (u.b1 - u.b0) - (u.a1 - u.a0)
		}
		end = t.a1 + delta
	}
	lines := fmt.Sprintf("line %d was", start+1)
	if end-start > 1 {
		lines = fmt.Sprintf("lines %d-%d were", start+1, end)
	}
	return Conflict{
		Start:  cb[start],
		End:    cb[end],
		Line:   start + 1,
		Reason: lines + " edited after the task changed them; the task's change there was not reverted",
	}
}
