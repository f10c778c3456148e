package textcut

import (
	"testing"
	"unicode/utf8"
)

func TestHeadKeepsWholeCharacters(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"}, {"hello", 3, "hel"}, {"héllo", 2, "h"}, {"héllo", 3, "hé"},
		{"日本語", 4, "日"}, {"日本語", 2, ""}, {"😀x", 3, ""}, {"", 0, ""}, {"abc", -1, ""},
	} {
		if got := Head(tt.s, tt.n); got != tt.want {
			t.Errorf("Head(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if got := string(Head([]byte(tt.s), tt.n)); got != tt.want {
			t.Errorf("Head([]byte(%q), %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// Every offset of a text with 1- to 4-byte characters: Floor and Ceil land
// on boundaries, the nearest ones on their side.
func TestFloorCeilAreNearestBoundaries(t *testing.T) {
	s := "aé日😀b"
	for i := -2; i <= len(s)+2; i++ {
		f, c := Floor(s, i), Ceil(s, i)
		if !utf8.ValidString(s[:f]) || !utf8.ValidString(s[f:]) || !utf8.ValidString(s[:c]) || !utf8.ValidString(s[c:]) {
			t.Fatalf("offset %d: Floor %d or Ceil %d is inside a character", i, f, c)
		}
		if f > max(i, 0) || c < min(i, len(s)) {
			t.Fatalf("offset %d: Floor %d, Ceil %d on the wrong side", i, f, c)
		}
		for j := f + 1; j < min(i+1, len(s)); j++ {
			if utf8.RuneStart(s[j]) {
				t.Fatalf("offset %d: Floor %d, but %d is a nearer boundary", i, f, j)
			}
		}
		for j := max(i, 0); j < c; j++ {
			if utf8.RuneStart(s[j]) {
				t.Fatalf("offset %d: Ceil %d, but %d is a nearer boundary", i, c, j)
			}
		}
	}
}
