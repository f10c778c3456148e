package apply

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Carry writes a command's file over the text it planned on only, and
// deletes; a file changed since is left and the error says so.
func TestCarry(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("old\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("the user's\n"), 0o644)
	os.WriteFile(filepath.Join(root, "c.txt"), []byte("bye\n"), 0o644)
	d, err := NewDisk(root)
	if err != nil {
		t.Fatal(err)
	}
	a := New(d)
	ctx := context.Background()
	if err := Carry(ctx, a, "a.txt", []byte("old\n"), true, []byte("new\n"), false); err != nil {
		t.Fatal(err)
	}
	if err := Carry(ctx, a, "b.txt", []byte("old\n"), true, []byte("new\n"), false); !errors.Is(err, ErrChangedMeanwhile) {
		t.Errorf("over a changed file: %v", err)
	}
	if err := Carry(ctx, a, "sub/new.txt", nil, false, []byte("made\n"), false); err != nil {
		t.Fatal(err)
	}
	if err := Carry(ctx, a, "c.txt", []byte("bye\n"), true, nil, true); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "new\n", "b.txt": "the user's\n", "sub/new.txt": "made\n", "c.txt": "(gone)"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if got := string(b); err != nil && want != "(gone)" || err == nil && got != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
}

// Onto places a command's change onto a text changed meanwhile, keeping
// the newer text where both changed a line.
func TestOnto(t *testing.T) {
	seen, next := []byte("a\nb\nc\nd\ne\n"), []byte("A\nb\nc\nd\nE\n")
	if got, note := Onto(seen, true, seen, next); string(got) != string(next) || note != "" {
		t.Errorf("unchanged: %q %q", got, note)
	}
	got, note := Onto([]byte("a\nb\nc\nd\ne!\n"), true, seen, next)
	if string(got) != "A\nb\nc\nd\ne!\n" || !strings.Contains(note, "line 5") {
		t.Errorf("changed meanwhile: %q %q", got, note)
	}
}
