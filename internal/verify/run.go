package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/proc"
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
	// Unsaved maps workspace-relative paths to unsaved buffer text that the
	// checks must see instead of the disk (see NewCheckDir).
	Unsaved map[string][]byte
	// Timeout bounds each command; zero means DefaultTimeout.
	Timeout time.Duration
	// Env is added to the environment the server was started with.
	Env []string
	// Secrets are values (the API key) that no variable of a check's
	// environment may hold, whatever its name (proc.CleanEnv).
	Secrets []string
	// OnStart, if set, is called before each command starts.
	OnStart func(cmd string)
	// Sandbox confines the checks (its View is verify's to set); the zero
	// value is proc's default, workspace-write without network. Mode
	// proc.ModeOff runs them unconfined in a copy of the workspace.
	// Where the view cannot be mounted, the checks run in the copy still
	// confined by this Sandbox.
	Sandbox proc.Sandbox
	// Warn is told, once per process, that checks run without the view;
	// nil writes to stderr.
	Warn func(string)
}

// Result is what one command did.
type Result struct {
	Command  string
	ExitCode int // -1 when killed or never started
	// Output is stdout and stderr combined, capped at 1 MB (its head and
	// tail, see proc.Capper), with any stand-in paths rewritten to Root.
	Output      string
	Passed      bool
	TimedOut    bool
	Duration    time.Duration
	Diagnostics []Diagnostic
	Unlocated   []string
	// Root is the workspace the paths in Diagnostics lie in; Feedback
	// prints them relative to it.
	Root string
	// PreExisting: the check failed, but only as it did before the task
	// (every finding PreExisting, see the verify gate's baseline).
	PreExisting bool
}

