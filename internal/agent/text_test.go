package agent

import (
	"testing"
	"unicode/utf8"
)

func TestCutKeepsWholeCharacters(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"}, {"hello", 3, "hel"}, {"héllo", 2, "h"}, {"héllo", 3, "hé"},
		{"日本語", 4, "日"}, {"日本語", 2, ""}, {"😀x", 3, ""}, {"", 0, ""},
	} {
		if got := Cut(tt.s, tt.n); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
	// firstLine and the driver's truncation cut through it: no U+FFFD.
	if got := firstLine("ééééé", 5); !utf8.ValidString(got) {
		t.Errorf("firstLine cut a character: %q", got)
	}
}
