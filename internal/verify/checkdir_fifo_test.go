//go:build unix

package verify

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A file swapped for a named pipe after the walk listed it is skipped by
// the checks' copy, never waited on: before, os.Open blocked until a
// writer came, and the checks hung with it.
func TestCopyWithSkipsANamedPipe(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := syscall.Mkfifo(src, 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "copy.go")
	err := copyWith(src, dst, func(out, in *os.File) error { _, err := io.Copy(out, in); return err })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dst); err == nil {
		t.Error("the pipe was copied")
	}
}
