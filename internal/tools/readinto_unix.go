//go:build unix

package tools

import "syscall"

// readInto reads a file into the worker's reusable buffer with plain
// system calls (open, fstat, read, close): os.Open would also try to
// register every file with the network poller, and on a search of a
// hundred thousand small files the system calls are most of the cost.
// O_NONBLOCK keeps a FIFO that replaced a file since the walk from
// blocking the open, and the open resolves rel beneath the walk's root
// (openBeneath).
func readInto(buf *[]byte, rootFD int, root, rel string) ([]byte, bool) {
	fd, err := openBeneath(rootFD, root, rel)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > grepMaxFile {
		return nil, false
	}
	size := int(st.Size)
	if cap(*buf) < size {
		*buf = make([]byte, max(size, 64<<10))
	}
	b := (*buf)[:size]
	n := 0
	for n < size {
		k, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if k == 0 { // shrank while we read it
			break
		}
		n += k
	}
	return b[:n], true
}
