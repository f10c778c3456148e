package edits

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
	"go.lsp.dev/protocol"
)

// Change replaces the bytes [Start, End) of an old text with NewText.
// A list of changes is sorted by Start and non-overlapping; changes may
// touch, and several insertions at one offset apply in list order.
type Change struct {
	Start, End int
	NewText    string
}

// String renders c as [Start,End)"NewText" for logs and test failures.
func (c Change) String() string { return fmt.Sprintf("[%d,%d)%q", c.Start, c.End, c.NewText) }

const (
	// lineTimeout bounds the line diff. When it fires go-diff returns a
	// coarser but still correct diff, so the limit only costs edit size.
	lineTimeout = 2 * time.Second
	// refineLimit is the largest hunk (old plus new bytes) diffed by
	// characters; the character diff is quadratic in the worst case, and a
	// hunk this big is a rewrite that one replacement describes as well.
	refineLimit = 32 << 10
	// refineTimeout bounds one hunk's character diff, as lineTimeout does.
	refineTimeout = 100 * time.Millisecond
)

// Diff returns the changes that turn old into new: a line diff first (fast
// on big files), then each changed block of lines diffed by characters so
// that renaming one word yields one small change rather than a whole line.
//
// The character pass runs on runes, so it only runs on blocks that are
// valid UTF-8; other blocks are narrowed by their common prefix and suffix
// only. Callers should still refuse such files with CheckText: an editor
// shows invalid bytes as U+FFFD and its positions may not match ours.
//
// No change boundary falls between a '\r' and its '\n'. If go-diff cannot
// diff the texts (above about a million distinct lines it panics), Diff
// returns a single change covering everything between the common prefix and
// suffix.
func Diff(old, new string) []Change {
	if old == new {
		return nil
	}
	ob, nb := lineBounds(old), lineBounds(new)
	hunks, ok := lineHunks(old, new, ob, nb)
	if !ok {
		return crlfSafe(old, []Change{trimmed(old, new, 0)})
	}
	var cs []Change
	for _, h := range hunks {
		cs = refine(cs, old[ob[h.a0]:ob[h.a1]], new[nb[h.b0]:nb[h.b1]], ob[h.a0])
	}
	return crlfSafe(old, cs)
}

// hunk is a block of changed lines: lines [a0, a1) of the first text became
// lines [b0, b1) of the second. Hunks are sorted and separated by at least
// one unchanged line.
type hunk struct{ a0, a1, b0, b1 int }

// lineBounds splits s the way go-diff's line mode does: every line keeps its
// '\n' and a last line without one still counts. bounds[i] is where line i
// starts and bounds[len(bounds)-1] == len(s).
func lineBounds(s string) []int {
	bounds := make([]int, 1, strings.Count(s, "\n")+2)
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			i = len(s)
		} else {
			i += j + 1
		}
		bounds = append(bounds, i)
	}
	return bounds
}

// lineHunks diffs a and b line by line. It returns ok == false when go-diff
// panics (it cannot number more than about 1.1M distinct lines) or its
// result does not account for every line.
func lineHunks(a, b string, ab, bb []int) (hunks []hunk, ok bool) {
	defer func() {
		if recover() != nil {
			hunks, ok = nil, false
		}
	}()
	// Agents edit a few places in big files: cutting the unchanged lines at
	// both ends with a memory compare spares go-diff hashing every line.
	pre, suf := commonLines(a, b, ab, bb)
	na, nb := len(ab)-1-suf, len(bb)-1-suf
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = lineTimeout
	ra, rb, _ := dmp.DiffLinesToRunes(a[ab[pre]:ab[na]], b[bb[pre]:bb[nb]])
	// Each rune of a diff stands for one line: counting runes gives line
	// numbers without rebuilding the text (DiffCharsToLines).
	i, j := pre, pre
	open := false
	var cur hunk
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		n := utf8.RuneCountInString(d.Text)
		if d.Type == diffmatchpatch.DiffEqual {
			if open {
				cur.a1, cur.b1 = i, j
				hunks = append(hunks, cur)
				open = false
			}
			i += n
			j += n
			continue
		}
		if !open {
			cur = hunk{a0: i, b0: j}
			open = true
		}
		if d.Type == diffmatchpatch.DiffDelete {
			i += n
		} else {
			j += n
		}
	}
	if open {
		cur.a1, cur.b1 = i, j
		hunks = append(hunks, cur)
	}
	return hunks, i == na && j == nb
}

