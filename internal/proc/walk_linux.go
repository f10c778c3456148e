package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/internal/policy"
)

// walkWorkspace finds the protected and secret names in what the command
// will see of the workspace, breadth first (the top first), and mounts
// over each where it was found. A directory whose record from the last
// walk stands (walkmemo_linux.go) is not read again.
func walkWorkspace(cfg launchConfig, m *masker) error {
	w, err := newWalker(cfg, m)
	if err != nil {
		return err
	}
	defer w.close()
	for len(w.queue) > 0 {
		d := w.queue[0]
		w.queue = w.queue[1:]
		stop, err := w.visit(d)
		if err != nil {
			return err
		}
		if stop {
			break
		}
	}
	if cfg.MemoOutFD > 0 {
		// Only a complete walk's records: a directory not reached this
		// time keeps none.
		if w.useMemo && len(w.queue) == 0 {
			_, _ = unix.Write(cfg.MemoOutFD, w.next.encode())
		}
		unix.Close(cfg.MemoOutFD)
	}
	return nil
}

type walkDir struct {
	// fd is the directory as the command will see it; -1 until it is
	// needed, in a view whose layer holds nothing in it (readsLower).
	fd  int
	rel string
	// in a protected directory: only its entries are looked at.
	inProtected bool
	// In a view: the same directory in the real workspace, whose ctime
	// the records go by (-1: none).
	lower int
}

type walker struct {
	cfg       launchConfig
	m         *masker
	top       int
	queue     []walkDir
	protected globs
	secrets   policy.Secrets
	seen      int
	buf       []byte
	// The records of the last walk and the next ones; the file system
	// they may be used on (useMemo false: every directory is read).
	memo, next walkMemo
	useMemo    bool
	memoDev    uint64
	settled    int64 // a directory changed after this is not recorded
	// viewLower: in a view on a fresh layer, a directory that holds no
	// file of the view is read in the real workspace (the same entries,
	// without overlayfs's lookups in two layers), and opened in the view
	// only to mount on what it holds.
	viewLower bool
}

