package delegate

import (
	"os"
	"syscall"
)

// jobProcAttr: Windows has no process groups to signal; the job is one
// process.
func jobProcAttr() *syscall.SysProcAttr { return nil }

// stopGroup ends a job's process. Windows has no SIGTERM to send, so both
// the clean and the forced end kill it.
func stopGroup(p *os.Process, _ bool) { _ = p.Kill() }
