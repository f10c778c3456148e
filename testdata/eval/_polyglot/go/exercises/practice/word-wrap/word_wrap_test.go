package wordwrap

import (
	"reflect"
	"testing"
)

func TestWrap(t *testing.T) {
	cases := []struct {
		text  string
		width int
		want  []string
	}{
		{"The quick brown fox jumps", 10, []string{"The quick", "brown fox", "jumps"}},
		{"", 5, nil},
		{"   \t\n ", 5, nil},
		{"a  b\tc\nd", 3, []string{"a b", "c d"}},
		{"extraordinary word", 5, []string{"extraordinary", "word"}},
		{"exactly ten", 11, []string{"exactly ten"}},
	}
	for _, c := range cases {
		if got := Wrap(c.text, c.width); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
	}
}
