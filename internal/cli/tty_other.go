//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package cli

// isTTY is false where no termios is at hand: no progress line, and
// --review refuses to run.
func isTTY(fd uintptr) bool { return false }
