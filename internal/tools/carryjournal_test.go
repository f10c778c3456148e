package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A journal left by a killed carry is finished whole when every file is
// as it found it or as it writes it, and kept aside and reported,
// writing nothing, when one changed since.
func TestRecoverCarries(t *testing.T) {
	setup := func(t *testing.T) (root, dir string) {
		root, dir = t.TempDir(), t.TempDir()
		for name, text := range map[string]string{"done.txt": "new\n", "todo.txt": "old\n", "gone.txt": "bye\n"} {
			if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// The interrupted write of todo.txt left its temporary file.
		os.WriteFile(filepath.Join(root, "todo.txt.agentls-tmp"), []byte("ne"), 0o644)
		os.WriteFile(filepath.Join(root, ".todo.txt.agentls-0123456789ab"), []byte("ne"), 0o600)
		_, lock, err := writeJournal(dir, carryJournal{Root: root, Files: []carryEntry{
			{Rel: "done.txt", Old: []byte("old\n"), Existed: true, Next: []byte("new\n")},
			{Rel: "todo.txt", Old: []byte("old\n"), Existed: true, Next: []byte("new\n")},
			{Rel: "sub/made.txt", Next: []byte("made\n")},
			{Rel: "gone.txt", Old: []byte("bye\n"), Existed: true, Delete: true},
		}})
		if err != nil {
			t.Fatal(err)
		}
		lock.Close() // the process that wrote it is gone
		return root, dir
	}
	read := func(root, name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return "(gone)"
		}
		return string(b)
	}

	t.Run("whole", func(t *testing.T) {
		root, dir := setup(t)
		msgs := RecoverCarries(dir)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "3 of 4 files written now") {
			t.Errorf("said %q", msgs)
		}
		if read(root, "done.txt") != "new\n" || read(root, "todo.txt") != "new\n" || read(root, "sub/made.txt") != "made\n" ||
			read(root, "gone.txt") != "(gone)" || read(root, "todo.txt.agentls-tmp") != "(gone)" || read(root, ".todo.txt.agentls-0123456789ab") != "(gone)" {
			t.Errorf("not finished whole")
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("left in the journal directory: %v", left)
		}
		if msgs := RecoverCarries(dir); len(msgs) != 0 {
			t.Errorf("a second start said %q", msgs)
		}
	})
	t.Run("in progress elsewhere", func(t *testing.T) {
		root, dir := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(root, "a.txt"), []byte("old\n"), 0o644)
		_, lock, err := writeJournal(dir, carryJournal{Root: root, Files: []carryEntry{{Rel: "a.txt", Old: []byte("old\n"), Existed: true, Next: []byte("new\n")}}})
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close()
		if msgs := RecoverCarries(dir); len(msgs) != 0 || read(root, "a.txt") != "old\n" {
			t.Errorf("a carry in progress was taken over: %q, a.txt %q", msgs, read(root, "a.txt"))
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(left) != 1 {
			t.Errorf("its journal: %v", left)
		}
	})
	t.Run("changed since", func(t *testing.T) {
		root, dir := setup(t)
		os.WriteFile(filepath.Join(root, "todo.txt"), []byte("the user's\n"), 0o644)
		msgs := RecoverCarries(dir)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "NOT finished") || !strings.Contains(msgs[0], "todo.txt") {
			t.Errorf("said %q", msgs)
		}
		if read(root, "todo.txt") != "the user's\n" || read(root, "sub/made.txt") != "(gone)" || read(root, "gone.txt") != "bye\n" {
			t.Errorf("wrote part of a carry it reported")
		}
		if kept, _ := filepath.Glob(filepath.Join(dir, "*.kept")); len(kept) != 1 {
			t.Errorf("not kept aside: %v", kept)
		}
	})
	t.Run("no link out", func(t *testing.T) {
		root, dir := setup(t)
		out := t.TempDir()
		if err := os.Symlink(out, filepath.Join(root, "sub")); err != nil {
			t.Fatal(err)
		}
		msgs := RecoverCarries(dir)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "sub/made.txt") {
			t.Errorf("said %q", msgs)
		}
		if _, err := os.Stat(filepath.Join(out, "made.txt")); err == nil {
			t.Errorf("written outside the root through a link")
		}
	})
}

// A carried file is written through a temporary of its own: a file of the
// user's named like the old fixed temporary (rel.agentls-tmp) is neither
// overwritten nor renamed over the file, and the new file is whole.
func TestWriteBeneathKeepsAFileNamedLikeItsTemporary(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "todo.txt.agentls-tmp"), []byte("the user's\n"), 0o644)
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := writeBeneath(r, "todo.txt", []byte("new\n"), 0); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "todo.txt"))
	kept, _ := os.ReadFile(filepath.Join(root, "todo.txt.agentls-tmp"))
	fi, _ := os.Stat(filepath.Join(root, "todo.txt"))
	if string(got) != "new\n" || string(kept) != "the user's\n" || fi == nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("todo.txt %q, todo.txt.agentls-tmp %q, mode %v", got, kept, fi)
	}
}
