package proc

import (
	"golang.org/x/sys/unix"
)

// The Landlock system calls, on the calling thread only. The launcher is
// about to exec, so one thread is all it needs; go-landlock restricts
// every thread of the process instead, and its low-level package links
// libcap's psx, which under cgo wraps pthread_create: more than a
// launcher should carry.

// accessFSResolveUnix (ABI 9) governs connecting to Unix sockets by path.
const accessFSResolveUnix = 1 << 16

func landlockABI() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}
