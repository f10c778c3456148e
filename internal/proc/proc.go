package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultOutputLimit is how much of a command's combined output Run keeps
// when Spec.OutputLimit is zero.
const DefaultOutputLimit = 1 << 20

// Spec says what to run and how.
type Spec struct {
	// Shell is a command line run with /bin/sh -c. Exactly one of Shell
	// and Argv is set.
	Shell string
	// Argv is a program (looked up in the PATH of Env) and its arguments.
	Argv []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env is the child's environment; nil means os.Environ(). Whatever it
	// is, CleanEnv(Env, Secrets) is what the child gets.
	Env []string
	// Secrets are values (such as the API key in use) that no variable of
	// the child may contain.
	Secrets []string
	// Timeout bounds Run; zero means only ctx does. Command ignores it.
	Timeout time.Duration
	// OutputLimit caps what Run keeps of the output (head and tail);
	// zero means DefaultOutputLimit.
	OutputLimit int
	// Sandbox confines the process; its zero value is the default
	// workspace-write sandbox with Workspace = Dir.
	Sandbox Sandbox
}

// Result is how a command ended.
type Result struct {
	// Output is stdout and stderr interleaved, capped (see Capper).
	Output string
	// ExitCode is -1 when the process was killed by a signal.
	ExitCode int
	// TimedOut: Spec.Timeout passed and the tree was killed.
	TimedOut bool
	// Cancelled: ctx ended and the tree was killed.
	Cancelled bool
	// NetworkBlocked: the command ran without network and failed with
	// what looks like a network error.
	NetworkBlocked bool
	// OutOfMemory: the kernel killed a process of the command at the
	// sandbox's memory cap (said at the end of Output too).
	OutOfMemory bool
	// Sandboxed: the command ran confined (Spec.Sandbox's mode was not
	// off), which the editors show beside it.
	Sandboxed bool
	Duration  time.Duration
}

func (s Spec) argv() ([]string, error) {
	switch {
	case s.Shell != "" && len(s.Argv) > 0:
		return nil, errors.New("proc: both Shell and Argv are set")
	case s.Shell != "":
		return []string{"/bin/sh", "-c", s.Shell}, nil
	case len(s.Argv) > 0 && s.Argv[0] != "":
		return s.Argv, nil
	}
	return nil, errors.New("proc: nothing to run (Shell and Argv are empty)")
}

// Command returns a command ready to start: its own session and process
// group, a cleaned environment, the sandbox Spec asks for, and a Cancel
// that kills the whole tree when ctx ends. Stdin, Stdout and Stderr are
// left to the caller (an MCP transport sets pipes). Whoever starts it
// must call KillTree once it is done with it. ctx may be nil.
//
// With a sandbox that cannot be used here, the error wraps ErrUnavailable.
//
// A command from Command may run for long (an MCP server), so missing
// protected names get no placeholder (see Sandbox.Protect): it could
// create them.
func Command(ctx context.Context, s Spec) (*exec.Cmd, error) {
	return command(ctx, s, false)
}

// command is Command; placeholders says whether missing protected names
// get their placeholders for the command's life.
func command(ctx context.Context, s Spec, placeholders bool) (*exec.Cmd, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	argv, err := s.argv()
	if err != nil {
		return nil, err
	}
	sb, err := s.Sandbox.normalize(s.Dir)
	if err != nil {
		return nil, err
	}
	env := CleanEnv(s.Env, s.Secrets)
	var cmd *exec.Cmd
	var cleanup func()
	var oom func() bool
	if sb.Mode == ModeOff {
		cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
		ownSession(cmd)
	} else {
		env = sandboxEnv(env)
		if cmd, cleanup, oom, err = sandboxed(ctx, argv, env, sb, s.Dir, placeholders); err != nil {
			return nil, err
		}
	}
	if cleanup != nil {
		releases.Store(cmd, release{cleanup, oom})
	}
	cmd.Dir = s.Dir
	cmd.Env = env
	cmd.Cancel = func() error {
		KillTree(cmd)
		return nil
	}
	// A descendant that escaped the tree and holds a pipe must not keep
	// Wait from returning.
	cmd.WaitDelay = time.Second
	return cmd, nil
}

