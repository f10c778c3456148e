package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// DiskWorkspace is an agent.Workspace on the plain file system, for the
// headless CLI and tests. Edits replace files atomically (a temporary file in
// the same directory, then rename), so a reader or a crash never sees half a
// file. Every read and write goes through an os.Root opened on the
// workspace at that moment: the path is resolved beneath the root when it
// is used, so a directory swapped for a symlink to somewhere else after the
// tools checked the path cannot carry the write out of the workspace.
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

// local checks rel is a workspace-relative path and returns it in the
// system's form.
func local(rel string) (string, error) {
	p := filepath.FromSlash(rel)
	// The tools confine paths with Policy first; this catches callers that
	// did not. os.Root does the rest at the moment of use.
	if !filepath.IsLocal(p) || p == "." {
		return "", fmt.Errorf("path %s is %w", rel, ErrOutside)
	}
	return p, nil
}

func (w *DiskWorkspace) open() (*os.Root, error) {
	r, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", w.root, err)
	}
	return r, nil
}

// ReadFile reads rel from disk.
func (w *DiskWorkspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := local(rel)
	if err != nil {
		return nil, err
	}
	r, err := w.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// The tools give real paths: the file is opened in its directory,
	// reached with no symlink on the way, and is no symlink itself, so a
	// swap since the check cannot turn the read to another file (.env,
	// .git/config) in the workspace or out of it.
	d, err := dirBeneath(r, filepath.Dir(p))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	f, err := d.OpenFile(filepath.Base(p), os.O_RDONLY|syscall.O_NONBLOCK|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, _, err := readRegular(f, rel)
	return data, err
}

// maxEditAttempts bounds the re-reads when the file keeps changing under an
// edit (another program writing it in a loop).
const maxEditAttempts = 5

// maxLinkFollow bounds how many symlinks Edit follows to reach the file.
const maxLinkFollow = 8

// Edit runs transform on the file's current text and replaces the file with
// the result. If the file changed on disk while transform ran, it starts over
// on the new text, as the Workspace contract asks. A result equal to the
// current text writes nothing.
func (w *DiskWorkspace) Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error {
	return w.EditMode(ctx, rel, 0, transform)
}

// EditMode is Edit, making a file that does not exist with the
// permission bits perm (0: 0644), as undo and rewind put back a file a
// command deleted.
func (w *DiskWorkspace) EditMode(ctx context.Context, rel string, perm fs.FileMode, transform func(old []byte, exists bool) ([]byte, error)) error {
	p, err := local(rel)
	if err != nil {
		return err
	}
	r, err := w.open()
	if err != nil {
		return err
	}
	defer r.Close()
	// Write through a symlink to its target instead of replacing the link,
	// as long as the target is in the workspace.
	if p, err = followInRoot(r, p); err != nil {
		return fmt.Errorf("edit %s: %w", rel, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for range maxEditAttempts {
		if err := ctx.Err(); err != nil {
			return err
		}
		old, exists, mode, err := readCurrent(r, p)
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
		now, nowExists, _, err := readCurrent(r, p)
		if err != nil {
			return err
		}
		if nowExists != exists || !bytes.Equal(now, old) {
			continue
		}
		if !exists && perm != 0 {
			mode = perm.Perm()
		}
		return writeAtomic(r, p, text, mode)
	}
	return fmt.Errorf("edit %s: the file kept changing while it was being edited", rel)
}

// followInRoot follows p while it is a symlink whose target lies in the
// workspace, and returns the path it reaches. A link out of the workspace
// is an error: replacing it would be as wrong as writing through it.
func followInRoot(r *os.Root, p string) (string, error) {
	for range maxLinkFollow {
		fi, err := r.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		target, err := r.Readlink(p)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			real, err := filepath.EvalSymlinks(r.Name())
			if err != nil {
				return "", err
			}
			t, ok := within(real, filepath.Clean(target))
			if !ok {
				if t, ok = within(filepath.Clean(r.Name()), filepath.Clean(target)); !ok {
					return "", fmt.Errorf("%s is a symlink out of the workspace: %w", p, ErrOutside)
				}
			}
			target = t
		} else {
			target = filepath.Join(filepath.Dir(p), target)
		}
		if !filepath.IsLocal(target) {
			return "", fmt.Errorf("%s is a symlink out of the workspace: %w", p, ErrOutside)
		}
		p = target
	}
	return "", fmt.Errorf("too many levels of symbolic links: %w", ErrBadPath)
}

func readCurrent(r *os.Root, p string) (data []byte, exists bool, mode fs.FileMode, err error) {
	f, err := r.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, 0o644, nil
	}
	if err != nil {
		return nil, false, 0, err
	}
	defer f.Close()
	data, fi, err := readRegular(f, filepath.ToSlash(p))
	if err != nil {
		return nil, false, 0, err
	}
	return data, true, fi.Mode().Perm(), nil
}

// writeAtomic replaces p below r with data: the rename is atomic on POSIX
// file systems, and the sync before it makes sure the new name never
// points at an empty file after a crash. Every step resolves its path
// beneath r.
func writeAtomic(root *os.Root, p string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(p)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	// The file's directory, reached with no symlink on the way; from here
	// on only single names are resolved in it.
	r, err := dirBeneath(root, dir)
	if err != nil {
		return err
	}
	defer r.Close()
	base := filepath.Base(p)
	var f *os.File
	var tmp string
	for range 10 {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		tmp = "." + base + ".agentls-" + hex.EncodeToString(rnd[:])
		f, err = r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			r.Remove(tmp)
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
	return r.Rename(tmp, base)
}
