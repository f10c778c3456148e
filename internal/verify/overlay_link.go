package verify

import (
	"io"
	"os"
	"sync/atomic"
)

// The overlay never shares a file with the workspace: a check that
// rewrites an unchanged file in place (gofmt -w, prettier --write,
// cargo fmt, a test that writes its fixture) must write the copy, not the
// user's file. A hard link or a symlink would let that write through, so
// each file is a reflink (FICLONE: a copy-on-write clone, as cheap as a
// link, where the file system supports it: btrfs, XFS, bcachefs) or else
// a real copy. The fastest overlay is the sandbox's overlayfs view (see
// viewRun), which copies nothing; this is its fallback.

// cloneFile puts a private copy of src at dst; noClone turns cloning off
// for the rest of the overlay after the file system refused it once.
func cloneFile(src, dst string, noClone *atomic.Bool) error {
	if noClone.Load() {
		return copyFile(src, dst)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	if err := reflink(out, in); err != nil {
		noClone.Store(true) // another file system, or no reflinks: copy
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}
