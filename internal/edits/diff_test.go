package edits

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

var encodings = []Encoding{UTF8, UTF16, UTF32}

func numbered(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	ten := numbered(10, "line %d of the file\n")
	for _, tc := range []struct {
		name     string
		old, new string
		want     []Change
	}{
		{"equal", "same\n", "same\n", nil},
		{"both empty", "", "", nil},
		{"one word", "foo bar baz\n", "foo qux baz\n", []Change{{4, 7, "qux"}}},
		{"renamed identifier", "count := 1\nreturn count\n", "total := 1\nreturn total\n",
			[]Change{{0, 5, "total"}, {18, 23, "total"}}},
		{"one word in a long file", ten, strings.Replace(ten, "line 5 of", "line five of", 1),
			[]Change{{5*19 + 5, 5*19 + 6, "five"}}},
		{"emoji", "x 😀 y\n", "x 😁 y\n", []Change{{2, 6, "😁"}}},
		{"emoji inserted", "ab\n", "a😀b\n", []Change{{1, 1, "😀"}}},
		{"CJK", "中文字\n", "中国字\n", []Change{{3, 6, "国"}}},
		{"CRLF line edited", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", []Change{{3, 4, "B"}}},
		{"CRLF to LF", "a\r\nb\r\n", "a\nb\n", []Change{{1, 3, "\n"}, {4, 6, "\n"}}},
		{"LF to CRLF", "a\nb\n", "a\r\nb\r\n", []Change{{1, 1, "\r"}, {3, 3, "\r"}}},
		{"insert inside CRLF", "a\r\nb", "a\rX\nb", []Change{{1, 3, "\rX\n"}}},
		{"no final newline: last line edited", "a\nb", "a\nc", []Change{{2, 3, "c"}}},
		{"no final newline: newline added", "a\nb", "a\nb\n", []Change{{3, 3, "\n"}}},
		{"final newline removed", "a\nb\n", "a\nb", []Change{{3, 4, ""}}},
		{"empty old", "", "x\ny", []Change{{0, 0, "x\ny"}}},
		{"delete all", "x\ny\n", "", []Change{{0, 4, ""}}},
		{"insert at end", "a\n", "a\nb\n", []Change{{2, 2, "b\n"}}},
		{"insert line in middle", "a\nb\n", "a\nx\nb\n", []Change{{2, 2, "x\n"}}},
		{"delete line in middle", "a\nx\nb\n", "a\nb\n", []Change{{2, 4, ""}}},
		{"invalid UTF-8 narrowed by bytes", "a\xff\n", "a\xfe\n", []Change{{1, 2, "\xfe"}}},
		{"invalid UTF-8 inside a character", "aé\xff\n", "aè\xff\n", []Change{{1, 3, "è"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Diff(tc.old, tc.new)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Diff(%q, %q) =\n  %v\nwant\n  %v", tc.old, tc.new, got, tc.want)
			}
			checkChanges(t, tc.old, tc.new, got)
		})
	}
}

// checkChanges checks what every change list must satisfy: sorted,
// non-overlapping, on character boundaries, never splitting CRLF, and
// turning old into new, also through TextEdits in every encoding.
func checkChanges(t *testing.T, old, new string, cs []Change) {
	t.Helper()
	last := 0
	for i, c := range cs {
		if c.Start < last || c.End < c.Start || c.End > len(old) {
			t.Fatalf("change %d %+v out of order or range (previous end %d, len %d)", i, c, last, len(old))
		}
		for _, off := range []int{c.Start, c.End} {
			if snapBack(old, off) != off || splitsCRLF(old, off) {
				t.Fatalf("change %d %+v: offset %d is not a position boundary in %q", i, c, off, old)
			}
		}
		last = c.End
	}
	if got := ApplyChanges(old, cs); got != new {
		t.Fatalf("ApplyChanges = %q, want %q", got, new)
	}
	for _, enc := range encodings {
		edits := TextEdits(old, cs, enc)
		if len(edits) != len(cs) {
			t.Errorf("%v: %d text edits for %d changes", enc, len(edits), len(cs))
		}
		got, err := ApplyTextEdits(old, edits, enc)
		if err != nil || got != new {
			t.Fatalf("%v: ApplyTextEdits = %q, %v; want %q", enc, got, err, new)
		}
	}
}

func TestComputeEncodings(t *testing.T) {
	old := "// 😀 中\r\nx := 1\r\n"
	new := "// 😀 中\r\nx := 2\r\n"
	want := map[Encoding]protocol.Range{
		UTF8:  {Start: pos(1, 5), End: pos(1, 6)},
		UTF16: {Start: pos(1, 5), End: pos(1, 6)},
		UTF32: {Start: pos(1, 5), End: pos(1, 6)},
	}
	for enc, r := range want {
		got := Compute(old, new, enc)
		if len(got) != 1 || got[0].Range != r || got[0].NewText != "2" {
			t.Errorf("%v: Compute = %+v, want one edit %v -> 2", enc, got, r)
		}
	}
	old = "😀中x\n"
	new = "😀中y\n"
	for enc, c := range map[Encoding]uint32{UTF8: 7, UTF16: 3, UTF32: 2} {
		got := Compute(old, new, enc)
		if len(got) != 1 || got[0].Range != (protocol.Range{Start: pos(0, c), End: pos(0, c+1)}) {
			t.Errorf("%v: Compute = %+v, want one edit at character %d", enc, got, c)
		}
	}
	if got := Compute("a", "a", UTF16); got == nil || len(got) != 0 {
		t.Errorf("Compute of equal texts = %#v, want an empty non-nil slice", got)
	}
}

func TestTextEditsWidenCRLF(t *testing.T) {
	old := "a\r\nb\r\n"
	// Changes as RevertChanges or a caller might build them, splitting
	// both CRLF pairs; the second touches the first once widened.
	cs := []Change{{2, 2, "X"}, {3, 3, "Y"}, {5, 5, "Z"}}
	want := ApplyChanges(old, cs)
	got := crlfSafe(old, cs)
	if !slices.Equal(got, []Change{{1, 3, "\rX\nY"}, {4, 6, "\rZ\n"}}) {
		t.Errorf("crlfSafe = %v", got)
	}
	checkChanges(t, old, want, got)
}

func TestApplyTextEdits(t *testing.T) {
	edit := func(l0, c0, l1, c1 uint32, text string) protocol.TextEdit {
		return protocol.TextEdit{Range: protocol.Range{Start: pos(l0, c0), End: pos(l1, c1)}, NewText: text}
	}
	text := "hello 😀 world\nsecond\n"
	for _, tc := range []struct {
		name    string
		edits   []protocol.TextEdit
		enc     Encoding
		want    string
		wantErr error
	}{
		{"none", nil, UTF16, text, nil},
		{"unordered", []protocol.TextEdit{edit(1, 0, 1, 6, "2nd"), edit(0, 0, 0, 5, "bye")}, UTF16,
			"bye 😀 world\n2nd\n", nil},
		{"after astral char in utf-16", []protocol.TextEdit{edit(0, 9, 0, 14, "earth")}, UTF16,
			"hello 😀 earth\nsecond\n", nil},
		{"after astral char in utf-32", []protocol.TextEdit{edit(0, 8, 0, 13, "earth")}, UTF32,
			"hello 😀 earth\nsecond\n", nil},
		{"after astral char in utf-8", []protocol.TextEdit{edit(0, 11, 0, 16, "earth")}, UTF8,
			"hello 😀 earth\nsecond\n", nil},
		{"inserts at one place keep their order", []protocol.TextEdit{edit(1, 0, 1, 0, "a"), edit(1, 0, 1, 0, "b")}, UTF16,
			"hello 😀 world\nabsecond\n", nil},
		{"insert before a replacement at the same place", []protocol.TextEdit{edit(1, 0, 1, 6, "X"), edit(1, 0, 1, 0, "a")}, UTF16,
			"hello 😀 world\naX\n", nil},
		{"touching replacements", []protocol.TextEdit{edit(1, 3, 1, 6, "B"), edit(1, 0, 1, 3, "A")}, UTF16,
			"hello 😀 world\nAB\n", nil},
		{"character past line end", []protocol.TextEdit{edit(1, 100, 1, 100, "!")}, UTF16,
			"hello 😀 world\nsecond!\n", nil},
		{"line past end", []protocol.TextEdit{edit(9, 0, 9, 0, "tail")}, UTF16,
			"hello 😀 world\nsecond\ntail", nil},
		{"delete everything", []protocol.TextEdit{edit(0, 0, 2, 0, "")}, UTF8, "", nil},
		{"overlap", []protocol.TextEdit{edit(0, 0, 0, 5, "x"), edit(0, 3, 0, 6, "y")}, UTF16, "", ErrOverlap},
		{"inside surrogate pair", []protocol.TextEdit{edit(0, 7, 0, 7, "x")}, UTF16, "", ErrInvalidPosition},
		{"reversed range", []protocol.TextEdit{edit(1, 3, 1, 1, "x")}, UTF16, "", ErrInvalidPosition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyTextEdits(text, tc.edits, tc.enc)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ApplyTextEdits = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestApplyChangesPanicsOnBadInput(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("overlapping changes did not panic")
		}
	}()
	ApplyChanges("abcdef", []Change{{0, 3, "x"}, {2, 4, "y"}})
}

func TestTrimmed(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want Change
	}{
		{"abc", "abc", Change{3, 3, ""}},
		{"abXcd", "abYcd", Change{2, 3, "Y"}},
		{"aé", "aè", Change{1, 3, "è"}},                // é and è share their first byte
		{"éz", "èz", Change{0, 2, "è"}},                // and the suffix z only
		{"x😀", "x😁", Change{1, 5, "😁"}},                // astral chars share three bytes
		{"aaa", "aa", Change{2, 3, ""}},                // prefix and suffix may not overlap
		{"\xe4\xb8", "\xe4\xb9", Change{1, 2, "\xb9"}}, // cut sequences are bytes
	} {
		if got := trimmed(tc.a, tc.b, 0); got != tc.want {
			t.Errorf("trimmed(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := ApplyChanges(tc.a, []Change{trimmed(tc.a, tc.b, 0)}); got != tc.b {
			t.Errorf("applying trimmed(%q, %q) gives %q", tc.a, tc.b, got)
		}
	}
}

func TestDiffTooManyLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1.2M distinct lines")
	}
	// go-diff numbers distinct lines with runes and panics past ~1.1M.
	// Every line differs except one in the middle: a line diff would give
	// two changes around it, the fallback gives one narrowed replacement.
	const n = 600_000
	var ob, nb strings.Builder
	for i := range n {
		fmt.Fprintf(&ob, "%d\n", i)
		if i == n/2 {
			fmt.Fprintf(&nb, "%d\n", i)
		} else {
			fmt.Fprintf(&nb, "%d'\n", i)
		}
	}
	old, new := ob.String(), nb.String()
	got := Diff(old, new)
	if len(got) != 1 || got[0].Start != 1 || got[0].End != len(old)-1 {
		t.Fatalf("Diff = %d changes, first %v; want one change from the first difference to the last", len(got), got[0].String()[:40])
	}
	if ApplyChanges(old, got) != new {
		t.Fatal("fallback change does not reproduce new")
	}
	// Unified and Revert fall back to one block of lines the same way.
	if u := Unified("a/f", "b/f", old, new, 3); !strings.HasPrefix(u, "--- a/f\n+++ b/f\n@@ -1,600000 +1,600000 @@\n-0\n") {
		t.Errorf("Unified starts %q, want one hunk over all lines", u[:60])
	}
	if back, conflicts := Revert(old, new, new); back != old || len(conflicts) != 0 {
		t.Errorf("Revert gave %d conflicts and %s the base", len(conflicts), map[bool]string{true: "", false: "not"}[back == old])
	}
}

