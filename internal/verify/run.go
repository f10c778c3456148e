package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// DefaultTimeout bounds one check command when RunOptions.Timeout is zero.
const DefaultTimeout = 600 * time.Second

// maxOutput caps what is kept of one command's combined output.
const maxOutput = 1 << 20

// RunOptions says what to check and where.
type RunOptions struct {
	// Root is the workspace directory.
	Root string
	// Commands run in order through sh -c; none means Detect(Root).
	Commands []string
	// Overlay maps workspace-relative paths to unsaved buffer text that the
	// checks must see instead of the disk (see NewOverlay).
	Overlay map[string][]byte
	// Timeout bounds each command; zero means DefaultTimeout.
	Timeout time.Duration
	// Env is added to the environment the server was started with.
	Env []string
	// OnStart, if set, is called before each command starts.
	OnStart func(cmd string)
}

// Result is what one command did.
type Result struct {
	Command  string
	ExitCode int // -1 when killed or never started
	// Output is stdout and stderr combined, capped at 1 MB (its head and
	// tail), with overlay paths rewritten to Root.
	Output      string
	Passed      bool
	TimedOut    bool
	Duration    time.Duration
	Diagnostics []Diagnostic
	Unlocated   []string
	// Root is the workspace the paths in Diagnostics lie in; Feedback
	// prints them relative to it.
	Root string
}

// Run runs the checks in order and stops at the first that fails: there is
// no point testing what does not build. Each command runs in its own
// process group, which is killed with everything it started when the
// command times out or ctx is cancelled. On cancellation Run returns the
// results so far, the interrupted one included, and ctx's error.
func Run(ctx context.Context, opts RunOptions) ([]Result, error) {
	cmds := opts.Commands
	if len(cmds) == 0 {
		cmds = Detect(opts.Root)
	}
	if len(cmds) == 0 {
		return nil, nil
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	files, env := opts.Overlay, opts.Env
	flags, back, cleanup, goOv, err := goOverlay(opts.Root, cmds, files, env)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if goOv {
		defer cleanup()
		files = nil
		env = append(append([]string(nil), env...), "GOFLAGS="+flags)
	}
	ov, err := NewOverlay(opts.Root, files)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer ov.Close()
	ov.rewrite = back

	var results []Result
	for _, c := range cmds {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		if opts.OnStart != nil {
			opts.OnStart(c)
		}
		r := runOne(ctx, ov, c, timeout, env)
		results = append(results, r)
		if err := ctx.Err(); err != nil {
			return results, err
		}
		if !r.Passed {
			break
		}
	}
	return results, nil
}

func runOne(ctx context.Context, ov *Overlay, command string, timeout time.Duration, env []string) Result {
	start := time.Now()
	r := Result{Command: command, ExitCode: -1, Root: ov.Root()}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	out := newCapBuffer(maxOutput)
	cmd := exec.CommandContext(cctx, "sh", "-c", command)
	cmd.Dir = ov.Dir()
	cmd.Env = append(append(checkEnv(), env...), "PWD="+ov.Dir())
	cmd.Stdin = nil
	cmd.Stdout = out
	cmd.Stderr = out
	setProcessGroup(cmd)
	cmd.Cancel = func() error {
		killTree(cmd.Process.Pid)
		return nil
	}
	// Descendants that escaped the group but still hold the output pipe
	// must not keep Wait from returning.
	cmd.WaitDelay = 500 * time.Millisecond

	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
		// Background processes the command left behind are killed too.
		killGroup(cmd.Process.Pid)
	}
	r.Duration = time.Since(start)
	// A command that finished just as the deadline passed did not time out.
	r.TimedOut = err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	output := out.String()
	switch {
	case cmd.Process == nil:
		output += fmt.Sprintf("\nverify: cannot start %q: %v\n", command, err)
	case cmd.ProcessState != nil && cmd.ProcessState.Exited():
		// Also when Wait gave up on a pipe a leftover process held
		// (exec.ErrWaitDelay): the shell's own status is what counts.
		r.ExitCode = cmd.ProcessState.ExitCode()
	}
	r.Passed = r.ExitCode == 0 && !r.TimedOut && ctx.Err() == nil
	if r.TimedOut {
		output += fmt.Sprintf("\nverify: %q timed out after %s and was killed\n", command, timeout)
	}
	output = rewriteStandIns(output, ov.rewrite)
	r.Output = ov.mapText(output)
	if !r.Passed {
		r.Diagnostics, r.Unlocated = parseOutput(output, ov.Root(), ov.Dir(), command)
	}
	return r
}

// checkEnv is the environment checks start from: agentls's own, less the
// variables make passes to recursive makes, so a check runs as the user
// would type it even when agentls itself was started by make.
func checkEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR":
		default:
			env = append(env, kv)
		}
	}
	return env
}
