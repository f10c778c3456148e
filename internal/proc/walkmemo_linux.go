package proc

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The walk's memo. Reading every directory of the workspace was most of
// the walk's cost, and the walk runs before every command; most
// directories have not changed since the last one. A directory's record
// holds what the walk acts on in it (the entries that match a protected
// name or a secret file, and the subdirectories it descends into) and is
// used instead of reading the directory only while the directory is the
// same inode, on the workspace's file system, with the same ctime.
//
// Why the ctime is enough: the kernel sets a directory's ctime to the
// current time whenever an entry is created, removed or renamed in it (or
// its attributes change), and no system call sets it to a chosen value
// (utimensat sets the ctime to now). A record is kept only when the
// directory's ctime, read before its entries, is older than memoAge
// before the walk began, so any later change, even one racing with the
// reading, gives the directory a newer ctime than the record's. File
// systems whose ctime is not the kernel's own (FUSE, network file
// systems) get no records: memoFS lists the ones that do.
//
// The records are the launcher's: it reads them from the memory file
// cfg.MemoFD and writes the next ones to cfg.MemoOutFD before the command
// starts (no descriptor of them reaches the command); agentls keeps them
// between commands, by workspace and by the names looked for. In a view
// on a fresh layer, a directory holding no file of the view is its real
// directory as it is, so its record goes by the real directory (opened
// beneath the view's lower layer); one holding a view file is always
// read; a view over a kept layer (Sandbox.ViewLayer) uses no records.

// memoAge: a directory changed less than this before the walk is read
// again next time (the kernel's file times lag its clock by a tick).
const memoAge = 2_000_000_000 // ns

// memoFS are the file systems whose ctime only the kernel sets.
var memoFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC: true, unix.XFS_SUPER_MAGIC: true,
	unix.BTRFS_SUPER_MAGIC: true, unix.TMPFS_MAGIC: true,
}

type memoEntry struct {
	name string
	typ  uint8
}

type dirMemo struct {
	dev, ino uint64
	ctime    int64
	count    int // every entry, for walkLimit
	hits     []memoEntry
}

type walkMemo map[string]dirMemo

// memoKey is what records are valid for: the workspace and the names.
func memoKey(cfg launchConfig) string {
	return cfg.Workspace + "\x00" + strings.Join(cfg.Protect, "\x00") + "\x01" + strings.Join(cfg.Secrets, "\x00")
}

func (m walkMemo) encode() []byte {
	var b []byte
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	for rel, d := range m {
		str(rel)
		b = binary.AppendUvarint(b, d.dev)
		b = binary.AppendUvarint(b, d.ino)
		b = binary.AppendVarint(b, d.ctime)
		b = binary.AppendUvarint(b, uint64(d.count))
		b = binary.AppendUvarint(b, uint64(len(d.hits)))
		for _, h := range d.hits {
			b = append(b, h.typ)
			str(h.name)
		}
	}
	return b
}

var errMemo = errors.New("bad walk memo")

// decodeMemo reads encode's bytes; anything malformed is no memo at all.
func decodeMemo(b []byte) (walkMemo, error) {
	m := walkMemo{}
	uv := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, errMemo
		}
		b = b[n:]
		return v, nil
	}
	str := func() (string, error) {
		n, err := uv()
		if err != nil || n > uint64(len(b)) {
			return "", errMemo
		}
		s := string(b[:n])
		b = b[n:]
		return s, nil
	}
	for len(b) > 0 {
		var d dirMemo
		rel, err := str()
		if err != nil {
			return nil, err
		}
		if d.dev, err = uv(); err != nil {
			return nil, err
		}
		if d.ino, err = uv(); err != nil {
			return nil, err
		}
		ct, n := binary.Varint(b)
		if n <= 0 {
			return nil, errMemo
		}
		b, d.ctime = b[n:], ct
		count, err := uv()
		if err != nil || count > walkLimit {
			return nil, errMemo
		}
		d.count = int(count)
		hits, err := uv()
		if err != nil || hits > count {
			return nil, errMemo
		}
		for range hits {
			if len(b) == 0 {
				return nil, errMemo
			}
			h := memoEntry{typ: b[0]}
			b = b[1:]
			if h.name, err = str(); err != nil {
				return nil, err
			}
			d.hits = append(d.hits, h)
		}
		m[rel] = d
	}
	return m, nil
}

// readMemoFD reads and closes the launcher's memo file (0: none).
func readMemoFD(fd int) walkMemo {
	if fd <= 0 {
		return nil
	}
	f := os.NewFile(uintptr(fd), "memo")
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil
	}
	m, err := decodeMemo(b)
	if err != nil {
		return nil
	}
	return m
}

// maxMemos bounds the workspaces whose records agentls keeps.
const maxMemos = 16

// agentls's side: the records by memoKey, from the last command that
// wrote them.
var memos struct {
	sync.Mutex
	byKey map[string][]byte
}

// memoFiles are the memory files a command's launcher reads its records
// from (nil when there are none yet) and writes the next ones to.
func memoFiles(key string) (in, out *os.File, err error) {
	memos.Lock()
	b := memos.byKey[key]
	memos.Unlock()
	if len(b) > 0 {
		if in, err = memFile("agentls-walk", b); err != nil {
			return nil, nil, err
		}
	}
	if out, err = memFile("agentls-walk-next", nil); err != nil {
		if in != nil {
			in.Close()
		}
		return nil, nil, err
	}
	return in, out, nil
}

// keepMemo stores what the launcher wrote to out, if anything.
func keepMemo(key string, out *os.File) {
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return
	}
	b, err := io.ReadAll(io.LimitReader(out, 64<<20))
	if err != nil || len(b) == 0 {
		return
	}
	if _, err := decodeMemo(b); err != nil {
		return
	}
	memos.Lock()
	defer memos.Unlock()
	if memos.byKey == nil {
		memos.byKey = map[string][]byte{}
	}
	if _, ok := memos.byKey[key]; !ok && len(memos.byKey) >= maxMemos {
		// Tasks' worktrees are workspaces of their own: keep a few.
		for k := range memos.byKey {
			delete(memos.byKey, k)
			break
		}
	}
	memos.byKey[key] = b
}

func memFile(name string, b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	if len(b) > 0 {
		if _, err := f.Write(b); err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}
