//go:build !unix

package tools

import (
	"errors"
	"os"
	"os/exec"
)

// ownSession does nothing where there are no process groups.
func ownSession(cmd *exec.Cmd) {}

// killGroup kills the shell; its children may survive.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
