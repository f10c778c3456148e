package strutil

import "testing"

func TestReverseWordsHidden(t *testing.T) {
	for in, want := range map[string]string{
		"hello world":      "world hello",
		"  hello   world ": "world hello",
		"":                 "",
		"one":              "one",
		"a\tb  c":          "c b a",
	} {
		if got := ReverseWords(in); got != want {
			t.Errorf("ReverseWords(%q) = %q, want %q", in, got, want)
		}
	}
}
