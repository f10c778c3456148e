//go:build unix

package proc

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Cache layers (see Sandbox.CacheLayer) have an owner, an age and a size.
// Each workspace's directory holds owner.json (the workspace's path and
// identity; its modification time is the layers' last use) and one
// directory per slot. Pruning removes a workspace's layers when they are
// older than DefaultCacheMaxAge, when their workspace is gone or is now
// another directory, and then the least recently used until all of them
// together fit in DefaultCacheMaxBytes. It runs once per agentls process,
// after its first sandboxed command, and on `agentls sandbox prune`; it
// never removes layers a command is using. (DefaultCacheMaxAge,
// DefaultCacheMaxBytes and CacheLayer are in cachelayers.go.)

// layerSlots bounds the commands of one workspace that have cache layers
// at once (each its own: overlayfs must not share an upper directory
// between mounts); a command beyond them sees the caches read-only.
const layerSlots = 8

type owner struct {
	Workspace string `json:"workspace"`
	Identity  string `json:"identity"`
}

// layerSlot picks a free slot of the workspace's layers (dir/N), locked
// (flock) for the command's life through the returned file; nil when
// there is none. The launcher unlocks nothing: the lock dies with the
// file, which the parent closes when the command ends.
func layerSlot(dir, ws string) (string, *os.File) {
	if dir == "" {
		return "", nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil
	}
	// Pruning holds the workspace's lock exclusively while it removes.
	top, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return "", nil
	}
	defer top.Close()
	if unix.Flock(int(top.Fd()), unix.LOCK_SH) != nil {
		return "", nil
	}
	ownerFile := filepath.Join(dir, "owner.json")
	now := time.Now()
	if os.Chtimes(ownerFile, now, now) != nil {
		b, _ := json.Marshal(owner{Workspace: ws, Identity: workspaceIdentity(ws)})
		if err := os.WriteFile(ownerFile, b, 0o600); err != nil {
			return "", nil
		}
	}
	for n := range layerSlots {
		slot := filepath.Join(dir, strconv.Itoa(n))
		if err := os.MkdirAll(slot, 0o700); err != nil {
			return "", nil
		}
		f, err := os.OpenFile(filepath.Join(slot, "lock"), os.O_RDONLY|os.O_CREATE, 0o600)
		if err != nil {
			return "", nil
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			return slot, f
		}
		f.Close()
	}
	return "", nil
}

// CacheLayersDir is the directory of every workspace's cache layers:
// $XDG_STATE_HOME/agentls/sandbox.
func CacheLayersDir() string {
	d := defaultCacheLayer("/")
	if d == "" {
		return ""
	}
	return filepath.Dir(d)
}

// CacheLayers lists the layers under dir (CacheLayersDir when empty),
// the most recently used first.
func CacheLayers(dir string) ([]CacheLayer, error) {
	if dir == "" {
		if dir = CacheLayersDir(); dir == "" {
			return nil, nil
		}
	}
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []CacheLayer
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		l := CacheLayer{Dir: filepath.Join(dir, e.Name()), Orphaned: true}
		if fi, err := os.Stat(filepath.Join(l.Dir, "owner.json")); err == nil {
			l.LastUsed = fi.ModTime()
			var o owner
			if b, err := os.ReadFile(filepath.Join(l.Dir, "owner.json")); err == nil && json.Unmarshal(b, &o) == nil {
				l.Workspace = o.Workspace
				l.Orphaned = o.Identity == "" || workspaceIdentity(o.Workspace) != o.Identity
			}
		} else if fi, err := e.Info(); err == nil {
			l.LastUsed = fi.ModTime()
		}
		l.Bytes = diskUse(l.Dir)
		if unlock, ok := lockLayer(l.Dir); ok {
			unlock()
		} else {
			l.InUse = true
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b CacheLayer) int { return b.LastUsed.Compare(a.LastUsed) })
	return out, nil
}

// PruneCacheLayers removes, under dir (CacheLayersDir when empty), the
// layers not in use that are orphaned, unused for longer than maxAge
// (0: no limit) or, the least recently used first, beyond maxBytes
// altogether (0: no limit); all removes every one not in use. It returns
// those removed.
func PruneCacheLayers(dir string, maxAge time.Duration, maxBytes int64, all bool) ([]CacheLayer, error) {
	ls, err := CacheLayers(dir)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, l := range ls {
		total += l.Bytes
	}
	var removed []CacheLayer
	// The oldest first, so the size cap takes them first.
	for i := len(ls) - 1; i >= 0; i-- {
		l := ls[i]
		if l.InUse {
			continue
		}
		old := maxAge > 0 && time.Since(l.LastUsed) > maxAge
		big := maxBytes > 0 && total > maxBytes
		if !all && !l.Orphaned && !old && !big {
			continue
		}
		unlock, ok := lockLayer(l.Dir)
		if !ok {
			continue
		}
		err := removeLayer(l.Dir)
		unlock()
		if err != nil {
			return removed, err
		}
		total -= l.Bytes
		removed = append(removed, l)
	}
	return removed, nil
}

// lockLayer takes the workspace's lock and every slot's, or none when a
// command holds one. A slot's lock is taken shared: that keeps commands
// out (they take slots exclusively) and lets the warm launcher that holds
// one shared, waiting with its caches layered ahead (warm_linux.go), go on
// waiting; it takes its slot exclusively when its command comes, which
// fails while the layer is being removed, and then checks that its slot
// is still there before using it.
func lockLayer(dir string) (unlock func(), ok bool) {
	var held []*os.File
	unlock = func() {
		for _, f := range held {
			f.Close()
		}
	}
	locks := []string{filepath.Join(dir, "lock")}
	for n := range layerSlots {
		locks = append(locks, filepath.Join(dir, strconv.Itoa(n), "lock"))
	}
	for i, p := range locks {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		held = append(held, f)
		how := unix.LOCK_SH
		if i == 0 {
			how = unix.LOCK_EX
		}
		if unix.Flock(int(f.Fd()), how|unix.LOCK_NB) != nil {
			unlock()
			return nil, false
		}
	}
	return unlock, true
}

// removeLayer removes a layer (overlayfs leaves its work directories
// without permissions).
func removeLayer(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// diskUse is the disk the files under dir take.
func diskUse(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			}
		}
		return nil
	})
	return n
}

var pruned sync.Once

// pruneOnce prunes the default layers' directory with the default limits,
// once per process (after its first sandboxed command).
func pruneOnce() {
	pruned.Do(func() {
		_, _ = PruneCacheLayers("", DefaultCacheMaxAge, DefaultCacheMaxBytes, false)
	})
}
