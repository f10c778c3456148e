package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// skipCopy names directories a CheckDir leaves out: version control
// metadata, which checks should not need and whose index a tool could
// rewrite, and caches that tools recreate.
var skipCopy = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true,
	"__pycache__": true, ".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true,
}

// linkDirs names dependency and build directories, often hundreds of
// megabytes, that a CheckDir symlinks to the real ones instead of copying.
// The risk, accepted for speed: a check that writes into one of them (npm
// install, cargo's target/) writes into the real workspace's copy. Those
// are build products, never the user's sources; a directory that holds an
// unsaved file is copied instead, so an unsaved buffer never leaks into the
// real tree. Go's vendor/ is small and read by path, so it is copied.
var linkDirs = map[string]bool{
	"node_modules": true, "target": true, ".venv": true, "venv": true, ".tox": true,
}

// CheckDir is a place to run checks that sees the workspace with some files
// replaced by the editor's unsaved buffers, without writing the workspace.
type CheckDir struct {
	rewrite map[string]string // go -overlay stand-ins → real paths
	root    string
	dir     string
	dirReal string // dir with symlinks resolved, as some tools print it
	temp    bool
}

// NewCheckDir prepares root for checks with files (workspace-relative,
// slash-separated paths mapped to their buffer text) applied. With no files
// the checks run in root itself; otherwise root is copied to a temporary
// directory, files are written there, and Close removes it.
func NewCheckDir(root string, files map[string][]byte) (*CheckDir, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("check dir root %s: %w", root, err)
	}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("check dir root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("check dir root %s: not a directory", root)
	}
	if len(files) == 0 {
		return &CheckDir{root: root, dir: root, dirReal: root}, nil
	}

	rels := make(map[string][]byte, len(files))
	copyInstead := map[string]bool{} // linkDirs entries that hold an unsaved file
	for name, text := range files {
		rel := filepath.Clean(filepath.FromSlash(name))
		if !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("unsaved file %q: not inside the workspace", name)
		}
		rels[rel] = text
		for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
			if linkDirs[filepath.Base(d)] {
				copyInstead[d] = true
			}
		}
	}

	tmp, err := os.MkdirTemp("", "agentls-verify-*")
	if err != nil {
		return nil, fmt.Errorf("check dir: %w", err)
	}
	o := &CheckDir{root: root, dir: tmp, dirReal: tmp, temp: true}
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		o.dirReal = r
	}
	src := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		src = r // WalkDir does not enter a root that is itself a symlink
	}
	if err := copyTree(src, tmp, copyInstead); err != nil {
		o.Close()
		return nil, err
	}
	for rel, text := range rels {
		if err := writeUnsavedFile(tmp, rel, text); err != nil {
			o.Close()
			return nil, err
		}
	}
	return o, nil
}

// Root is the real workspace.
func (o *CheckDir) Root() string { return o.root }

// Dir is where checks run: the copy, or Root when no text was unsaved.
func (o *CheckDir) Dir() string { return o.dir }

// Close removes the copy. Symlinked directories are unlinked, never
// followed.
func (o *CheckDir) Close() error {
	if o == nil || !o.temp {
		return nil
	}
	o.temp = false
	if err := os.RemoveAll(o.dir); err != nil {
		return fmt.Errorf("remove check dir %s: %w", o.dir, err)
	}
	return nil
}

// mapText rewrites the copy's paths in a tool's output to the real root,
// so that neither the model nor the user sees the temporary directory.
func (o *CheckDir) mapText(s string) string {
	if o == nil || o.dir == o.root {
		return s
	}
	s = strings.ReplaceAll(s, o.dir, o.root)
	if o.dirReal != o.dir {
		s = strings.ReplaceAll(s, o.dirReal, o.root)
	}
	return s
}

// copyWorkers clone or copy files in parallel (see checkdir_link.go):
// creating entries waits on the filesystem more than on the CPU.
const copyWorkers = 8

func copyTree(root, dst string, copyInstead map[string]bool) error {
	jobs := make(chan [2]string, 64)
	errs := make(chan error, copyWorkers)
	var wg sync.WaitGroup
	var noClone atomic.Bool
	for range copyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			defer func() {
				if p := recover(); p != nil {
					first = fmt.Errorf("verify: copying the workspace: internal error: %v", p)
					for range jobs { // keep the walk from blocking on a worker that is gone
					}
				}
				errs <- first
			}()
			for j := range jobs {
				if first == nil {
					first = cloneFile(j[0], j[1], &noClone)
				}
			}
		}()
	}
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable corner does not stop the checks
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return nil
		}
		if p == dst {
			return filepath.SkipDir // a temporary directory inside the workspace
		}
		target := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case t.IsDir():
			if skipCopy[d.Name()] {
				return filepath.SkipDir
			}
			if linkDirs[d.Name()] && !copyInstead[rel] {
				if err := os.Symlink(p, target); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			// Directories are made here, before any file in them is queued.
			if err := os.Mkdir(target, 0o755); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return nil
			}
			if err := os.Symlink(link, target); err != nil {
				return err
			}
		case t.IsRegular():
			jobs <- [2]string{p, target}
		}
		return nil // sockets, devices and pipes are not copied
	})
	close(jobs)
	wg.Wait()
	close(errs)
	err := walkErr
	for e := range errs {
		if err == nil {
			err = e
		}
	}
	if err != nil {
		return fmt.Errorf("copy workspace: %w", err)
	}
	return nil
}

// copyWith creates dst with src's permissions, fills it with fill, and
// gives it src's modification time: make and other timestamp-driven tools
// must see the same order of ages as in the workspace.
func copyWith(src, dst string, fill func(out, in *os.File) error) error {
	// Without blocking: a file swapped for a named pipe since the walk
	// listed it must not hang the copy (and the checks) on an open that
	// waits for a writer. What is no longer a regular file is not copied.
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	if err := fill(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}

// writeUnsavedFile writes a buffer's text into the copy. It refuses paths
// that pass through a symlink, which could lead back into the real
// workspace or elsewhere.
func writeUnsavedFile(dir, rel string, text []byte) error {
	cur := dir
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	for _, part := range parts {
		if part == "." {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return fmt.Errorf("unsaved file %s: %w", rel, err)
			}
		case err != nil:
			return fmt.Errorf("unsaved file %s: %w", rel, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("unsaved file %s: %s is a symlink", rel, part)
		case !fi.IsDir():
			return fmt.Errorf("unsaved file %s: %s is not a directory", rel, part)
		}
	}
	target := filepath.Join(dir, rel)
	mode := fs.FileMode(0o644)
	if fi, err := os.Lstat(target); err == nil {
		if fi.Mode().IsRegular() {
			mode = fi.Mode().Perm() | 0o200
		}
		if fi.IsDir() {
			return fmt.Errorf("unsaved file %s: is a directory", rel)
		}
		// Replace rather than write through: the old entry may be a symlink.
		if err := os.Remove(target); err != nil {
			return fmt.Errorf("unsaved file %s: %w", rel, err)
		}
	}
	if err := os.WriteFile(target, text, mode); err != nil {
		return fmt.Errorf("unsaved file %s: %w", rel, err)
	}
	return nil
}
