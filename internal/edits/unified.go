package edits

import (
	"fmt"
	"strings"
)

// DefaultContext is the number of context lines Unified uses when given a
// negative count, as diff -u and git do.
const DefaultContext = 3

// Unified returns a unified diff from old to new that git apply and patch
// accept, or "" when the texts are equal. pathA and pathB go into the ---
// and +++ headers verbatim: pass "a/"+name and "b/"+name for git apply's
// default -p1, and "/dev/null" on the side of a created or deleted file.
// A last line without '\n' is followed by "\ No newline at end of file".
// context < 0 means DefaultContext; with context 0, git apply needs
// --unidiff-zero.
// FileDiff is Unified for the file rel as git shows it: "a/"+rel and
// "b/"+rel, "/dev/null" on the side where it did not exist (existed
// false: created; deleted: removed).
func FileDiff(rel, old string, existed bool, new string, deleted bool, context int) string {
	a, b := "a/"+rel, "b/"+rel
	if !existed {
		a = "/dev/null"
	}
	if deleted {
		b = "/dev/null"
	}
	return Unified(a, b, old, new, context)
}

func Unified(pathA, pathB, old, new string, context int) string {
	if old == new {
		return ""
	}
	if context < 0 {
		context = DefaultContext
	}
	ob, nb := lineBounds(old), lineBounds(new)
	hunks, ok := lineHunks(old, new, ob, nb)
	if !ok {
		hunks = []hunk{{0, len(ob) - 1, 0, len(nb) - 1}}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", pathA, pathB)
	line := func(prefix byte, s string) {
		b.WriteByte(prefix)
		b.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
	nOld := len(ob) - 1
	for i := 0; i < len(hunks); {
		// Gather the hunks whose context would touch into one group.
		j := i + 1
		for j < len(hunks) && hunks[j].a0-hunks[j-1].a1 <= 2*context {
			j++
		}
		first, last := hunks[i], hunks[j-1]
		a0 := max(0, first.a0-context)
		a1 := min(nOld, last.a1+context)
		b0 := first.b0 - (first.a0 - a0)
		b1 := last.b1 + (a1 - last.a1)
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(a0, a1), hunkRange(b0, b1))
		at := a0
		for _, h := range hunks[i:j] {
			for ; at < h.a0; at++ {
				line(' ', old[ob[at]:ob[at+1]])
			}
			for k := h.a0; k < h.a1; k++ {
				line('-', old[ob[k]:ob[k+1]])
			}
			for k := h.b0; k < h.b1; k++ {
				line('+', new[nb[k]:nb[k+1]])
			}
			at = h.a1
		}
		for ; at < a1; at++ {
			line(' ', old[ob[at]:ob[at+1]])
		}
		i = j
	}
	return b.String()
}

// hunkRange formats lines [from, to) as a hunk header range: 1-based start,
// count omitted when 1, and for an empty range the line before it.
func hunkRange(from, to int) string {
	switch to - from {
	case 0:
		return fmt.Sprintf("%d,0", from)
	case 1:
		return fmt.Sprintf("%d", from+1)
	}
	return fmt.Sprintf("%d,%d", from+1, to-from)
}
