package wsread

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel below root for reading with openat2: links are
// followed only while they stay beneath root (RESOLVE_BENEATH; "..", an
// absolute link or a /proc magic link that leads out fails), the open
// never blocks (O_NONBLOCK: a FIFO has no writer to wait for) and never
// makes a terminal the controlling one. Kernels without openat2 open
// through os.Root, which keeps the same bounds.
func openBeneath(root, rel string) (*os.File, error) {
	dfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat2(dfd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case err == unix.ENOSYS:
		return openRoot(root, rel)
	case err == unix.EXDEV:
		return nil, fmt.Errorf("%s leads %w", rel, ErrOutside)
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), rel), nil
}

func openRoot(root, rel string) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.OpenFile(rel, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
}

// fdPath is the path the system gives the open file f.
func fdPath(f *os.File) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
}
