package delegate

import "syscall"

// jobProcAttr puts a job's agentls run in a process group of its own (so
// stopGroup reaches what it started) that dies with the worker.
func jobProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
