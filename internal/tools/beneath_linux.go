package tools

import (
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
