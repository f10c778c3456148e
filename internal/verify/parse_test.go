package verify

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestByteColumn(t *testing.T) {
	cases := []struct {
		text string
		col  int
		unit colUnit
		want int
	}{
		{"abc", 2, unitBytes, 2},
		{"é = x", 3, unitRunes, 4},   // the "="
		{"é = x", 3, unitUTF16, 4},   // é is one UTF-16 unit
		{"😀 = x", 3, unitRunes, 6},   // one rune, four bytes
		{"😀 = x", 4, unitUTF16, 6},   // two UTF-16 units
		{"😀 = x", 2, unitUTF16, 1},   // inside the surrogate pair: the emoji
		{"\tx", 9, unitDisplay, 2},   // the tab fills columns 1–8
		{"\tx", 4, unitDisplay, 1},   // a column inside the tab is the tab
		{"ab\tx", 9, unitDisplay, 4}, // a tab after text stops at 8 too
		{"世x", 3, unitDisplay, 4},    // a wide character takes two cells
		{"ab", 5, unitRunes, 5},      // past the end keeps its distance
		{"é", 2, unitRunes, 3},       // one past the last character
		{"abc", 0, unitRunes, 0},     // unknown stays unknown
	}
	for _, c := range cases {
		if got := byteColumn(c.text, c.col, c.unit); got != c.want {
			t.Errorf("byteColumn(%q, %d, %d) = %d, want %d", c.text, c.col, c.unit, got, c.want)
		}
	}
}

// Output produced in an overlay copy names the copy's paths; diagnostics
// must name the real root.
func TestParseMapsRunDirToRoot(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFile(t, dir, "pkg/a.go", "package pkg\n")
	out := filepath.Join(dir, "pkg/a.go") + ":1:9: expected ';'\n" +
		"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t" + filepath.Join(dir, "pkg/a.go") + ":1 +0x1d\nexit status 2\n"
	diags, unloc := parseOutput(out, root, dir, "go run ./pkg")
	if len(diags) != 2 {
		t.Fatalf("got %v", diags)
	}
	for _, d := range diags {
		if d.Path != filepath.Join(root, "pkg", "a.go") {
			t.Errorf("path %s, want it in %s", d.Path, root)
		}
	}
	if len(unloc) != 0 {
		t.Errorf("unlocated %q", unloc)
	}
}

func TestParseCleansTerminalOutput(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "m.go", "package m\n")
	// Colors, CRLF line ends and a progress line redrawn with \r.
	out := "building 10%\rbuilding 100%\r\n\x1b[1m./m.go:1:1:\x1b[0m \x1b[31mexpected 'package'\x1b[0m\r\n"
	diags, unloc := Parse(out, root)
	if len(diags) != 1 || diags[0].Message != "expected 'package'" || diags[0].Line != 1 {
		t.Fatalf("got %v", diags)
	}
	if len(unloc) != 1 || unloc[0] != "building 100%" {
		t.Fatalf("unlocated %q", unloc)
	}
}

func TestParseDeduplicates(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "m.go", "package m\n")
	line := "./m.go:1:1: undefined: x\n"
	diags, _ := Parse(line+"# other/pkg\n"+line, root)
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1: %v", len(diags), diags)
	}
}

func TestParseKeepsOutsideLinesUnlocated(t *testing.T) {
	root := t.TempDir()
	out := "../elsewhere/x.go:3:1: undefined: y\n/usr/include/stdio.h:12:3: error: bad\ntoo many errors\n"
	diags, unloc := Parse(out, root)
	if len(diags) != 0 {
		t.Fatalf("diagnostics outside the root: %v", diags)
	}
	want := strings.Split(strings.TrimSpace(out), "\n")
	if strings.Join(unloc, "|") != strings.Join(want, "|") {
		t.Fatalf("unlocated %q, want %q", unloc, want)
	}
}

// Parse is parseOutput for output produced in root itself: the tests' view
// of the parsers.
func Parse(output string, root string) (diags []Diagnostic, unlocated []string) {
	return parseOutput(output, root, root, "")
}
