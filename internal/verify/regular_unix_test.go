//go:build unix

package verify

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Named pipes in place of the files detection and parsing read (Makefile,
// package.json, go.mod, a source file named in output) are skipped: a
// plain open blocks until a writer comes, which used to hang the task past
// any cancel.
func TestDetectSkipsSpecialFiles(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"Makefile", "package.json", "go.mod", "main.go"} {
		if err := syscall.Mkfifo(filepath.Join(root, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "GNUmakefile.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []string, 1)
	go func() {
		cmds := DetectAny(root)
		readLines(filepath.Join(root, "main.go"))
		(&scan{dir: root}).goPkgDir("example.com/m/x")
		done <- cmds
	}()
	select {
	case cmds := <-done:
		if len(cmds) != 0 {
			t.Errorf("detected %q from named pipes", cmds)
		}
	case <-time.After(testBound):
		t.Fatal("detection blocked on a named pipe")
	}
}

// testBound bounds a wait for something that must not block at all;
// reaching it is a hang, not a slow run.
const testBound = 30 * time.Second
