package verify

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A check that rewrites a file the buffers did not change (gofmt -w,
// prettier --write, a test writing its fixture) writes the overlay's
// file, never the user's. (The hard-linked overlay wrote through.)
func TestOverlayCheckWritingUnchangedFileLeavesWorkspace(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.py", "a = 1\n")
	writeFile(t, root, "pkg/b.py", "b = 1\n")
	writeFile(t, root, "package.json", "{}\n")

	o, err := NewOverlay(root, map[string][]byte{"a.py": []byte("a = 2\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, rel := range []string{"pkg/b.py", "package.json"} {
		if err := os.WriteFile(filepath.Join(o.Dir(), rel), []byte("rewritten\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	assertFile(t, root, "pkg/b.py", "b = 1\n")
	assertFile(t, root, "package.json", "{}\n")

	rs, err := Run(context.Background(), RunOptions{Root: root,
		Commands: []string{"echo formatted > pkg/b.py && echo more >> a.py && echo new > c.py && cat pkg/b.py"},
		Overlay:  map[string][]byte{"a.py": []byte("a = 2\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || !rs[0].Passed || rs[0].Output != "formatted\n" {
		t.Fatalf("the check did not run as written: %+v", rs)
	}
	assertFile(t, root, "pkg/b.py", "b = 1\n")
	assertFile(t, root, "a.py", "a = 1\n")
	if _, err := os.Stat(filepath.Join(root, "c.py")); !os.IsNotExist(err) {
		t.Errorf("a file the check created reached the workspace: %v", err)
	}
}

func assertFile(t *testing.T, root, rel, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil || string(b) != want {
		t.Errorf("workspace %s = %q (%v), want %q", rel, b, err, want)
	}
}
