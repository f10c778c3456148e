//go:build !unix

package tools

import (
	"io"
	"os"
	"path/filepath"
)

// readInto reads a file into the worker's reusable buffer.
func readInto(buf *[]byte, _ int, root, rel string) ([]byte, bool) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > grepMaxFile {
		return nil, false
	}
	size := int(fi.Size())
	if cap(*buf) < size {
		*buf = make([]byte, max(size, 64<<10))
	}
	n, err := io.ReadFull(f, (*buf)[:size])
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, false
	}
	return (*buf)[:n], true
}

func openRootFD(string) int { return -1 }

func closeRootFD(int) {}

// dirBeneath opens dir below r (os.Root: the write stays in the workspace).
func dirBeneath(r *os.Root, dir string) (*os.Root, error) { return r.OpenRoot(dir) }

// oNoFollow: no such flag here; os.Root keeps the open in the workspace.
const oNoFollow = 0
