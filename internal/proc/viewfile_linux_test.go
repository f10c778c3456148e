package proc

import (
	"io"
	"maps"
	"testing"
)

// The view's files reach the launcher through viewFile and parseView:
// every name and text as given (empty, binary, non-ASCII), and a cut or
// corrupt file is an error, not a view missing files.
func TestViewFileRoundTrip(t *testing.T) {
	view := map[string][]byte{
		"a/b.go":      []byte("package b\n"),
		"empty.txt":   {},
		"ünïcode.md":  []byte("héllo\n"),
		"bin/data.db": {0, 1, 2, 255, 0},
	}
	f, err := viewFile(view)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseView(b)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(got, view, func(x, y []byte) bool { return string(x) == string(y) }) {
		t.Errorf("got %q, want %q", got, view)
	}
	for _, cut := range []int{1, len(b) / 2, len(b) - 1} {
		if _, err := parseView(b[:cut]); err == nil {
			t.Errorf("cut at %d of %d: no error", cut, len(b))
		}
	}
	if _, err := parseView([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}); err == nil {
		t.Errorf("a corrupt length: no error")
	}
}
