package render

import (
	"testing"
	"unicode/utf8"
)

// OneLine folds whitespace and cuts at a character boundary.
func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"a  b\n\tc", 10, "a b c"},
		{"abcdef", 3, "abc…"},
		{"héllo", 2, "h…"}, // é is two bytes: not cut in half
		{"日本語", 4, "日…"},
		{"日本語", 9, "日本語"},
	} {
		got := OneLine(c.in, c.max)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
