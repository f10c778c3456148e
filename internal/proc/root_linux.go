package proc

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// The declared root. After the mounts that depend on the workspace (the
// view, the caches' layers, the protected names, the masks) are made on
// the paths of the launcher's mount namespace, the launcher clones each
// declared path's tree (open_tree, recursive: with those mounts), builds
// a new root on a tmpfs of its own holding only the clones, /proc of its
// PID namespace and a few devices, and pivots into it. The old root is
// detached: nothing else exists for the command, by any path.

// attachAt is where the new root is attached in the launcher's mount
// namespace while it is built (every source is cloned before, so what the
// attachment hides does not matter).
const attachAt = "/tmp"

// devices are bound from the host's /dev into the new one.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// buildRoot makes the new root from cfg.Root and pivots into it. layered
// says which copy-on-write entries got a layer (the others are read-only).
func buildRoot(cfg launchConfig, layered map[string]bool) error {
	var clones []clonedEntry
	defer func() {
		for _, c := range clones {
			if c.fd >= 0 {
				unix.Close(c.fd)
			}
		}
	}()
	clones, err := cloneDeclared(cfg, layered, clones)
	if err != nil {
		return err
	}
	devs := cloneDevices()
	defer func() {
		for _, fd := range devs {
			unix.Close(fd)
		}
	}()
	root, err := attachNewRoot()
	if err != nil {
		return err
	}
	defer unix.Close(root)
	if err := placeClones(root, clones, devs); err != nil {
		return err
	}
	return pivotInto(root)
}

// clonedEntry is a declared entry and the clone of its tree (-1: an entry
// that is made, not cloned).
type clonedEntry struct {
	e  Entry
	fd int
}

// cloneDeclared clones the tree of each declared path that is bound
// (read-only unless it is the workspace or a layered copy-on-write
// entry), appending to clones, which the caller closes even on error.
func cloneDeclared(cfg launchConfig, layered map[string]bool, clones []clonedEntry) ([]clonedEntry, error) {
	for _, e := range cfg.Root {
		switch e.Access {
		case ReadOnly, ReadWrite, CopyOnWrite:
		default:
			clones = append(clones, clonedEntry{e: e, fd: -1})
			continue
		}
		t, err := unix.OpenTree(unix.AT_FDCWD, e.Path, cloneTree&^unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone since it was declared
			}
			return clones, fmt.Errorf("clone %s: %w", e.Path, err)
		}
		ro := e.Access == ReadOnly && e.Path != cfg.Workspace || e.Access == CopyOnWrite && !layered[e.Path]
		if ro {
			if err := unix.MountSetattr(t, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
				unix.Close(t)
				return clones, fmt.Errorf("read-only %s: %w", e.Path, err)
			}
		}
		clones = append(clones, clonedEntry{e: e, fd: t})
	}
	return clones, nil
}

// cloneDevices clones the host's devices the new /dev holds (-1: one
// that could not be cloned).
func cloneDevices() []int {
	var devs []int
	for _, d := range devices {
		t, err := unix.OpenTree(unix.AT_FDCWD, "/dev/"+d, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			t = -1
		}
		devs = append(devs, t)
	}
	return devs
}

// attachNewRoot makes the new root, a tmpfs, attaches it at attachAt
// while it is built, and returns it open.
func attachNewRoot() (int, error) {
	fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen: %w", err)
	}
	err = unix.FsconfigSetString(fsfd, "mode", "0755")
	if err == nil {
		err = unix.FsconfigCreate(fsfd)
	}
	if err != nil {
		unix.Close(fsfd)
		return -1, fmt.Errorf("the new root: %w", err)
	}
	mnt, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOSUID)
	unix.Close(fsfd)
	if err != nil {
		return -1, fmt.Errorf("fsmount: %w", err)
	}
	err = unix.MoveMount(mnt, "", unix.AT_FDCWD, attachAt, unix.MOVE_MOUNT_F_EMPTY_PATH)
	unix.Close(mnt)
	if err != nil {
		return -1, fmt.Errorf("attach the new root: %w", err)
	}
	root, err := unix.Open(attachAt, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open the new root: %w", err)
	}
	return root, nil
}

// placeClones puts each declared entry in the new root: its symlink, its
// private directory, its own /proc or /dev, or its cloned tree mounted at
// its path.
func placeClones(root int, clones []clonedEntry, devs []int) error {
	var binds []string
	for _, c := range clones {
		e := c.e
		switch e.Access {
		case Symlink:
			parent, name, err := makeParents(root, e.Path, binds)
			if err != nil {
				continue
			}
			// (A link that cannot be made, below a read-only declared
			// path, is left out: it only names what is declared.)
			_ = unix.Symlinkat(e.Target, parent, name)
			unix.Close(parent)
		case Private:
			parent, name, err := makeParents(root, e.Path, binds)
			if err != nil {
				continue
			}
			mode := uint32(0o755)
			if e.Path == "/tmp" || e.Path == "/dev/shm" {
				mode = 0o1777
			}
			if err := unix.Mkdirat(parent, name, mode); err == nil {
				err = unix.Fchmodat(parent, name, mode, 0)
			}
			unix.Close(parent)
		case Own:
			if err := ownFS(root, e.Path, devs); err != nil {
				return err
			}
		default:
			var st unix.Stat_t
			if err := unix.Fstatat(c.fd, "", &st, unix.AT_EMPTY_PATH); err != nil {
				return fmt.Errorf("stat %s: %w", e.Path, err)
			}
			target, err := makeTarget(root, e.Path, st.Mode&unix.S_IFMT == unix.S_IFDIR, binds)
			if err != nil {
				continue // below a declared path that does not hold it
			}
			err = unix.MoveMount(c.fd, "", target, "", moveByFD)
			unix.Close(target)
			if err != nil {
				return fmt.Errorf("mount %s: %w", e.Path, err)
			}
			binds = append(binds, e.Path)
		}
	}
	return nil
}

