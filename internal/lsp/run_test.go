package lsp

import (
	"testing"
	"unicode/utf8"
)

// Texts shown to the user are cut at a character boundary: a prompt in
// Japanese must not end in half a character.
func TestShortenKeepsCharactersWhole(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"  short  ", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"日本語の指示", 4, "日…"}, // 3 bytes a character: byte 4 is inside the second
		{"日本語", 6, "日本…"},
		{"é", 1, "…"},
	} {
		if got := shorten(c.in, c.n); got != c.want || !utf8.ValidString(got) {
			t.Errorf("shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