func newWalker(cfg launchConfig, m *masker) (*walker, error) {
	root, err := unix.Open(cfg.Workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	top, err := unix.Open(cfg.Workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(root)
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	w := &walker{cfg: cfg, m: m, top: top, protected: compileGlobs(cfg.Protect), secrets: policy.CompileSecrets(cfg.Secrets),
		buf: make([]byte, direntBuf), memo: readMemoFD(cfg.MemoFD), next: walkMemo{}}
	// In a view on a fresh layer, a directory that holds no file of the
	// view is its real one as it is: its record is the real one's.
	viewMemo := cfg.View && cfg.ViewLayer == ""
	lowerRoot := -1
	if viewMemo {
		if fd, err := openBeneath(fdLower, ".", unix.O_PATH|unix.O_DIRECTORY); err == nil {
			lowerRoot = fd
		}
	}
	w.queue = []walkDir{{fd: root, lower: lowerRoot}}
	var rootSt unix.Stat_t
	var rootFS unix.Statfs_t
	statRoot := root // the directory whose file system the records are on
	if cfg.View {
		statRoot = lowerRoot
	}
	var now unix.Timespec
	w.useMemo = cfg.MemoOutFD > 0 && (!cfg.View || viewMemo && lowerRoot >= 0) &&
		unix.Fstat(statRoot, &rootSt) == nil && unix.Fstatfs(statRoot, &rootFS) == nil && memoFS[int64(rootFS.Type)] &&
		unix.ClockGettime(unix.CLOCK_REALTIME, &now) == nil
	w.memoDev, w.settled = rootSt.Dev, now.Nano()-memoAge
	w.viewLower = lowerRoot >= 0
	return w, nil
}

func (w *walker) close() {
	unix.Close(w.top)
	for _, d := range w.queue {
		closeDir(d.fd, d.lower)
	}
}

// readsLower reports whether d is read in the real workspace.
func (w *walker) readsLower(d *walkDir) bool {
	return w.viewLower && d.lower >= 0 && !w.cfg.viewDirs[d.rel]
}

// seen opens d as the command will see it, if it is not yet; -1 when it
// cannot be.
func (w *walker) seenFD(d *walkDir) int {
	if d.fd < 0 {
		if fd, err := openBeneath(w.top, d.rel, unix.O_PATH|unix.O_DIRECTORY); err == nil {
			d.fd = fd
		}
	}
	return d.fd
}

// visit looks at d's entries, from its record when it stands, and closes
// it; stop: the walk's limit was reached.
func (w *walker) visit(d walkDir) (stop bool, err error) {
	defer func() { closeDir(d.fd, d.lower) }()
	// d's identity and ctime, read before its entries (in a view, its
	// real directory's, unless the view has files in it).
	var st unix.Stat_t
	statFD := d.fd
	if w.cfg.View {
		statFD = d.lower
	}
	memoOK := w.useMemo && statFD >= 0 && !(w.cfg.View && w.cfg.viewDirs[d.rel]) && unix.Fstat(statFD, &st) == nil && st.Dev == w.memoDev
	if r, ok := w.memo[d.rel]; memoOK && ok && r.dev == st.Dev && r.ino == st.Ino && r.ctime == st.Ctim.Nano() &&
		r.ctime < w.settled && w.seen+r.count <= walkLimit {
		// Unchanged since it was read: its entries are the record's.
		w.seen += r.count
		for _, h := range r.hits {
			if err := w.act(&d, h.name, h.typ); err != nil {
				return false, err
			}
		}
		w.next[d.rel] = r
		return false, nil
	}
	rec := dirMemo{dev: st.Dev, ino: st.Ino, ctime: st.Ctim.Nano()}
	// (Directories are held as O_PATH, cheaper to open: one whose record
	// stands is never read.)
	readFD := d.fd
	if w.readsLower(&d) {
		readFD = d.lower
	}
	rd, err := unix.Openat(readFD, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, nil // unreadable: no entries
	}
	defer unix.Close(rd)
	err = readDir(rd, w.buf, func(name string, typ uint8) error {
		if w.seen++; w.seen > walkLimit {
			return errWalkLimit
		}
		rec.count++
		if typ == unix.DT_UNKNOWN {
			// A file system without types in its entries.
			var st unix.Stat_t
			if unix.Fstatat(readFD, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				return nil // gone
			}
			typ = direntType(st.Mode)
		}
		// The record keeps every entry act may do something with, in a
		// protected directory or not.
		if w.protected.name(strings.ToLower(name)) || w.secrets.Match(join(d.rel, name), name) || typ == unix.DT_DIR && !skipDirs[name] {
			rec.hits = append(rec.hits, memoEntry{name: name, typ: typ})
		}
		return w.act(&d, name, typ)
	})
	if err == errWalkLimit {
		return true, nil
	}
	if errors.Is(err, errUnread) {
		// Read in part (an I/O error): what was read is acted on, and
		// no record is kept, which would hide the rest until d changes.
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if memoOK && rec.ctime < w.settled {
		w.next[d.rel] = rec
	}
	return false, nil
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// act is what the walk does with one entry of d.
func (w *walker) act(d *walkDir, name string, typ uint8) error {
	lower := strings.ToLower(name)
	rel := join(d.rel, name)
	if !d.inProtected && w.protected.name(lower) {
		if err := protect(w.seenFD(d), name); err != nil {
			return fmt.Errorf("protect %s: %w", rel, err)
		}
		if typ == unix.DT_LNK {
			// .husky -> tools/husky: what git runs through the name is
			// the target; protect it too.
			if err := protectTarget(w.top, rel); err != nil {
				return fmt.Errorf("protect the target of %s: %w", rel, err)
			}
		}
		if typ == unix.DT_DIR {
			w.sub(d, name, rel, true)
		}
		return nil
	}
	if w.secrets.Match(rel, name) {
		fd, err := openBeneath(w.seenFD(d), name, unix.O_PATH|unix.O_NOFOLLOW)
		if err != nil {
			return nil // gone: nothing to read
		}
		if lower == "config" && strings.EqualFold(path.Base(d.rel), ".git") && typ == unix.DT_REG {
			// git's own configuration: shown without the credentials,
			// so git status and git remote -v work.
			err = w.m.showGitConfig(d.fd, name, fd) // (d.fd: opened just above)
		} else {
			err = w.m.mask(fd)
		}
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("mask %s: %w", rel, err)
		}
		return nil
	}
	if typ == unix.DT_DIR && !d.inProtected && !skipDirs[name] {
		w.sub(d, name, rel, false)
	}
	return nil
}

// sub opens name below d (without following a symlink) to walk it, and
// its real directory in a view.
func (w *walker) sub(d *walkDir, name, rel string, inProtected bool) {
	if w.unchangedLeaf(d, name, rel) {
		return
	}
	if w.readsLower(d) && !w.cfg.viewDirs[rel] {
		if l, err := openBeneath(d.lower, name, unix.O_PATH|unix.O_DIRECTORY); err == nil {
			w.queue = append(w.queue, walkDir{fd: -1, rel: rel, inProtected: inProtected, lower: l})
			return
		}
	}
	fd, err := openBeneath(w.seenFD(d), name, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return
	}
	lower := -1
	if d.lower >= 0 {
		if l, err := openBeneath(d.lower, name, unix.O_PATH|unix.O_DIRECTORY); err == nil {
			lower = l
		}
	}
	w.queue = append(w.queue, walkDir{fd: fd, rel: rel, inProtected: inProtected, lower: lower})
}

// unchangedLeaf reports whether the directory name below d is one whose
// record stands and holds nothing the walk acts on (no protected or secret
// name, no directory to walk): it is not opened, its identity and ctime
// are read beneath its parent, and its record is kept. Most directories
// of a tree are such leaves.
func (w *walker) unchangedLeaf(d *walkDir, name, rel string) bool {
	r, ok := w.memo[rel]
	if !ok || len(r.hits) > 0 || !w.useMemo || w.cfg.View && w.cfg.viewDirs[rel] {
		return false
	}
	parent := d.fd
	if w.cfg.View {
		parent = d.lower // the records are the real directories'
	}
	var st unix.Stat_t
	if parent < 0 || unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	if st.Dev != w.memoDev || r.dev != st.Dev || r.ino != st.Ino || r.ctime != st.Ctim.Nano() || r.ctime >= w.settled || w.seen+r.count > walkLimit {
		return false
	}
	w.seen += r.count
	w.next[rel] = r
	return true
}

func closeDir(fd, lower int) {
	if fd >= 0 {
		unix.Close(fd)
	}
	if lower >= 0 {
		unix.Close(lower)
	}
}

// direntBuf is the buffer the walk reads directories with: most of a
// workspace's directories in one getdents64 call.
const direntBuf = 32 << 10

var errWalkLimit = errors.New("walk limit")

// errUnread: a directory could not be read to its end.
var errUnread = errors.New("directory not read to its end")

// readDir calls fn with the name and type (DT_*) of each entry of the
// directory open as fd but "." and "..", reading it into buf with
// getdents64 (no lstat, no entry objects: the walk runs before every
// command). fn's error stops it; a directory that cannot be read (to its
// end) returns an error wrapping errUnread after the entries it gave.
func readDir(fd int, buf []byte, fn func(name string, typ uint8) error) error {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("%w: %w", errUnread, err)
		}
		if n <= 0 {
			return nil
		}
		for off := 0; off+19 <= n; {
			// struct linux_dirent64: ino, off, reclen, type, name.
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return fmt.Errorf("%w: a malformed entry", errUnread)
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
