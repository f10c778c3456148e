package tools

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// openRootFD opens the directory a search walks, for openBeneath; -1 when
// it cannot be opened (openBeneath then opens by path).
func openRootFD(root string) int {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

func closeRootFD(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

// openBeneath opens rel (a path the walk found, with no symlink in it)
// for reading, below the directory rootFD, with openat2's
// RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS: a directory swapped for a
// symlink since the walk listed it fails the open instead of leading
// outside the workspace. Kernels without openat2 (before 5.6) open by
// path.
func openBeneath(rootFD int, root, rel string) (int, error) {
	if rootFD >= 0 {
		fd, err := unix.Openat2(rootFD, rel, &unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
		})
		if err != unix.ENOSYS {
			return fd, err
		}
	}
	return syscall.Open(root+"/"+rel, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
}

// dirBeneath opens the directory dir below r with no symlink anywhere on
// the way (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS): the directory a
// write lands in is the one the policy checked by its real path, even if a
// directory on the way was swapped for a symlink to another place in the
// workspace (.git/hooks, .vscode) since. Without openat2 or /proc, it is
// r.OpenRoot(dir), which still keeps the write inside the workspace.
func dirBeneath(r *os.Root, dir string) (*os.Root, error) {
	rootFD, err := unix.Open(r.Name(), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return r.OpenRoot(dir)
	}
	defer unix.Close(rootFD)
	fd, err := unix.Openat2(rootFD, dir, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
	})
	switch {
	case err == unix.ENOSYS:
		return r.OpenRoot(dir)
	case err == unix.ELOOP || err == unix.EXDEV:
		return nil, fmt.Errorf("%s now goes through a symlink (it did not when the path was checked); nothing was written: %w", dir, ErrBadPath)
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	d, err := os.OpenRoot("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return r.OpenRoot(dir)
	}
	return d, nil
}

// oNoFollow opens the final component itself, never a symlink there.
const oNoFollow = syscall.O_NOFOLLOW
