package tools

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/policy"
)

// linkIndex keeps, for one workspace, every directory's protected symlinks
// (policy.Protected names them), so that the question every write asks
// costs one lstat per directory rather than a read of the whole tree
// (BenchmarkProtectedWrite). A directory is read again when its
// modification time or inode differs from when it was read, or when that
// time was too close to the read to tell a later change from it (the
// "racy" rule git uses for its index): a link created in a directory, or
// a directory renamed, created or removed, changes the directory that
// holds it.
type linkIndex struct {
	root string
	mu   sync.Mutex
	dirs map[string]*dirEntry // by '/'-separated path relative to root; "." is root
}

type dirEntry struct {
	mtime  time.Time
	ino    uint64
	readAt time.Time
	subs   []string // subdirectories (not links), relative to root
	links  []string // protected symlinks in it, relative to root
}

// racyWindow is how close to its read a directory's modification time
// may be and still be trusted: file systems stamp times with a coarse
// clock (a jiffy), so a change made just after the read can carry the
// same time.
const racyWindow = 2 * time.Second

// maxLinkIndexes bounds the workspaces whose index is kept: a server
// that runs many worktree tasks (a workspace each) keeps the most recently
// used ones; another is read whole again on its next write.
const maxLinkIndexes = 8

var linkIndexes struct {
	sync.Mutex
	m    map[string]*linkIndex // by real root
	used map[string]uint64
	tick uint64
}

func indexOf(realRoot string) *linkIndex {
	li := &linkIndexes
	li.Lock()
	defer li.Unlock()
	if li.m == nil {
		li.m, li.used = map[string]*linkIndex{}, map[string]uint64{}
	}
	li.tick++
	li.used[realRoot] = li.tick
	if ix, ok := li.m[realRoot]; ok {
		return ix
	}
	if len(li.m) >= maxLinkIndexes {
		oldest := ""
		for r := range li.m {
			if oldest == "" || li.used[r] < li.used[oldest] {
				oldest = r
			}
		}
		delete(li.m, oldest)
		delete(li.used, oldest)
	}
	ix := &linkIndex{root: realRoot, dirs: map[string]*dirEntry{}}
	li.m[realRoot] = ix
	return ix
}

// links brings the index up to date and returns the protected symlinks.
func (ix *linkIndex) links() []string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if _, ok := ix.dirs["."]; !ok {
		ix.read(".")
	}
	// Directories whose parent was read again may be gone from the map
	// meanwhile; iterate over a copy of the keys.
	keys := make([]string, 0, len(ix.dirs))
	for k := range ix.dirs {
		keys = append(keys, k)
	}
	for _, rel := range keys {
		d, ok := ix.dirs[rel]
		if !ok {
			continue
		}
		mtime, ino, err := dirStamp(filepath.Join(ix.root, filepath.FromSlash(rel)))
		switch {
		case err != nil:
			ix.drop(rel)
		case !mtime.Equal(d.mtime) || ino != d.ino || d.readAt.Sub(d.mtime) < racyWindow:
			ix.read(rel)
		}
	}
	var out []string
	for _, d := range ix.dirs {
		out = append(out, d.links...)
	}
	return out
}

// read (re)reads the directory rel and every subdirectory it holds that
// the index does not know yet; subdirectories gone from it are dropped.
func (ix *linkIndex) read(rel string) {
	abs := filepath.Join(ix.root, filepath.FromSlash(rel))
	readAt := time.Now()
	// The stamp before the entries: a change during the read leaves a
	// newer time, read again next time.
	mtime, ino, err := dirStamp(abs)
	if err != nil {
		ix.drop(rel)
		return
	}
	ents, err := readDirUnsorted(abs)
	if err != nil {
		ix.drop(rel)
		return
	}
	d := &dirEntry{mtime: mtime, ino: ino, readAt: readAt}
	old := ix.dirs[rel]
	ix.dirs[rel] = d
	for _, e := range ents {
		sub := e.Name()
		if rel != "." {
			sub = rel + "/" + e.Name()
		}
		switch t := e.Type(); {
		case t.IsDir():
			// git's object store holds no link that runs anything, and
			// is the largest directory of a repository.
			if e.Name() == "objects" && inGitDir(path.Dir(sub)) {
				continue
			}
			d.subs = append(d.subs, sub)
			if _, known := ix.dirs[sub]; !known {
				ix.read(sub)
			}
		case t&fs.ModeSymlink != 0:
			if ok, _ := policy.Protected(sub); ok {
				d.links = append(d.links, sub)
			}
		}
	}
	if old != nil {
		kept := map[string]bool{}
		for _, s := range d.subs {
			kept[s] = true
		}
		for _, s := range old.subs {
			if !kept[s] {
				ix.drop(s)
			}
		}
	}
}

// drop forgets rel and everything below it.
func (ix *linkIndex) drop(rel string) {
	d, ok := ix.dirs[rel]
	if !ok {
		return
	}
	delete(ix.dirs, rel)
	for _, s := range d.subs {
		ix.drop(s)
	}
}

// dirStamp is a directory's modification time and inode, not following a
// link (a directory swapped for a link is a change).
func dirStamp(abs string) (time.Time, uint64, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return time.Time{}, 0, err
	}
	if !fi.IsDir() {
		return time.Time{}, 0, fs.ErrInvalid
	}
	return fi.ModTime(), inodeOf(fi), nil
}

// readDirUnsorted lists a directory without sorting (the order does not
// matter here, and sorting a large directory costs).
func readDirUnsorted(abs string) ([]fs.DirEntry, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
