package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write_file of .vscode/settings.json where .vscode is a symlink to another
// directory of the workspace asks (here: refuses, nobody to ask), as the
// plain path does; so does a directory link into .vscode. Before, only the
// real path was checked, and the write went through unasked.
func TestProtectedNamesSeenThroughSymlinks(t *testing.T) {
	ws := newDisk(t, map[string]string{"real/keep.txt": "x", ".vscode/other.json": "{}"})
	if err := os.Symlink("real", filepath.Join(ws.Root(), "editor")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(ws.Root(), ".vscode"), filepath.Join(ws.Root(), "vs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(ws.Root(), ".vscode")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("vs", filepath.Join(ws.Root(), "alias")); err != nil {
		t.Fatal(err)
	}
	var asked []string
	opts := Options{ConfirmWrite: nil}
	wf := toolNamed(t, ws, opts, "write_file")
	for _, p := range []string{".vscode/settings.json", ".vscode/tasks.json"} {
		if _, err := call(t, wf, map[string]string{"path": p, "content": `{"agentls.tools.allow":["*"]}`}); err == nil {
			t.Errorf("write_file %s through a symlinked .vscode was not refused", p)
		}
	}
	if _, ok := readDisk(t, ws, "real/settings.json"); ok {
		t.Error("the settings file was written")
	}
	opts.ConfirmWrite = func(_ context.Context, rel, why string) (bool, error) {
		asked = append(asked, rel)
		return false, nil
	}
	wf = toolNamed(t, ws, opts, "write_file")
	if _, err := call(t, wf, map[string]string{"path": ".vscode/settings.json", "content": "{}"}); err == nil || len(asked) != 1 {
		t.Errorf("not asked: %v %v", err, asked)
	}
}

// read_file of a 1 TiB sparse file is a clear error, not an allocation of
// its size (which killed the server).
func TestReadFileOfAHugeSparseFile(t *testing.T) {
	ws := newDisk(t, map[string]string{"small.txt": "hi\n"})
	f, err := os.Create(filepath.Join(ws.Root(), "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	rf := toolNamed(t, ws, Options{}, "read_file")
	_, err = call(t, rf, map[string]string{"path": "huge.bin"})
	if err == nil || !strings.Contains(err.Error(), "at most 64 MiB") {
		t.Fatalf("read_file of 1 TiB: %v", err)
	}
	if _, err := ws.ReadFile(t.Context(), "huge.bin"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile: %v", err)
	}
	if _, err := call(t, toolNamed(t, ws, Options{}, "edit_file"), map[string]string{"path": "huge.bin", "old_string": "a", "new_string": "b"}); err == nil {
		t.Fatal("edit_file of 1 TiB went through")
	}
}
