package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// DiskWorkspace is an agent.Workspace on the plain file system, for the
// headless CLI and tests. Edits replace files atomically (a temporary file in
// the same directory, then rename), so a reader or a crash never sees half a
// file.
type DiskWorkspace struct {
	root string
	// mu serialises edits made through this workspace, so two edits of one
	// file in the same process never lose one another.
	mu sync.Mutex
}

// NewDiskWorkspace returns a workspace rooted at the directory root.
func NewDiskWorkspace(root string) (*DiskWorkspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a directory", root)
	}
	return &DiskWorkspace{root: abs}, nil
}

// Root returns the absolute workspace directory.
func (w *DiskWorkspace) Root() string { return w.root }

func (w *DiskWorkspace) path(rel string) (string, error) {
	p := filepath.FromSlash(rel)
	// The tools confine paths with Policy first; this catches callers that
	// did not, without repeating the symlink work.
	if !filepath.IsLocal(p) && p != "." {
		return "", fmt.Errorf("path %s is %w", rel, ErrOutside)
	}
	return filepath.Join(w.root, p), nil
}

// ReadFile reads rel from disk.
func (w *DiskWorkspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := w.path(rel)
	if err != nil {
		return nil, err
	}
	data, _, err := ReadRegularFile(p)
	return data, err
}

// maxEditAttempts bounds the re-reads when the file keeps changing under an
// edit (another program writing it in a loop).
const maxEditAttempts = 5

// Edit runs transform on the file's current text and replaces the file with
// the result. If the file changed on disk while transform ran, it starts over
// on the new text, as the Workspace contract asks. A result equal to the
// current text writes nothing.
func (w *DiskWorkspace) Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error {
	p, err := w.path(rel)
	if err != nil {
		return err
	}
	// Write through a symlink to its target instead of replacing the link.
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for range maxEditAttempts {
		if err := ctx.Err(); err != nil {
			return err
		}
		old, exists, mode, err := readCurrent(p)
		if err != nil {
			return err
		}
		text, err := transform(old, exists)
		if err != nil {
			return err
		}
		if exists && bytes.Equal(old, text) {
			return nil
		}
		now, nowExists, _, err := readCurrent(p)
		if err != nil {
			return err
		}
		if nowExists != exists || !bytes.Equal(now, old) {
			continue
		}
		return writeAtomic(p, text, mode)
	}
	return fmt.Errorf("edit %s: the file kept changing while it was being edited", rel)
}

func readCurrent(p string) (data []byte, exists bool, mode fs.FileMode, err error) {
	data, fi, err := ReadRegularFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, 0o644, nil
	}
	if err != nil {
		return nil, false, 0, err
	}
	return data, true, fi.Mode().Perm(), nil
}

// writeAtomic replaces p with data: the rename is atomic on POSIX file
// systems, and the sync before it makes sure the new name never points at
// an empty file after a crash.
func writeAtomic(p string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(p)+".agentls-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
