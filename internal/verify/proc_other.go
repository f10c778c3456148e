//go:build !unix

package verify

import (
	"os"
	"os/exec"
)

// Without process groups only the shell itself can be killed.

func setProcessGroup(cmd *exec.Cmd) {}

func killTree(pid int) { killGroup(pid) }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
