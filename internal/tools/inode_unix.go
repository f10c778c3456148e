//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// inodeOf is fi's inode number (0 where the system does not say).
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
