package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/agentls/agentls/internal/wsread"
)

// ErrNotRegular is a path that names a named pipe, socket or device: the
// tools read and write regular files only, since opening a FIFO blocks
// until a writer comes and reading a device may never end. It is the one
// reader's own (wsread), so either refusal matches errors.Is.
var ErrNotRegular = wsread.ErrNotRegular

// fileKind names a non-regular file for a message.
func fileKind(m fs.FileMode) string { return wsread.Kind(m) }

// notRegularError says what rel is and that the tools leave it alone.
func notRegularError(rel string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s, not a regular file; the file tools only read and write regular files: %w", rel, fileKind(m), ErrNotRegular)
}

// checkRegular refuses a path that exists and is not a regular file: a
// directory with "rel is a directory" and dirHint after it, anything else
// with notRegularError. One Stat, which never blocks on a FIFO, unlike open.
func checkRegular(abs, rel, dirHint string) error {
	fi, err := os.Stat(abs)
	switch {
	case err != nil || fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return fmt.Errorf("%s is a directory%s", rel, dirHint)
	}
	return notRegularError(rel, fi.Mode())
}

// MaxFileSize is the largest file the tools and agentls itself read whole
// (read_file, edit_file, write_file's comparison, the editor's view of a
// closed file): the size is checked before reading, so a huge or sparse
// file is an error, never an allocation of its size.
const MaxFileSize = 64 << 20

// ErrTooLarge is a file larger than MaxFileSize.
var ErrTooLarge = errors.New("file too large")

func tooLarge(name string, size int64) error {
	return fmt.Errorf("%s is %d bytes; agentls reads files of at most %d MiB (use grep, or run_command with head/tail/sed, to look into it): %w",
		name, size, MaxFileSize>>20, ErrTooLarge)
}

// ReadRegularFile reads the regular file p. It opens without blocking
// (O_NONBLOCK, so a FIFO that replaced the file after a Stat cannot hang
// the open) and checks the opened file itself before reading it; anything
// but a regular file is ErrNotRegular, and one larger than MaxFileSize is
// ErrTooLarge, whatever it grows to while it is read.
func ReadRegularFile(p string) ([]byte, fs.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readRegular(f, p)
}

// readRegular reads the opened file f (named name in messages) whole
// after checking it is regular and at most MaxFileSize.
func readRegular(f *os.File, name string) ([]byte, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%s is %s: %w", name, fileKind(fi.Mode()), ErrNotRegular)
	}
	if fi.Size() > MaxFileSize {
		return nil, fi, tooLarge(name, fi.Size())
	}
	data := make([]byte, 0, fi.Size()+512)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, fi, nil
		}
		if err != nil {
			return nil, fi, err
		}
		if len(data) > MaxFileSize {
			return nil, fi, tooLarge(name, int64(len(data)))
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}