// commonLines counts the whole lines a and b share at their start (pre) and,
// in what remains, at their end (suf). ab and bb are their lineBounds.
func commonLines(a, b string, ab, bb []int) (pre, suf int) {
	n := commonPrefixLen(a, b)
	// Line i is shared if it ends by n with its '\n' (a last line without
	// one could continue differently in the other text).
	pre = sort.Search(len(ab)-1, func(i int) bool { return ab[i+1] > n })
	if pre > 0 && a[ab[pre]-1] != '\n' {
		pre--
	}
	la, lb := len(ab)-1, len(bb)-1
	m := commonSuffixLen(a[ab[pre]:], b[bb[pre]:])
	for suf < la-pre && suf < lb-pre {
		s := ab[la-1-suf] // start of the next line from the end of a
		k := len(b) - (len(a) - s)
		if len(a)-s > m || bb[lb-1-suf] != k {
			break
		}
		suf++
	}
	return pre, suf
}

const cmpBlock = 256

func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	// Compare in blocks first: string equality is a vectorised memequal.
	for i+cmpBlock <= n && a[i:i+cmpBlock] == b[i:i+cmpBlock] {
		i += cmpBlock
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffixLen(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+cmpBlock <= n && a[len(a)-i-cmpBlock:len(a)-i] == b[len(b)-i-cmpBlock:len(b)-i] {
		i += cmpBlock
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// refine appends the changes turning the block a (at offset off of the old
// text) into b.
func refine(cs []Change, a, b string, off int) []Change {
	if a == "" || b == "" || len(a)+len(b) > refineLimit || !utf8.ValidString(a) || !utf8.ValidString(b) {
		return append(cs, trimmed(a, b, off))
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = refineTimeout
	// go-diff's semantic cleanups index strings by rune counts and corrupt
	// non-ASCII text, so merging small fragments is done here instead.
	diffs := dmp.DiffMain(a, b, false)
	first := len(cs)
	pos := off
	open := false
	var cur Change
	for _, d := range diffs {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			if open {
				cs = appendMerged(cs, first, a, off, cur)
				open = false
			}
			pos += len(d.Text)
			continue
		}
		if !open {
			cur = Change{Start: pos, End: pos}
			open = true
		}
		if d.Type == diffmatchpatch.DiffDelete {
			pos += len(d.Text)
			cur.End = pos
		} else {
			cur.NewText += d.Text
		}
	}
	if open {
		cs = appendMerged(cs, first, a, off, cur)
	}
	return cs
}

// appendMerged appends c, first absorbing it into the previous change of
// this block when the unchanged text between them is no longer than either
// change: "h<e>l<l>o" reads better as one replaced word than as scattered
// letters, and the editor applies fewer edits. a is the block's old text,
// starting at offset off.
func appendMerged(cs []Change, first int, a string, off int, c Change) []Change {
	if n := len(cs); n > first {
		prev := &cs[n-1]
		gap := c.Start - prev.End
		if gap <= changeSize(*prev) && gap <= changeSize(c) {
			prev.NewText += a[prev.End-off:c.Start-off] + c.NewText
			prev.End = c.End
			return cs
		}
	}
	return append(cs, c)
}

func changeSize(c Change) int { return max(c.End-c.Start, len(c.NewText)) }

// trimmed is the single change turning a (at offset off) into b, narrowed
// by their common prefix and suffix, cut on character boundaries.
func trimmed(a, b string, off int) Change {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	p = min(snapBack(a, p), snapBack(b, p))
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	// Move the suffix start forward onto a boundary in both texts.
	for s > 0 && (snapBack(a, len(a)-s) != len(a)-s || snapBack(b, len(b)-s) != len(b)-s) {
		s--
	}
	return Change{Start: off + p, End: off + len(a) - s, NewText: b[p : len(b)-s]}
}

// splitsCRLF reports whether off lies between a '\r' and the '\n' after it.
func splitsCRLF(s string, off int) bool {
	return off > 0 && off < len(s) && s[off-1] == '\r' && s[off] == '\n'
}

// crlfSafe widens changes so that none starts or ends between a '\r' and
// its '\n' (no LSP position is there) and merges the ones that then overlap
// or touch, replaying each merged group on the old text so the result is
// unchanged.
func crlfSafe(old string, cs []Change) []Change {
	if !slices.ContainsFunc(cs, func(c Change) bool { return splitsCRLF(old, c.Start) || splitsCRLF(old, c.End) }) {
		return cs
	}
	out := make([]Change, 0, len(cs))
	for i := 0; i < len(cs); {
		start, end := widen(old, cs[i])
		j := i + 1
		for ; j < len(cs); j++ {
			s, e := widen(old, cs[j])
			if s > end {
				break
			}
			end = max(end, e)
		}
		var b strings.Builder
		last := start
		for _, c := range cs[i:j] {
			b.WriteString(old[last:c.Start])
			b.WriteString(c.NewText)
			last = c.End
		}
		b.WriteString(old[last:end])
		out = append(out, Change{Start: start, End: end, NewText: b.String()})
		i = j
	}
	return out
}

func widen(old string, c Change) (start, end int) {
	start, end = c.Start, c.End
	if splitsCRLF(old, start) {
		start--
	}
	if splitsCRLF(old, end) {
		end++
	}
	return start, end
}

// ApplyChanges applies changes to old. The changes must be sorted,
// non-overlapping and within old, as Diff and RevertChanges return them;
// anything else is a programming error and panics.
func ApplyChanges(old string, cs []Change) string {
	size := len(old)
	for _, c := range cs {
		size += len(c.NewText) - (c.End - c.Start)
	}
	var b strings.Builder
	b.Grow(max(size, 0))
	last := 0
	for i, c := range cs {
		if c.Start < last || c.End < c.Start || c.End > len(old) {
			panic(fmt.Sprintf("edits.ApplyChanges: change %d [%d,%d) out of order or outside text of %d bytes", i, c.Start, c.End, len(old)))
		}
		b.WriteString(old[last:c.Start])
		b.WriteString(c.NewText)
		last = c.End
	}
	b.WriteString(old[last:])
	return b.String()
}

// TextEdits converts changes against old into LSP text edits. The result
// is never nil, so it encodes as [] rather than null.
func TextEdits(old string, cs []Change, enc Encoding) []protocol.TextEdit {
	cs = eofSafe(old, crlfSafe(old, cs))
	out := make([]protocol.TextEdit, len(cs))
	if len(cs) == 0 {
		return out
	}
	m := NewMapper(old)
	for i, c := range cs {
		out[i] = protocol.TextEdit{Range: m.OffsetsToRange(c.Start, c.End, enc), NewText: c.NewText}
	}
	return out
}

// eofSafe moves changes that reach the position after old's final newline
// (the line past the last, where Neovim adds an empty line to make the
// position valid: a stray blank line undo does not remove) to the end of
// the last line. An insertion there of "X\n" becomes "\nX" before the
// final newline; a replacement through the end keeps that newline and
// drops its own. The result is the same text in every editor.
func eofSafe(old string, cs []Change) []Change {
	n := len(old)
	// (A CRLF file's last line ends in "\r\n": no position lies between
	// the two, so such a file is left as it is.)
	if n == 0 || old[n-1] != '\n' || len(cs) == 0 || (n > 1 && old[n-2] == '\r') {
		return cs
	}
	last := cs[len(cs)-1]
	if last.End != n || !strings.HasSuffix(last.NewText, "\n") {
		return cs
	}
	out := append([]Change(nil), cs...)
	c := &out[len(out)-1]
	if c.Start == n {
		if len(out) > 1 && out[len(out)-2].End > n-1 {
			return cs // an earlier change reaches the final newline
		}
		c.Start, c.End, c.NewText = n-1, n-1, "\n"+strings.TrimSuffix(c.NewText, "\n")
		return out
	}
	c.End, c.NewText = n-1, strings.TrimSuffix(c.NewText, "\n")
	return out
}

// Compute returns the LSP text edits that turn old into new.
func Compute(old, new string, enc Encoding) []protocol.TextEdit {
	return TextEdits(old, Diff(old, new), enc)
}

// ErrOverlap reports text edits whose ranges overlap, which LSP forbids.
var ErrOverlap = errors.New("overlapping text edits")

// ApplyTextEdits applies LSP text edits to text. As in LSP, every range
// refers to the original text, and the edits may come in any order; edits
// starting at the same place apply shortest range first, then in the
// order given (so several insertions at one place keep their order).
func ApplyTextEdits(text string, edits []protocol.TextEdit, enc Encoding) (string, error) {
	type indexed struct {
		Change
		i int
	}
	m := NewMapper(text)
	cs := make([]indexed, len(edits))
	for i, e := range edits {
		start, end, err := m.RangeToOffsets(e.Range, enc)
		if err != nil {
			return "", fmt.Errorf("text edit %d: %w", i, err)
		}
		cs[i] = indexed{Change{Start: start, End: end, NewText: e.NewText}, i}
	}
	slices.SortStableFunc(cs, func(x, y indexed) int {
		return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End))
	})
	plain := make([]Change, len(cs))
	for k, c := range cs {
		if k > 0 && c.Start < cs[k-1].End {
			return "", fmt.Errorf("%w: edit %d and edit %d", ErrOverlap, cs[k-1].i, c.i)
		}
		plain[k] = c.Change
	}
	return ApplyChanges(text, plain), nil
}
