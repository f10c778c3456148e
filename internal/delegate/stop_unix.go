//go:build unix

package delegate

import (
	"os"
	"syscall"
)

// stopGroup ends a job's process group: SIGTERM (a clean end, exit 130),
// or SIGKILL when kill is set.
func stopGroup(p *os.Process, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-p.Pid, sig)
}
