package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// workspaceIdentity tells a directory from another made later at the same
// path: its inode and, where the file system records it, its birth time.
func workspaceIdentity(ws string) string {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, ws, 0, unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return ""
	}
	id := fmt.Sprintf("%d:%d:%d", st.Dev_major, st.Dev_minor, st.Ino)
	if st.Mask&unix.STATX_BTIME != 0 {
		id += fmt.Sprintf(":%d.%09d", st.Btime.Sec, st.Btime.Nsec)
	}
	return id
}
