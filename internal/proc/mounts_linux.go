package proc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
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

	"github.com/agentls/agentls/internal/policy"
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
// protected names, the masks. It returns the caches it layered, which the
// command may write; one it could not layer stays read-only.
func mountBoundary(cfg launchConfig, m *masker) (layered []string, err error) {
	if cfg.View {
		if err := viewThrough(cfg); err != nil {
			return nil, err
		}
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if cfg.CacheLayer != "" {
		for _, e := range cfg.Root {
			if e.Access == CopyOnWrite && cacheLayer(e.Path, cfg.CacheLayer, boot) == nil {
				layered = append(layered, e.Path)
			}
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

// walkWorkspace finds the protected and secret names in what the command
// will see of the workspace, breadth first (the top first), and mounts
// over each where it was found.
func walkWorkspace(cfg launchConfig, m *masker) error {
	root, err := unix.Open(cfg.Workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the workspace: %w", err)
	}
	top, err := unix.Open(cfg.Workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(root)
		return fmt.Errorf("open the workspace: %w", err)
	}
	defer unix.Close(top)
	type dir struct {
		fd  int
		rel string
		// in a protected directory: only its entries are looked at.
		inProtected bool
		// In a view: the same directory in the real workspace, whose
		// ctime the records go by (-1: none).
		lower int
	}
	// In a view on a fresh layer, a directory that holds no file of the
	// view is its real one as it is: its record is the real one's.
	viewMemo := cfg.View && cfg.ViewLayer == ""
	lowerRoot := -1
	if viewMemo {
		if fd, err := openBeneath(fdLower, ".", unix.O_PATH|unix.O_DIRECTORY); err == nil {
			lowerRoot = fd
		}
	}
	queue := []dir{{fd: root, lower: lowerRoot}}
	defer func() {
		for _, d := range queue {
			closeDir(d.fd, d.lower)
		}
	}()
	// sub opens name below d (without following a symlink) to walk it,
	// and its real directory in a view.
	sub := func(d dir, name, rel string, inProtected bool) {
		fd, err := openBeneath(d.fd, name, unix.O_PATH|unix.O_DIRECTORY)
		if err != nil {
			return
		}
		lower := -1
		if d.lower >= 0 {
			if l, err := openBeneath(d.lower, name, unix.O_PATH|unix.O_DIRECTORY); err == nil {
				lower = l
			}
		}
		queue = append(queue, dir{fd: fd, rel: rel, inProtected: inProtected, lower: lower})
	}
	protected, secrets := compileGlobs(cfg.Protect), policy.CompileSecrets(cfg.Secrets)
	// The records of the last walk, and the file system they may be used
	// on (none: every directory is read).
	memo, next := readMemoFD(cfg.MemoFD), walkMemo{}
	var memoDev uint64
	var rootSt unix.Stat_t
	var rootFS unix.Statfs_t
	statRoot := root // the directory whose file system the records are on
	if cfg.View {
		statRoot = lowerRoot
	}
	useMemo := cfg.MemoOutFD > 0 && (!cfg.View || viewMemo && lowerRoot >= 0) &&
		unix.Fstat(statRoot, &rootSt) == nil && unix.Fstatfs(statRoot, &rootFS) == nil && memoFS[int64(rootFS.Type)]
	if useMemo {
		memoDev = rootSt.Dev
	}
	var now unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME, &now) != nil {
		useMemo = false
	}
	settled := now.Nano() - memoAge
	seen := 0
	buf := make([]byte, direntBuf)
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		// act is what the walk does with one entry of d.
		act := func(name string, typ uint8) error {
			lower := strings.ToLower(name)
			rel := name
			if d.rel != "" {
				rel = d.rel + "/" + name
			}
			if !d.inProtected && protected.name(lower) {
				if err := protect(d.fd, name); err != nil {
					return fmt.Errorf("protect %s: %w", rel, err)
				}
				if typ == unix.DT_LNK {
					// .husky -> tools/husky: what git runs through the
					// name is the target; protect it too.
					if err := protectTarget(top, rel); err != nil {
						return fmt.Errorf("protect the target of %s: %w", rel, err)
					}
				}
				if typ == unix.DT_DIR {
					sub(d, name, rel, true)
				}
				return nil
			}
			if secrets.Match(rel, name) {
				fd, err := openBeneath(d.fd, name, unix.O_PATH|unix.O_NOFOLLOW)
				if err != nil {
					return nil // gone: nothing to read
				}
				if lower == "config" && strings.EqualFold(path.Base(d.rel), ".git") && typ == unix.DT_REG {
					// git's own configuration: shown without the
					// credentials, so git status and git remote -v work.
					err = m.showGitConfig(d.fd, name, fd)
				} else {
					err = m.mask(fd)
				}
				unix.Close(fd)
				if err != nil {
					return fmt.Errorf("mask %s: %w", rel, err)
				}
				return nil
			}
			if typ == unix.DT_DIR && !d.inProtected && !skipDirs[name] {
				sub(d, name, rel, false)
			}
			return nil
		}
		// d's identity and ctime, read before its entries (in a view,
		// its real directory's, unless the view has files in it).
		var st unix.Stat_t
		statFD := d.fd
		if cfg.View {
			statFD = d.lower
		}
		memoOK := useMemo && statFD >= 0 && !(cfg.View && cfg.viewDirs[d.rel]) && unix.Fstat(statFD, &st) == nil && st.Dev == memoDev
		if r, ok := memo[d.rel]; memoOK && ok && r.dev == st.Dev && r.ino == st.Ino && r.ctime == st.Ctim.Nano() &&
			r.ctime < settled && seen+r.count <= walkLimit {
			// Unchanged since it was read: its entries are the record's.
			seen += r.count
			var err error
			for _, h := range r.hits {
				if err = act(h.name, h.typ); err != nil {
					break
				}
			}
			closeDir(d.fd, d.lower)
			if err != nil {
				return err
			}
			next[d.rel] = r
			continue
		}
		rec := dirMemo{dev: st.Dev, ino: st.Ino, ctime: st.Ctim.Nano()}
		// (Directories are held as O_PATH, cheaper to open: one whose
		// record stands is never read.)
		rd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			closeDir(d.fd, d.lower)
			continue // unreadable: no entries, as before
		}
		err = readDir(rd, buf, func(name string, typ uint8) error {
			if seen++; seen > walkLimit {
				return errWalkLimit
			}
			rec.count++
			if typ == unix.DT_UNKNOWN {
				// A file system without types in its entries.
				var st unix.Stat_t
				if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					return nil // gone
				}
				typ = direntType(st.Mode)
			}
			// Every entry act may do something with, in a protected
			// directory or not.
			rel := name
			if d.rel != "" {
				rel = d.rel + "/" + name
			}
			if protected.name(strings.ToLower(name)) || secrets.Match(rel, name) || typ == unix.DT_DIR && !skipDirs[name] {
				rec.hits = append(rec.hits, memoEntry{name: name, typ: typ})
			}
			return act(name, typ)
		})
		unix.Close(rd)
		closeDir(d.fd, d.lower)
		if err == errWalkLimit {
			break
		}
		if err != nil {
			return err
		}
		if memoOK && rec.ctime < settled {
			next[d.rel] = rec
		}
	}
	if cfg.MemoOutFD > 0 {
		// Only a complete walk's records: a directory not reached this
		// time keeps none.
		if useMemo && len(queue) == 0 {
			_, _ = unix.Write(cfg.MemoOutFD, next.encode())
		}
		unix.Close(cfg.MemoOutFD)
	}
	return nil
}

func closeDir(fd, lower int) {
	unix.Close(fd)
	if lower >= 0 {
		unix.Close(lower)
	}
}

// direntBuf is the buffer the walk reads directories with: most of a
// workspace's directories in one getdents64 call.
const direntBuf = 32 << 10

var errWalkLimit = errors.New("walk limit")

// readDir calls fn with the name and type (DT_*) of each entry of the
// directory open as fd but "." and "..", reading it into buf with
// getdents64 (no lstat, no entry objects: the walk runs before every
// command). An unreadable directory has no entries; fn's error stops it.
func readDir(fd int, buf []byte, fn func(name string, typ uint8) error) error {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return nil
		}
		for off := 0; off+19 <= n; {
			// struct linux_dirent64: ino, off, reclen, type, name.
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return nil
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			if err := fn(string(name), typ); err != nil {
				return err
			}
		}
	}
}

func direntType(mode uint32) uint8 {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFLNK:
		return unix.DT_LNK
	case unix.S_IFREG:
		return unix.DT_REG
	}
	return unix.DT_UNKNOWN
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
