package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// A protected name that is a symlink protects its target: with
// .husky -> tools/husky, write_file tools/husky/pre-commit is a protected
// write (refused with nobody to ask, asked otherwise), at any depth, and
// so is every other write tool's; .vscode -> editor/vscode and
// .agentls.json -> cfg/a.json the same, and a link inside a protected
// directory (.git/hooks -> ../scripts/hooks). Before, only the names were
// checked and these writes went through unasked.
func TestProtectedLinkTargetsAreProtected(t *testing.T) {
	ws := newDisk(t, map[string]string{
		"tools/husky/pre-commit": "#!/bin/sh\n", "editor/vscode/settings.json": "{}", "cfg/a.json": "{}",
		"scripts/hooks/pre-push": "#!/bin/sh\n", ".git/HEAD": "ref: refs/heads/main\n", "src/ok.txt": "x",
		"deep/er/keep.txt": "x", "lib/x/y.txt": "y", ".envrc": "use nix\n",
	})
	root := ws.Root()
	for link, target := range map[string]string{
		".husky": "tools/husky", ".vscode": "editor/vscode", ".agentls.json": "cfg/a.json",
		".git/hooks": "../scripts/hooks", "deep/er/.husky": "../../lib",
		// The reverse: a link with an ordinary name that lands on a
		// protected file.
		"envrc-alias": ".envrc", "settings-alias.json": ".vscode/settings.json",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	var asked []string
	ask := func(_ context.Context, rel, why string) (bool, error) {
		asked = append(asked, rel+": "+why)
		return false, nil
	}
	for _, p := range []string{"tools/husky/pre-commit", "tools/husky/post-commit", "editor/vscode/tasks.json", "cfg/a.json",
		"scripts/hooks/pre-push", "lib/x/y.txt", "envrc-alias", "settings-alias.json"} {
		for _, tool := range []string{"write_file", "delete_file"} {
			args := map[string]string{"path": p}
			if tool == "write_file" {
				args["content"] = "evil"
			}
			if _, err := call(t, toolNamed(t, ws, Options{}, tool), args); err == nil {
				t.Errorf("%s %s went through unasked", tool, p)
			}
		}
		asked = nil
		if _, err := call(t, toolNamed(t, ws, Options{ConfirmWrite: ask}, "write_file"), map[string]string{"path": p, "content": "evil"}); err == nil || len(asked) != 1 {
			t.Errorf("write_file %s: %v, asked %q", p, err, asked)
		}
	}
	if _, err := call(t, toolNamed(t, ws, Options{}, "move_file"), map[string]string{"from": "src/ok.txt", "to": "tools/husky/post-merge"}); err == nil {
		t.Error("move_file into the hooks' target went through unasked")
	}
	if _, err := call(t, toolNamed(t, ws, Options{EditTool: "apply_patch"}, "apply_patch"), map[string]string{"input": "*** Begin Patch\n*** Add File: tools/husky/pre-rebase\n+evil\n*** End Patch"}); err == nil {
		t.Error("apply_patch into the hooks' target went through unasked")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "tools/husky/pre-commit")); string(b) != "#!/bin/sh\n" {
		t.Errorf("the hook changed: %q", b)
	}
	got := map[string]bool{}
	for _, t := range ProtectedTargets(root) {
		got[t] = true
	}
	for _, want := range []string{"tools/husky", "editor/vscode", "cfg/a.json", "scripts/hooks", "lib"} {
		if !got[want] {
			t.Errorf("ProtectedTargets lacks %s: %v", want, got)
		}
	}
	// An ordinary file stays writable without a question.
	if _, err := call(t, toolNamed(t, ws, Options{}, "write_file"), map[string]string{"path": "src/ok.txt", "content": "fine"}); err != nil {
		t.Errorf("an ordinary write: %v", err)
	}
}

// The protected links are kept between writes (linkIndex) and seen again
// as the tree changes: a link made in a directory read long ago, one made
// at once after a read (the same clock tick), a directory renamed under
// the link, a link removed. Every directory is backdated first, so that
// only a change can make the index read it again.
func TestProtectedLinksSeenAsTheTreeChanges(t *testing.T) {
	ws := newDisk(t, map[string]string{"a/b/c/keep.txt": "x", "tools/husky/pre-commit": "x", "old/hooks/h": "x", "src/x.go": "x"})
	root := ws.Root()
	backdate := func() {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				old := time.Now().Add(-time.Hour)
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
	protected := func(rel string) bool { ok, _ := ProtectedWrite(root, rel, ""); return ok }
	backdate()
	if protected("tools/husky/pre-commit") {
		t.Fatal("protected before any link")
	}
	// A link made in a directory read an hour "ago".
	if err := os.Symlink("../../../tools/husky", filepath.Join(root, "a/b/c/.husky")); err != nil {
		t.Fatal(err)
	}
	if !protected("tools/husky/pre-commit") {
		t.Error("a new link in a deep directory was not seen")
	}
	// Removed: no longer protected.
	os.Remove(filepath.Join(root, "a/b/c/.husky"))
	backdate()
	if protected("tools/husky/pre-commit") {
		t.Error("a removed link still protects")
	}
	// Made right after a read, in the same clock tick: the racy rule
	// reads the directory again.
	if protected("src/x.go") {
		t.Fatal("src/x.go")
	}
	os.Symlink("../src", filepath.Join(root, "a/.vscode"))
	if !protected("src/x.go") {
		t.Error("a link made just after a read was not seen")
	}
	// A directory holding a link renamed: the link moves with it and
	// still protects; the old place does not.
	os.Symlink("../old/hooks", filepath.Join(root, "tools/.githooks"))
	backdate()
	if !protected("old/hooks/h") {
		t.Fatal("old/hooks/h not protected")
	}
	if err := os.Rename(filepath.Join(root, "tools"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("../old/hooks", filepath.Join(root, "moved/.githooks2"))
	os.Remove(filepath.Join(root, "moved/.githooks2"))
	if !protected("old/hooks/h") {
		t.Error("the link in a renamed directory was lost")
	}
	os.Remove(filepath.Join(root, "moved/.githooks"))
	if protected("old/hooks/h") {
		t.Error("a link removed from a renamed directory still protects")
	}
}
