//go:build !linux

package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Available is false: the sandbox is built on Linux namespaces and
// Landlock. (macOS could use sandbox-exec; until then callers ask.)
func Available() (ok bool, why string) {
	return false, fmt.Sprintf("no sandbox on %s", runtime.GOOS)
}

func sandboxed(ctx context.Context, argv, env []string, sb Sandbox, dir string, transient bool) (*exec.Cmd, func(), func() bool, error) {
	_, why := Available()
	return nil, nil, nil, fmt.Errorf("proc: %w: %s", ErrUnavailable, why)
}

func launch(string) error { return errors.New("no sandbox launcher on " + runtime.GOOS) }

func launchWarm(string) error { return errors.New("no sandbox launcher on " + runtime.GOOS) }

func runWarm(context.Context, Spec, Sandbox, *os.File) (*exec.Cmd, bool, error) {
	return nil, false, nil
}

// EnableWarm does nothing: there are no launchers here.
func EnableWarm() {}

// Shutdown does nothing: there are no launchers here.
func Shutdown() {}