func FuzzCompute(f *testing.F) {
	seeds := [][2]string{
		{"", ""},
		{"", "a\n"},
		{"a\n", ""},
		{"foo bar baz\n", "foo qux baz\n"},
		{"a\r\nb\r\nc", "a\nB\r\nc\r\n"},
		{"x 😀 y\n中文\n", "x 😁 y\n中国\n"},
		{"a\rb\r\n", "a\r\rb\n\r"},
		{"line1\nline2\nline3", "line1\nline2 changed\nline3\n"},
		{"\xff\xfe\n", "\xff\n\xfe"},
		{"é\xe4\xb8z", "è\xe4\xb8\xadz"},
		{numbered(30, "%d\n"), numbered(31, "%d\r\n")},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		cs := Diff(old, new)
		checkChanges(t, old, new, cs)
		for _, enc := range encodings {
			got, err := ApplyTextEdits(old, Compute(old, new, enc), enc)
			if err != nil || got != new {
				t.Fatalf("%v: applying Compute(%q, %q) = %q, %v", enc, old, new, got, err)
			}
		}
	})
}

// A change after the final newline is sent at the end of the last line:
// a position on the line past the last makes Neovim add an empty line
// (issue 25, item 7). The text the edits make is unchanged.
func TestTextEditsStayOffTheLinePastTheEnd(t *testing.T) {
	for _, tc := range []struct{ old, new string }{
		{"alpha\n", "alpha\nbeta\n"},
		{"alpha\nbeta\n", "alpha\nBETA\ngamma\n"},
		{"a\nb\nc\n", "a\nc\nd\ne\n"},
		{"x\n", "y\n"},
		{"a\r\nb\r\n", "a\r\nb\r\nc\r\n"},
	} {
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			old, new := tc.old, tc.new
			tes := Compute(old, new, enc)
			lines := uint32(strings.Count(old, "\n"))
			for _, e := range tes {
				if !strings.HasSuffix(old, "\r\n") && (e.Range.Start.Line >= lines || e.Range.End.Line >= lines) {
					t.Errorf("%q → %q: edit %+v reaches line %d, past the last line", old, new, e, lines)
				}
			}
			if got, err := ApplyTextEdits(old, tes, enc); err != nil || got != new {
				t.Errorf("%q → %q (%v): %q, %v", old, new, enc, got, err)
			}
		}
	}
}
