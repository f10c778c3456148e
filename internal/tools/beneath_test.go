package tools

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestBeneath(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "in", "deep"), 0o755))
	must(os.WriteFile(filepath.Join(root, "in", "f.txt"), nil, 0o644))
	must(os.Symlink(out, filepath.Join(root, "cfg")))                                  // a directory swapped for a link out
	must(os.Symlink("in", filepath.Join(root, "alias")))                               // a link that stays inside
	must(os.Symlink(filepath.Join(out, "new"), filepath.Join(root, "in", "dangling"))) // a dangling link out
	must(os.Symlink("../../x", filepath.Join(root, "in", "up")))                       // a relative one out
	for rel, ok := range map[string]bool{
		"in/f.txt":         true,
		"in/new.txt":       true,
		"in/deep/a/b/c.go": true,
		"new/dir/file":     true,
		"alias/f.txt":      true,
		"cfg/.gitconfig":   false,
		"cfg/sub/file":     false,
		"cfg":              false,
		"in/dangling":      false,
		"in/up":            false,
		"../x":             false,
		"/etc/passwd":      false,
	} {
		err := Beneath(root, rel)
		if (err == nil) != ok || err != nil && !errors.Is(err, ErrEscapes) {
			t.Errorf("Beneath(%s) = %v, want ok %v", rel, err, ok)
		}
	}
}
