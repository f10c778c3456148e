package verify

import (
	"io"
	"os"
	"sync/atomic"
)

// A CheckDir never shares a file with the workspace: a check that
// rewrites an unchanged file in place (gofmt -w, prettier --write,
// cargo fmt, a test that writes its fixture) must write the copy, not the
// user's file. A hard link or a symlink would let that write through, so
// each file is a reflink (FICLONE: a copy-on-write clone, as cheap as a
// link, where the file system supports it: btrfs, XFS, bcachefs) or else
// a real copy. Faster than any copy is the sandbox's overlayfs view (see
// runInView), which copies nothing; this is its fallback.

// cloneFile puts a private copy of src at dst: a reflink where the file
// system has them, else a copy. noClone turns cloning off for
// the rest of the copy after the file system refused it once.
func cloneFile(src, dst string, noClone *atomic.Bool) error {
	return copyWith(src, dst, func(out, in *os.File) error {
		if !noClone.Load() {
			if reflink(out, in) == nil {
				return nil
			}
			noClone.Store(true) // another file system, or no reflinks: copy
		}
		_, err := io.Copy(out, in)
		return err
	})
}
