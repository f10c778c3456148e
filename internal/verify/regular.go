package verify

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxManifest caps the project files detection and parsing read whole
// (package.json, Makefile, go.mod).
const maxManifest = 4 << 20

// openRegular opens a file of the workspace without blocking and only if
// it is a regular file: the model can put a named pipe where a Makefile or
// a package.json is expected, and a plain open would wait for a writer
// forever, past any cancel.
func openRegular(p string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file", p)
	}
	return f, fi, nil
}

// readManifest reads a regular file of at most maxManifest bytes.
func readManifest(p string) ([]byte, error) {
	f, fi, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > maxManifest {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, maxManifest)
	}
	return io.ReadAll(io.LimitReader(f, maxManifest))
}
