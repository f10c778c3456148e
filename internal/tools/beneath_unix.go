//go:build unix && !linux

package tools

import "syscall"

func openRootFD(string) int { return -1 }

func closeRootFD(int) {}

// openBeneath opens root/rel by path where openat2 does not exist.
func openBeneath(_ int, root, rel string) (int, error) {
	return syscall.Open(root+"/"+rel, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
}
