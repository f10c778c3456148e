package verify

import (
	"os"
	"path/filepath"
	"sync/atomic"
)

// The overlay hard-links the workspace's files instead of copying them:
// one link(2) per file instead of open, create, copy, close and chtimes.
// A link has the real file's content, mode and modification time, and its
// path stays inside the overlay, so relative imports and includes resolve
// against the overlay as with a copy (a symlink would send tools that
// resolve real paths, such as node, back into the workspace). The files
// that differ from disk (the buffers) replace their link: writeOverlayFile
// removes the entry before writing, never writing through it.
//
// The risk, accepted for speed as with linkDirs: a check that rewrites an
// existing file in place writes the workspace's file. Checks read sources;
// the files package managers and tools rewrite (lock files, manifests) are
// copied, never linked. A file system without hard links across the two
// directories (the overlay lives in the temporary directory) falls back to
// copying.

// copyNames are files tools rewrite in place during a build or test run.
var copyNames = map[string]bool{
	"Cargo.lock": true, "Cargo.toml": true, "package-lock.json": true, "package.json": true,
	"yarn.lock": true, "pnpm-lock.yaml": true, "poetry.lock": true, "uv.lock": true,
	"Pipfile.lock": true, "composer.lock": true, "Gemfile.lock": true, "go.sum": true, "go.mod": true,
	"tsconfig.tsbuildinfo": true,
}

// linkFile puts src at dst, by a hard link where it can; noLink turns
// linking off for the rest of the overlay after a failure.
func linkFile(src, dst string, noLink *atomic.Bool) error {
	if !noLink.Load() && !copyNames[filepath.Base(src)] {
		if err := os.Link(src, dst); err == nil {
			return nil
		}
		noLink.Store(true) // another file system, or links refused: copy
	}
	return copyFile(src, dst)
}
