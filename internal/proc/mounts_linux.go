package proc

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The mounts that depend on what the workspace and the home directory hold
// run in the launcher as ordinary Go, after the view and before Landlock.
// Every one of them names its source and target by a descriptor opened
// without following a symlink (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS
// beneath the workspace) and mounts through open_tree and move_mount on
// those descriptors: a name the command's siblings can rename is looked up
// once, and what was checked is what gets mounted.

// walkLimit bounds the entries the launcher looks at for protected and
// secret names, so a huge tree cannot stall every command.
const walkLimit = 50000

const (
	beneath   = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS
	cloneTree = unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC | unix.AT_RECURSIVE | unix.AT_EMPTY_PATH
	moveByFD  = unix.MOVE_MOUNT_F_EMPTY_PATH | unix.MOVE_MOUNT_T_EMPTY_PATH
)

// openBeneath opens name below dirfd without following any symlink; with
// O_NOFOLLOW in flags a final symlink is opened itself (O_PATH).
func openBeneath(dirfd int, name string, flags uint64) (int, error) {
	return unix.Openat2(dirfd, name, &unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Resolve: beneath})
}

// mountBoundary: the view's build directories, the caches' layers, the
// protected names, the masks. It returns the caches layered, which the
// command may write; one that could not be layered stays read-only. pre
// are the caches a warm launcher layered ahead: the command's own when
// cfg.UseLayered, else unmounted first.
func mountBoundary(cfg launchConfig, m *masker, pre []string) (layered []string, err error) {
	if cfg.View {
		if err := viewThrough(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.UseLayered {
		layered = pre
	} else {
		for _, c := range pre {
			// (A cache removed or replaced since took its layer with it:
			// the kernel detaches a mount whose directory is deleted.)
			if err := unix.Unmount(c, unix.MNT_DETACH); err != nil && err != unix.ENOENT && err != unix.EINVAL {
				return nil, fmt.Errorf("unmount the layer of %s: %w", c, err)
			}
		}
		if cfg.CacheLayer != "" {
			layered = layerCaches(cfg.Root, cfg.CacheLayer)
		}
	}
	if len(cfg.Protect) > 0 || len(cfg.Secrets) > 0 {
		if err := walkWorkspace(cfg, m); err != nil {
			return nil, err
		}
	}
	if cfg.View {
		unix.Close(fdLower)
	}
	for _, p := range cfg.GitConfigs {
		// A linked worktree's repository: its config, stripped too.
		dir, err := unix.Open(filepath.Dir(p), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		fd, err := openBeneath(dir, filepath.Base(p), unix.O_PATH|unix.O_NOFOLLOW)
		if err == nil {
			err = m.showGitConfig(dir, filepath.Base(p), fd)
			unix.Close(fd)
		} else {
			err = nil
		}
		unix.Close(dir)
		if err != nil {
			return nil, fmt.Errorf("show %s: %w", p, err)
		}
	}
	if cfg.ReadOnly {
		// Last, so that the copy holds the masks and the view: Landlock
		// cannot take back from a writable parent (the temp directory)
		// what a read-only workspace beneath it must not be given.
		ws, err := unix.Open(cfg.Workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("open the workspace: %w", err)
		}
		err = bindFD(ws, ws, true)
		unix.Close(ws)
		if err != nil {
			return nil, fmt.Errorf("bind the workspace read-only: %w", err)
		}
	}
	return layered, nil
}

// viewThrough binds the real build directories over the view, each found
// beneath the real workspace (held open as fdLower) and beneath the view
// without a symlink on the way; one that is not a plain directory at
// either end stays in the view.
func viewThrough(cfg launchConfig) error {
	ws, err := unix.Open(cfg.Workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the view: %w", err)
	}
	defer unix.Close(ws)
	for _, d := range cfg.ViewThrough {
		if !filepath.IsLocal(d) {
			continue
		}
		src, err := openBeneath(fdLower, d, unix.O_PATH|unix.O_DIRECTORY)
		if err != nil {
			continue
		}
		dst, err := openBeneath(ws, d, unix.O_PATH|unix.O_DIRECTORY)
		if err != nil {
			unix.Close(src)
			continue
		}
		err = bindFD(src, dst, false)
		unix.Close(src)
		unix.Close(dst)
		if err != nil {
			return fmt.Errorf("bind %s through the view: %w", d, err)
		}
	}
	return nil
}

// layerCaches layers the copy-on-write entries of root in layers and
// returns those it layered.
func layerCaches(root []Entry, layers string) (layered []string) {
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	for _, e := range root {
		if e.Access == CopyOnWrite && cacheLayer(e.Path, layers, boot) == nil {
			layered = append(layered, e.Path)
		}
	}
	return layered
}

// bindFD mounts a copy of src's tree on dst, read-only when ro.
func bindFD(src, dst int, ro bool) error {
	t, err := unix.OpenTree(src, "", cloneTree)
	if err != nil {
		return err
	}
	defer unix.Close(t)
	if ro {
		if err := unix.MountSetattr(t, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
			return err
		}
	}
	return unix.MoveMount(t, "", dst, "", moveByFD)
}

// cacheLayer mounts an overlay on the cache dir: the real cache below, and
// above it a directory of agentls's own (per workspace, slot and cache),
// where every write lands. The user's cache is never written.
//
// The layer is mounted volatile: nothing is synced to disk when it is
// unmounted (a sync per command cost tens of milliseconds). Overlayfs
// then leaves a mark in the work directory; a mark from this boot means a
// clean unmount and is removed, one from an earlier boot (the machine
// may have crashed with the layer half written) throws the layer away.
func cacheLayer(dir, layers string, boot []byte) error {
	sum := sha256.Sum256([]byte(dir))
	base := filepath.Join(layers, hex.EncodeToString(sum[:6]))
	upper, work := filepath.Join(base, "u"), filepath.Join(base, "w")
	bootFile := filepath.Join(base, "boot")
	mark := filepath.Join(work, "work", "incompat", "volatile")
	if _, err := os.Lstat(mark); err == nil {
		if b, _ := os.ReadFile(bootFile); len(boot) == 0 || string(b) != string(boot) {
			if err := os.RemoveAll(base); err != nil {
				return err
			}
		} else if unix.Unlink(filepath.Join(mark, "dirty")) != nil || unix.Rmdir(mark) != nil || unix.Rmdir(filepath.Dir(mark)) != nil {
			// (The mark is a directory holding one empty file, "dirty",
			// in an empty directory: three calls, unless something else
			// was left there.)
			if err := os.RemoveAll(filepath.Join(work, "work")); err != nil {
				return err
			}
		}
	}
	for _, d := range []string{upper, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if b, _ := os.ReadFile(bootFile); string(b) != string(boot) {
		if err := os.WriteFile(bootFile, boot, 0o600); err != nil {
			return err
		}
	}
	lower, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(lower)
	l := "/proc/self/fd/" + strconv.Itoa(lower)
	// userxattr: overlayfs in a user namespace keeps its whiteouts and
	// opaque directories in user.overlay.* attributes (trusted.* is not
	// for it), so deleting a directory the cache holds works.
	opts := "lowerdir=" + l + ",upperdir=" + upper + ",workdir=" + work + ",volatile,userxattr"
	if err := unix.Mount("agentls-cache", l, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mount the layer (overlayfs): %w", err)
	}
	return nil
}

// protect binds name (below dirfd) read-only over itself: a file, a
// directory with all it holds, or a symlink (which then cannot be
// replaced).
func protect(dirfd int, name string) error {
	fd, err := openBeneath(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	defer unix.Close(fd)
	return bindFD(fd, fd, true)
}

// protectTarget binds read-only what the protected symlink rel resolves
// to, when that is inside the workspace (outside it, the command cannot
// write anyway). A target that does not exist is left alone.
func protectTarget(top int, rel string) error {
	fd, err := unix.Openat2(top, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	return bindFD(fd, fd, true)
}

// globs are the protected names (Sandbox.Protect) compiled for a walk that
// tests every entry: exact names are a map lookup, compared lower-case.
// (The secret files are the policy's own matcher, policy.Secrets.)
type globs struct {
	exact  map[string]bool
	suffix []string // "*x": a name ending in x ("*.code-workspace")
	base   []string // other globs on the name
}

// compileGlobs: a trailing "/" (a directory) is ignored; a protected name
// is a name, so a pattern with "/" inside matches nothing.
func compileGlobs(pats []string) globs {
	g := globs{exact: map[string]bool{}}
	for _, p := range pats {
		p = strings.ToLower(strings.TrimSuffix(p, "/"))
		switch {
		case strings.Contains(p, "/"):
		case strings.HasPrefix(p, "*") && !strings.ContainsAny(p[1:], `*?[\`):
			g.suffix = append(g.suffix, p[1:])
		case strings.ContainsAny(p, `*?[\`):
			g.base = append(g.base, p)
		case p != "":
			g.exact[p] = true
		}
	}
	return g
}

// name reports whether the lower-case name matches a pattern without "/".
func (g globs) name(lower string) bool {
	if g.exact[lower] {
		return true
	}
	for _, s := range g.suffix {
		if strings.HasSuffix(lower, s) {
			return true
		}
	}
	for _, p := range g.base {
		if ok, _ := path.Match(p, lower); ok {
			return true
		}
	}
	return false
}

// masker mounts an empty read-only file or directory over what it masks,
// cloned from a small tmpfs of its own that is never attached anywhere;
// texts (a .git/config without its credentials) come from another.
type masker struct {
	fs    int
	texts int
	n     int
}

func (m *masker) close() {
	if m.fs > 0 {
		unix.Close(m.fs)
	}
	if m.texts > 0 {
		unix.Close(m.texts)
	}
}

// maxGitConfig bounds the .git/config shown stripped; a larger one is
// masked whole.
const maxGitConfig = 1 << 20

// showGitConfig mounts, read-only over target (name below dirfd), the
// file's text without the credentials of its URLs and its extra headers
// (see StripGitCredentials).
func (m *masker) showGitConfig(dirfd int, name string, target int) error {
	fd, err := openBeneath(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK)
	if err != nil {
		return m.mask(target)
	}
	f := os.NewFile(uintptr(fd), name)
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxGitConfig {
		f.Close()
		return m.mask(target)
	}
	b := make([]byte, fi.Size())
	_, err = io.ReadFull(f, b)
	f.Close()
	if err != nil {
		return m.mask(target)
	}
	if m.texts == 0 {
		ctx, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
		if err != nil {
			return fmt.Errorf("fsopen: %w", err)
		}
		err = unix.FsconfigSetString(ctx, "size", "16m")
		if err == nil {
			err = unix.FsconfigCreate(ctx)
		}
		if err != nil {
			unix.Close(ctx)
			return err
		}
		mnt, err := unix.Fsmount(ctx, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		unix.Close(ctx)
		if err != nil {
			return fmt.Errorf("fsmount: %w", err)
		}
		m.texts = mnt
	}
	m.n++
	file := strconv.Itoa(m.n)
	out, err := unix.Openat(m.texts, file, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, uint32(fi.Mode().Perm()))
	if err != nil {
		return err
	}
	text := StripGitCredentials(b)
	_, err = unix.Write(out, text)
	unix.Close(out)
	if err != nil {
		return err
	}
	t, err := unix.OpenTree(m.texts, file, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(t)
	if err := unix.MountSetattr(t, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return err
	}
	return unix.MoveMount(t, "", target, "", moveByFD)
}

func (m *masker) init() error {
	if m.fs > 0 {
		return nil
	}
	ctx, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("fsopen: %w", err)
	}
	defer unix.Close(ctx)
	if err := unix.FsconfigSetString(ctx, "mode", "0555"); err != nil {
		return err
	}
	if err := unix.FsconfigSetString(ctx, "size", "64k"); err != nil {
		return err
	}
	if err := unix.FsconfigCreate(ctx); err != nil {
		return err
	}
	mnt, err := unix.Fsmount(ctx, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return fmt.Errorf("fsmount: %w", err)
	}
	fd, err := unix.Openat(mnt, "f", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o444)
	if err == nil {
		unix.Close(fd)
		err = unix.Mkdirat(mnt, "d", 0o555)
	}
	if err == nil {
		err = unix.Fchmodat(mnt, "d", 0o555, 0)
	}
	if err == nil {
		err = unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	}
	if err != nil {
		unix.Close(mnt)
		return err
	}
	m.fs = mnt
	return nil
}

// mask mounts the empty directory over a directory, the empty file over
// anything else (a symlink included: the mount sits on the link).
func (m *masker) mask(target int) error {
	if err := m.init(); err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(target, "", &st, unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	src := "f"
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		src = "d"
	}
	t, err := unix.OpenTree(m.fs, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(t)
	return unix.MoveMount(t, "", target, "", moveByFD)
}
