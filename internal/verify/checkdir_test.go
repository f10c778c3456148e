package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckDirWithoutFilesRunsInRoot(t *testing.T) {
	root := t.TempDir()
	o, err := NewCheckDir(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Dir() != root || o.Root() != root {
		t.Fatalf("Dir %s Root %s, want both %s", o.Dir(), o.Root(), root)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("Close touched the root: %v", err)
	}
}

func TestCheckDirCopy(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "main.go", "package main\n")
	writeFile(t, root, "pkg/lib.go", "package pkg\n")
	writeFile(t, root, ".git/HEAD", "ref: refs/heads/main\n")
	writeFile(t, root, "node_modules/dep/index.js", "module.exports = 1\n")
	writeFile(t, root, "web/node_modules/x/y.js", "1\n")
	writeFile(t, root, "pkg/__pycache__/m.pyc", "x")
	writeFile(t, root, "run.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, "pkg/lib.go"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pkg/lib.go", filepath.Join(root, "lib-link.go")); err != nil {
		t.Fatal(err)
	}

	o, err := NewCheckDir(root, map[string][]byte{
		"main.go":       []byte("package main // edited\n"),
		"newdir/new.go": []byte("package newdir\n"),
		"lib-link.go":   []byte("package main // replaces the link, not its target\n"),
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := o.Dir()
	if dir == root || o.Root() != root {
		t.Fatalf("Dir %s Root %s", dir, o.Root())
	}
	read := func(base, rel string) string {
		b, err := os.ReadFile(filepath.Join(base, rel))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	checks := []struct{ rel, want string }{
		{"main.go", "package main // edited\n"},
		{"newdir/new.go", "package newdir\n"},
		{"pkg/lib.go", "package pkg\n"},
		{"lib-link.go", "package main // replaces the link, not its target\n"},
		{"node_modules/dep/index.js", "module.exports = 1\n"},
	}
	for _, c := range checks {
		if got := read(dir, c.rel); got != c.want {
			t.Errorf("copy %s = %q, want %q", c.rel, got, c.want)
		}
	}
	// The real workspace is untouched.
	if got := read(root, "main.go"); got != "package main\n" {
		t.Errorf("real main.go = %q", got)
	}
	if got := read(root, "pkg/lib.go"); got != "package pkg\n" {
		t.Errorf("real pkg/lib.go = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "newdir")); !os.IsNotExist(err) {
		t.Errorf("newdir appeared in the root: %v", err)
	}
	for _, skipped := range []string{".git", "pkg/__pycache__"} {
		if _, err := os.Lstat(filepath.Join(dir, skipped)); !os.IsNotExist(err) {
			t.Errorf("%s was copied: %v", skipped, err)
		}
	}
	for _, linked := range []string{"node_modules", "web/node_modules"} {
		fi, err := os.Lstat(filepath.Join(dir, linked))
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is not a symlink: %v", linked, err)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "run.sh"))
	if err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh lost its execute bit: %v", err)
	}
	fi, err = os.Stat(filepath.Join(dir, "pkg/lib.go"))
	if err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("pkg/lib.go mtime not kept: %v", err)
	}

	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("copy still there after Close: %v", err)
	}
	if got := read(root, "node_modules/dep/index.js"); got != "module.exports = 1\n" {
		t.Errorf("Close followed the node_modules link: %q", got)
	}
}

// An unsaved buffer inside a directory that is normally linked makes the
// overlay copy that directory, so the buffer never reaches the real one.
func TestCheckDirCopiesLinkedDirHoldingABuffer(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "node_modules/dep/index.js", "original\n")
	writeFile(t, root, "node_modules/dep/other.js", "other\n")
	o, err := NewCheckDir(root, map[string][]byte{"node_modules/dep/index.js": []byte("edited\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if b, _ := os.ReadFile(filepath.Join(root, "node_modules/dep/index.js")); string(b) != "original\n" {
		t.Fatalf("real file changed to %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(o.Dir(), "node_modules/dep/index.js")); string(b) != "edited\n" {
		t.Fatalf("copy has %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(o.Dir(), "node_modules/dep/other.js")); string(b) != "other\n" {
		t.Fatalf("copy lost a sibling: %q", b)
	}
}

func TestCheckDirRejects(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeFile(t, root, "a.go", "package a\n")
	if err := os.Symlink(outside, filepath.Join(root, "ext")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../escape.go", "/etc/passwd", "ext/x.go"} {
		t.Run(name, func(t *testing.T) {
			o, err := NewCheckDir(root, map[string][]byte{name: []byte("x")})
			if err == nil {
				o.Close()
				t.Fatalf("NewCheckDir accepted %q", name)
			}
		})
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("something was written through the symlink: %v", entries)
	}
}

// The check the overlay exists for: a Go module whose edited file does not
// compile. The diagnostics point into the real root, the file on disk is
// unchanged, and the output names no temporary directory.
func TestRunCheckDirGoBuild(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/ov\n\ngo 1.21\n")
	writeFile(t, root, "main.go", "package main\n\nfunc main() {}\n")
	writeFile(t, root, "util/util.go", "package util\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n")
	before, err := os.ReadFile(filepath.Join(root, "util/util.go"))
	if err != nil {
		t.Fatal(err)
	}
	stBefore, _ := os.Stat(filepath.Join(root, "util/util.go"))

	edited := "package util\n\n// Twice doubles n.\nfunc Twice(n int) int {\n\treturn 2 * m\n}\n"
	results, err := Run(context.Background(), RunOptions{
		Root:     root,
		Commands: []string{"go build ./...", "go vet ./..."},
		Unsaved:  map[string][]byte{"util/util.go": []byte(edited)},
		Env:      []string{"GOTOOLCHAIN=local"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 {
		t.Fatalf("ran %d commands, want the build only: %+v", len(results), results)
	}
	r := results[0]
	if r.Passed || r.ExitCode != 1 {
		t.Fatalf("build passed or exit %d:\n%s", r.ExitCode, r.Output)
	}
	want := Diagnostic{Path: filepath.Join(root, "util", "util.go"), Line: 5, Col: 13,
		Severity: Error, Message: "undefined: m", Source: "go build"}
	if len(r.Diagnostics) != 1 || r.Diagnostics[0] != want {
		t.Fatalf("diagnostics %+v\nwant [%+v]\noutput:\n%s", r.Diagnostics, want, r.Output)
	}
	after, _ := os.ReadFile(filepath.Join(root, "util/util.go"))
	stAfter, _ := os.Stat(filepath.Join(root, "util/util.go"))
	if !bytes.Equal(before, after) || !stAfter.ModTime().Equal(stBefore.ModTime()) {
		t.Fatalf("the real file changed")
	}
	if strings.Contains(r.Output, os.TempDir()+"/agentls-verify-") {
		t.Fatalf("output names the overlay directory:\n%s", r.Output)
	}

	// The same module without the overlay builds: the disk was fine.
	results, err = Run(context.Background(), RunOptions{Root: root, Commands: []string{"go build ./..."}, Env: []string{"GOTOOLCHAIN=local"}})
	if err != nil || len(results) != 1 || !results[0].Passed {
		t.Fatalf("build of the real tree: %v %+v", err, results)
	}
}
