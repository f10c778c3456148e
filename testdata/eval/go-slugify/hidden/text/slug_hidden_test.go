package text

import "testing"

func TestSlugifyHidden(t *testing.T) {
	for in, want := range map[string]string{
		"Hello, World!":       "hello-world",
		"  Go 1.22 release  ": "go-1-22-release",
		"---":                 "",
		"Ünïcode and ASCII":   "n-code-and-ascii",
		"already-a-slug":      "already-a-slug",
	} {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}
