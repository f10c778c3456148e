//go:build unix && !linux

package tools

import (
	"os"
	"syscall"
)

func openRootFD(string) int { return -1 }

func closeRootFD(int) {}

// openBeneath opens root/rel by path where openat2 does not exist.
func openBeneath(_ int, root, rel string) (int, error) {
	return syscall.Open(root+"/"+rel, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
}

// dirBeneath opens dir below r (os.Root: the write stays in the workspace).
func dirBeneath(r *os.Root, dir string) (*os.Root, error) { return r.OpenRoot(dir) }

// oNoFollow opens the final component itself, never a symlink there.
const oNoFollow = syscall.O_NOFOLLOW
