//go:build unix && !linux

package delegate

import "syscall"

// jobProcAttr puts a job's agentls run in a process group of its own, so
// stopGroup reaches what it started. (No Pdeathsig outside Linux: a job
// outlives a worker killed with SIGKILL there.)
func jobProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
