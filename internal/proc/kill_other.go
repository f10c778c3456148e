//go:build !unix

package proc

import "os/exec"

// Without process groups only the process itself can be killed.

func ownSession(cmd *exec.Cmd) {}

// KillTree kills cmd's process; its children may survive.
func KillTree(cmd *exec.Cmd) {
	defer releaseCmd(cmd)
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func killGroup(cmd *exec.Cmd) { KillTree(cmd) }
