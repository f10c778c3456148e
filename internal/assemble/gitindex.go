package assemble

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxIndexSize bounds the git index read for the repository map (a
// 200,000-file repository's is about 20 MB).
const maxIndexSize = 128 << 20

// eachIndexPath calls fn with each path git tracks in the repository at
// root, read from its index file without running git (git in an untrusted
// workspace runs what its config says); the slice is fn's only for the
// call. The index is opened beneath the root, or beneath the git directory
// a worktree's .git file names; a missing or unreadable index (not a
// repository, SHA-256 objects, a new index version) is an error, and the
// caller walks the tree instead.
func eachIndexPath(root string, fn func(name []byte)) (int, error) {
	data, err := readIndex(root)
	if err != nil {
		return 0, err
	}
	return walkIndex(data, fn)
}

func readIndex(root string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if fi, err := r.Lstat(".git"); err == nil && fi.IsDir() {
		return readRegular(r, filepath.Join(".git", "index"))
	}
	// A worktree: .git is a file naming the git directory, outside.
	link, err := readRegular(r, ".git")
	if err != nil || len(link) > 4096 || !strings.HasPrefix(string(link), "gitdir: ") {
		return nil, errors.New("not a git repository")
	}
	dir := strings.TrimSpace(strings.TrimPrefix(string(link), "gitdir: "))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	gr, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer gr.Close()
	return readRegular(gr, "index")
}

// readRegular reads a regular file beneath r, at most maxIndexSize bytes.
// It opens without blocking: a named pipe in its place would otherwise
// hold the open until a writer came.
func readRegular(r *os.Root, name string) ([]byte, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxIndexSize {
		return nil, errors.New("not a regular file of a readable size")
	}
	b := make([]byte, fi.Size())
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return b[:n], nil
}

var errIndex = errors.New("unreadable git index")

// walkIndex calls fn with each path of a git index and returns how many.
func walkIndex(b []byte, fn func(name []byte)) (int, error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return 0, errIndex
	}
	version := binary.BigEndian.Uint32(b[4:8])
	n := int(binary.BigEndian.Uint32(b[8:12]))
	if version < 2 || version > 4 || n > len(b)/62 {
		return 0, errIndex
	}
	const fixed = 62 // stat data, mode, sizes, a SHA-1, flags
	off := 12
	var prev []byte // version 4: the previous name
	for range n {
		if off+fixed > len(b) {
			return 0, errIndex
		}
		flags := binary.BigEndian.Uint16(b[off+60 : off+62])
		p := off + fixed
		if flags&0x4000 != 0 { // extended flags
			if version < 3 {
				return 0, errIndex
			}
			p += 2
		}
		if version == 4 {
			// The name is the previous one less a varint's count of
			// bytes at its end, plus a NUL-terminated suffix.
			strip, k := indexVarint(b[min(p, len(b)):])
			if k == 0 || strip > uint64(len(prev)) {
				return 0, errIndex
			}
			p += k
			end := indexNUL(b, p)
			if end < 0 {
				return 0, errIndex
			}
			prev = append(prev[:len(prev)-int(strip)], b[p:end]...)
			fn(prev)
			off = end + 1
			continue
		}
		end := indexNUL(b, p)
		if end < 0 {
			return 0, errIndex
		}
		fn(b[p:end])
		// Entries are padded with 1 to 8 NULs to a multiple of 8.
		off += (end - off + 8) &^ 7
	}
	return n, nil
}

func indexNUL(b []byte, from int) int {
	if from > len(b) {
		return -1
	}
	if i := bytes.IndexByte(b[from:], 0); i >= 0 {
		return from + i
	}
	return -1
}

// indexVarint decodes git's offset varint; k is the bytes read, 0 if bad.
func indexVarint(b []byte) (v uint64, k int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 0x7f)
	k = 1
	for c&0x80 != 0 {
		if k >= len(b) || k > 9 {
			return 0, 0
		}
		c = b[k]
		k++
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, k
}