// pivotInto makes root the root and detaches the old one.
func pivotInto(root int) error {
	if err := unix.Fchdir(root); err != nil {
		return fmt.Errorf("chdir to the new root: %w", err)
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the old root: %w", err)
	}
	return unix.Chdir("/")
}

// ownFS mounts /proc or fills /dev.
func ownFS(root int, p string, devs []int) error {
	dir, err := mkdirAllAt(root, strings.TrimPrefix(p, "/"))
	if err != nil {
		return fmt.Errorf("mkdir %s: %w", p, err)
	}
	defer unix.Close(dir)
	switch p {
	case "/proc":
		// Mounted while the old root, with its /proc, is still visible
		// (a user namespace may mount a proc only then).
		if err := unix.Mount("proc", attachAt+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount /proc: %w", err)
		}
	case "/dev":
		for i, d := range devices {
			if devs[i] < 0 {
				continue
			}
			fd, err := unix.Openat(dir, d, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o666)
			if err != nil {
				return fmt.Errorf("/dev/%s: %w", d, err)
			}
			unix.Close(fd)
			if err := unix.MoveMount(devs[i], "", dir, d, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
				return fmt.Errorf("/dev/%s: %w", d, err)
			}
		}
		for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0",
			"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx"} {
			if err := unix.Symlinkat(target, dir, name); err != nil {
				return fmt.Errorf("/dev/%s: %w", name, err)
			}
		}
		if err := unix.Mkdirat(dir, "pts", 0o755); err != nil {
			return fmt.Errorf("/dev/pts: %w", err)
		}
		// Pseudo-terminals of its own; none of the user's.
		_ = unix.Mount("devpts", attachAt+"/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
	}
	return nil
}

// makeParents creates, below root, the directories on the way to p (none
// inside a declared path already mounted: that is the user's file system)
// and returns the last one open and p's name.
func makeParents(root int, p string, binds []string) (int, string, error) {
	rel := strings.TrimPrefix(filepath.Clean(p), "/")
	dir, name := filepath.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	for _, b := range binds {
		if within("/"+dir, b) {
			fd, err := openBeneath(root, dirOrDot(dir), unix.O_PATH|unix.O_DIRECTORY)
			return fd, name, err
		}
	}
	fd, err := mkdirAllAt(root, dir)
	return fd, name, err
}

func dirOrDot(d string) string {
	if d == "" {
		return "."
	}
	return d
}

// makeTarget is the mount point of p below root: made (a directory, or an
// empty file) unless it lies in a declared path already mounted, where it
// must exist.
func makeTarget(root int, p string, dir bool, binds []string) (int, error) {
	parent, name, err := makeParents(root, p, binds)
	if err != nil {
		return -1, err
	}
	defer unix.Close(parent)
	if fd, err := openBeneath(parent, name, unix.O_PATH|unix.O_NOFOLLOW); err == nil {
		return fd, nil
	}
	for _, b := range binds {
		if within(p, b) {
			return -1, unix.ENOENT
		}
	}
	if dir {
		err = unix.Mkdirat(parent, name, 0o755)
	} else {
		var fd int
		if fd, err = unix.Openat(parent, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o644); err == nil {
			unix.Close(fd)
		}
	}
	if err != nil {
		return -1, err
	}
	return openBeneath(parent, name, unix.O_PATH|unix.O_NOFOLLOW)
}

// mkdirAllAt makes rel's directories below root (in the new root's own
// tmpfs) and returns the last one open.
func mkdirAllAt(root int, rel string) (int, error) {
	fd, err := unix.Dup(root)
	if err != nil {
		return -1, err
	}
	if rel == "" || rel == "." {
		return fd, nil
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "" {
			continue
		}
		next, err := openBeneath(fd, part, unix.O_PATH|unix.O_DIRECTORY)
		if errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, part, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openBeneath(fd, part, unix.O_PATH|unix.O_DIRECTORY)
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// maskDenied masks, in the new root, every DenyRead path and the cache
// layers' directory, where a declared path holds them.
func maskDenied(cfg launchConfig, m *masker) error {
	deny := cfg.DenyRead
	if cfg.CacheLayer != "" {
		deny = append(deny, cfg.CacheLayer)
	}
	for _, p := range deny {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // nothing there to read
		}
		err = m.mask(fd)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("mask %s: %w", p, err)
		}
	}
	return nil
}
