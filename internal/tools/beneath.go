package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// ErrEscapes is a path that resolves outside the workspace root now (a
// directory on the way, or the file, became a symlink out of it).
var ErrEscapes = errors.New("resolves outside the workspace (a symlink on the way leads out)")

// Beneath checks, at the moment a front end is about to write rel (a
// slash-separated path relative to root) outside the tools — a review's
// accept, an undo, the editor's applyEdit — that rel and every directory
// above it resolve beneath root, following symlinks only while they stay
// inside (os.Root). The model's commands can swap a directory for a
// symlink after the task proposed a change there, so the check is made
// at the write, not when the change was planned.
func Beneath(root, rel string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	p := path.Clean(rel)
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return fmt.Errorf("%s %w", rel, ErrEscapes)
	}
	// The file itself, else its nearest existing directory: what is not
	// there yet is made beneath whatever exists.
	for {
		_, err := r.Stat(filepath.FromSlash(p))
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s %w", rel, ErrEscapes)
		}
		// A dangling symlink is "not there" to Stat: it must not lead out.
		if fi, lerr := r.Lstat(filepath.FromSlash(p)); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if target, _ := r.Readlink(filepath.FromSlash(p)); filepath.IsAbs(target) || !filepath.IsLocal(filepath.Join(filepath.Dir(filepath.FromSlash(p)), target)) {
				return fmt.Errorf("%s %w", rel, ErrEscapes)
			}
		}
		if p == "." {
			return nil
		}
		p = path.Dir(p)
	}
}