// Run runs the checks in order and stops at the first that fails: there is
// no point testing what does not build. Each command runs through
// internal/proc, which kills its whole tree when the command times out or
// ctx is cancelled. On cancellation Run returns the results so far, the
// interrupted one included, and ctx's error.
//
// Where the sandbox is available (proc.Available), every check runs in it
// with a view of the workspace (proc.Sandbox.View) mounted on the
// workspace's own path: it sees Unsaved's texts, prints real paths, and
// everything it writes there is discarded. When the view cannot be
// mounted (said once through Warn), the checks run in a copy of the
// workspace, or for go commands with go's -overlay, still in the sandbox:
// workspace content (a symlinked directory holding a buffer) must not be
// able to turn the sandbox off. Without the sandbox they run unconfined
// there.
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
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	opts.Root = root
	var ex *fallback
	defer func() { ex.close() }()
	sandboxed := opts.Sandbox.Mode != proc.ModeOff
	if ok, why := proc.Available(); sandboxed && !ok {
		sandboxed = false
		warnOnce(opts.Warn, "verify: checks run without the sandbox ("+why+"), in a copy of the workspace")
	}
	useView := sandboxed

	var results []Result
	for _, c := range cmds {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		if opts.OnStart != nil {
			opts.OnStart(c)
		}
		var r Result
		ran := false
		if useView {
			r, err = runInView(ctx, opts, c, timeout)
			if err == nil {
				ran = true
			} else if ctx.Err() == nil {
				useView = false
				warnOnce(opts.Warn, fmt.Sprintf("verify: cannot show the checks a view of the workspace (%v); they run sandboxed in a copy of it", err))
			}
		}
		if !ran {
			if ex == nil {
				if ex, err = newFallback(opts, cmds, sandboxed); err != nil {
					return results, fmt.Errorf("verify: %w", err)
				}
			}
			r = ex.run(ctx, c, timeout)
		}
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

var warned sync.Once

func warnOnce(warn func(string), msg string) {
	warned.Do(func() {
		if warn != nil {
			warn(msg)
		} else {
			fmt.Fprintln(os.Stderr, msg)
		}
	})
}

// runInView runs one check sandboxed, in a view of the workspace; the
// error is the sandbox's (the view could not be set up).
func runInView(ctx context.Context, opts RunOptions, command string, timeout time.Duration) (Result, error) {
	view := opts.Unsaved
	if view == nil {
		view = map[string][]byte{}
	}
	sb := opts.Sandbox
	sb.View, sb.ViewThrough = view, throughDirs(opts.Root, view)
	pr, err := proc.Run(ctx, proc.Spec{Shell: command, Dir: opts.Root, Env: checkEnv(opts.Root, opts.Env),
		Secrets: opts.Secrets, Timeout: timeout, OutputLimit: maxOutput, Sandbox: sb})
	if err != nil {
		return Result{}, err
	}
	return finish(ctx, command, timeout, opts.Root, opts.Root, pr, nil), nil
}

// throughDirs are the top-level build-product directories (linkDirs) the
// view shows as they are on disk, so that builds stay incremental, as the
// copy's symlinks do; one holding a buffer is viewed like the rest.
func throughDirs(root string, view map[string][]byte) []string {
	var dirs []string
	for d := range linkDirs {
		if fi, err := os.Lstat(filepath.Join(root, d)); err != nil || !fi.IsDir() {
			continue
		}
		held := false
		for rel := range view {
			if strings.HasPrefix(filepath.ToSlash(filepath.Clean(rel)), d+"/") {
				held = true
			}
		}
		if !held {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// fallback runs checks in a copy of the workspace, or in the workspace
// itself with go's -overlay: in the sandbox when it is available (its
// workspace is the real one, as for any command; the copy lies in the
// temporary directory it may write), unconfined otherwise.
type fallback struct {
	ov      *CheckDir
	env     []string
	secrets []string
	sb      proc.Sandbox
	cleanup func()
}

func newFallback(opts RunOptions, cmds []string, sandboxed bool) (*fallback, error) {
	files, env := opts.Unsaved, opts.Env
	flags, back, cleanup, goOv, err := goOverlay(opts.Root, cmds, files, env)
	if err != nil {
		return nil, err
	}
	f := &fallback{cleanup: cleanup, sb: proc.Sandbox{Mode: proc.ModeOff}, secrets: opts.Secrets}
	if sandboxed {
		f.sb = opts.Sandbox
		f.sb.View, f.sb.ViewThrough = nil, nil
		if f.sb.Workspace == "" {
			f.sb.Workspace = opts.Root
		}
	}
	if goOv {
		files = nil
		env = append(append([]string(nil), env...), "GOFLAGS="+flags)
	}
	f.env = env
	if f.ov, err = NewCheckDir(opts.Root, files); err != nil {
		f.close()
		return nil, err
	}
	f.ov.rewrite = back
	if sandboxed {
		// A sandboxed command's file system holds only what is declared:
		// the copy it runs in, and go -overlay's stand-ins.
		f.sb.Scratch = append([]string(nil), f.sb.Scratch...)
		f.sb.AllowRead = append([]string(nil), f.sb.AllowRead...)
		if f.ov.temp {
			f.sb.Scratch = append(f.sb.Scratch, f.ov.dirReal)
		}
		if goOv {
			for _, fl := range strings.Fields(flags) {
				if spec, ok := strings.CutPrefix(fl, "-overlay="); ok {
					f.sb.AllowRead = append(f.sb.AllowRead, filepath.Dir(spec))
				}
			}
		}
	}
	return f, nil
}

func (f *fallback) close() {
	if f == nil {
		return
	}
	if f.ov != nil {
		f.ov.Close()
	}
	if f.cleanup != nil {
		f.cleanup()
	}
}

func (f *fallback) run(ctx context.Context, command string, timeout time.Duration) Result {
	ov := f.ov
	pr, err := proc.Run(ctx, proc.Spec{Shell: command, Dir: ov.Dir(), Env: checkEnv(ov.Dir(), f.env),
		Secrets: f.secrets, Timeout: timeout, OutputLimit: maxOutput, Sandbox: f.sb})
	if err != nil {
		pr.Output += fmt.Sprintf("\nverify: cannot start %q: %v\n", command, err)
	}
	// go -overlay's stand-ins, in every form go prints them (absolute,
	// relative, through symlinks), back to the real files.
	pr.Output = rewriteStandIns(pr.Output, ov.rewrite)
	return finish(ctx, command, timeout, ov.Root(), ov.Dir(), pr, ov.mapText)
}

// finish turns what proc reports into a Result, its diagnostics located
// in root (dir is where the command ran).
func finish(ctx context.Context, command string, timeout time.Duration, root, dir string, pr proc.Result, mapText func(string) string) Result {
	r := Result{Command: command, ExitCode: pr.ExitCode, Root: root, Duration: pr.Duration, TimedOut: pr.TimedOut}
	output := pr.Output
	r.Passed = r.ExitCode == 0 && !r.TimedOut && ctx.Err() == nil
	if r.TimedOut {
		output += fmt.Sprintf("\nverify: %q timed out after %s and was killed\n", command, timeout)
	}
	r.Output = output
	if mapText != nil {
		r.Output = mapText(output)
	}
	if !r.Passed {
		r.Diagnostics, r.Unlocated = parseOutput(output, root, dir, command)
	}
	return r
}

// checkEnv is the environment checks start from: agentls's own, less the
// variables make passes to recursive makes, so a check runs as the user
// would type it even when agentls itself was started by make.
func checkEnv(dir string, extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR":
		default:
			env = append(env, kv)
		}
	}
	return append(append(env, extra...), "PWD="+dir)
}