// Run runs s to its end with no stdin and returns its capped output. Its
// whole tree is killed on timeout, on cancellation, and after it exits,
// so nothing it started in the background outlives the call. The error
// is non-nil only when the process could not be started (ErrUnavailable
// among the causes): a failing, timed-out or cancelled command is a
// Result.
func Run(ctx context.Context, s Spec) (Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if s.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, s.Timeout)
	}
	defer cancel()
	limit := s.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	out := NewCapper(limit)
	start := time.Now()
	sb, err := s.Sandbox.normalize(s.Dir)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	// Our own pipe rather than an io.Writer: with a writer, Wait also waits
	// for every background child that inherited the pipe.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("proc: %w", err)
	}
	defer pr.Close()
	cmd, err := startCmd(runCtx, s, sb, pw)
	pw.Close()
	if cmd != nil {
		defer releaseCmd(cmd)
	}
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		defer func() { _ = recover() }() // Capper cannot panic; be sure anyway
		_, _ = io.Copy(out, pr)
	}()
	_ = cmd.Wait()
	killGroup(cmd) // what it left in the background
	waitCopied(copied, pr)
	r := Result{ExitCode: cmd.ProcessState.ExitCode()}
	if rel, ok := releases.Load(cmd); ok && rel.(release).oom != nil && rel.(release).oom() {
		r.OutOfMemory = true
		fmt.Fprintf(out, "\nagentls: the command was killed at the sandbox's memory cap of %d MiB (sandbox.memoryMiB)\n", sb.MemoryMax>>20)
	}
	return finish(ctx, runCtx, r, out, start, sb)
}

// startCmd starts s, whose sandbox is sb, with out as its stdout and stderr:
// in a warm launcher when one waits for it (warm_linux.go), else as
// command makes it. A command not started is returned when it has
// something to release.
func startCmd(ctx context.Context, s Spec, sb Sandbox, out *os.File) (*exec.Cmd, error) {
	if cmd, ok, err := runWarm(ctx, s, sb, out); ok {
		return cmd, err
	}
	cmd, err := command(ctx, s, true)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return cmd, fmt.Errorf("proc: start %s: %w", cmd.Args[0], err)
	}
	return cmd, nil
}

// releases holds what each sandboxed command holds until it ends (its
// cgroup, its placeholders): KillTree or the end of Run releases it.
var releases sync.Map // *exec.Cmd → release

type release struct {
	cleanup func()
	oom     func() bool
}

func releaseCmd(cmd *exec.Cmd) {
	if f, ok := releases.LoadAndDelete(cmd); ok {
		f.(release).cleanup()
	}
}

// waitCopied waits for the output to be read to its end, or a second
// when a process outside the tree holds the pipe.
func waitCopied(copied chan struct{}, pr *os.File) {
	select {
	case <-copied:
	case <-time.After(time.Second):
		pr.Close()
		<-copied
	}
}

func finish(ctx, runCtx context.Context, r Result, out *Capper, start time.Time, sb Sandbox) (Result, error) {
	r.Output, r.Duration = out.String(), time.Since(start)
	r.Cancelled = ctx.Err() != nil
	r.TimedOut = !r.Cancelled && errors.Is(runCtx.Err(), context.DeadlineExceeded) && r.ExitCode < 0
	if sb.Mode != ModeOff {
		r.Sandboxed = true
		if r.ExitCode == launchFailed && strings.HasPrefix(r.Output, launchPrefix) {
			return r, fmt.Errorf("proc: %s", strings.TrimSpace(r.Output))
		}
		r.NetworkBlocked = !sb.Network && r.ExitCode != 0 && NetworkFailure(r.Output)
	}
	return r, nil
}
