package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Sandbox modes.
const (
	ModeWorkspaceWrite = "workspace-write"
	ModeReadOnly       = "read-only"
	ModeOff            = "off"
)

// DefaultProtect are the workspace-relative paths that stay read-only in a
// writable workspace: the repository (hooks and a config that can hold
// credentials), and the files that configure agentls or an editor.
var DefaultProtect = []string{".git", ".agentls.json", ".vscode", ".helix", ".nvim.lua", ".exrc", ".dir-locals.el"}

// ErrUnavailable is wrapped by the errors of Run and Command when a
// sandbox was asked for and cannot be set up on this machine; the caller
// decides whether to ask the user to run the command unconfined.
var ErrUnavailable = errors.New("sandbox unavailable")

// Sandbox confines a process (Linux only; see the package comment).
type Sandbox struct {
	// Mode is ModeWorkspaceWrite (the default when empty), ModeReadOnly
	// (the workspace and WritableRoots are read-only too) or ModeOff.
	Mode string
	// Network lets the process use the host's network, loopback
	// included; without it, it has a loopback interface of its own.
	Network bool
	// Workspace is the directory the process may write (Spec.Dir when
	// empty).
	Workspace string
	// WritableRoots are further directories it may write
	// (ModeWorkspaceWrite only). Those that do not exist are skipped.
	WritableRoots []string
	// Protect are workspace-relative paths kept read-only even though the
	// workspace is writable; nil means DefaultProtect. Paths that do not
	// exist are skipped (see the package comment).
	Protect []string
	// View, when not nil, shows the process a view of the workspace
	// instead of the workspace: an overlay mounted on the workspace's own
	// path, whose files are the disk's except those View names
	// (workspace-relative, slash-separated paths mapped to the text to
	// show). Every write the process makes in the workspace lands in the
	// view and is discarded when it exits; the disk is never written.
	// Paths are absolute and real, so what the process prints needs no
	// mapping. A path through a symlink or onto a directory is an error.
	// Linux only (ModeWorkspaceWrite or ModeReadOnly).
	View map[string][]byte
	// ViewThrough are workspace-relative directories (build products:
	// node_modules, target) that the view shows as they are on disk,
	// writes included, so builds stay incremental. Missing ones are
	// skipped.
	ViewThrough []string
}

func (sb Sandbox) normalize(dir string) (Sandbox, error) {
	switch sb.Mode {
	case "":
		sb.Mode = ModeWorkspaceWrite
	case ModeWorkspaceWrite, ModeReadOnly, ModeOff:
	default:
		return sb, fmt.Errorf("proc: unknown sandbox mode %q (want %s, %s or %s)", sb.Mode, ModeWorkspaceWrite, ModeReadOnly, ModeOff)
	}
	if sb.Mode == ModeOff {
		return sb, nil
	}
	if sb.Workspace == "" {
		sb.Workspace = dir
	}
	if sb.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return sb, fmt.Errorf("proc: sandbox workspace: %w", err)
		}
		sb.Workspace = wd
	}
	ws, err := filepath.Abs(sb.Workspace)
	if err != nil {
		return sb, fmt.Errorf("proc: sandbox workspace: %w", err)
	}
	if sb.Workspace, err = filepath.EvalSymlinks(ws); err != nil {
		return sb, fmt.Errorf("proc: sandbox workspace: %w", err)
	}
	if sb.Protect == nil {
		sb.Protect = DefaultProtect
	}
	for _, p := range sb.Protect {
		if !filepath.IsLocal(p) {
			return sb, fmt.Errorf("proc: protected path %q is not inside the workspace", p)
		}
	}
	return sb, nil
}

// writable lists the existing directories the process may write, given
// the environment it gets (for HOME and the cache variables).
func (sb Sandbox) writable(env []string) []string {
	var dirs []string
	if sb.Mode == ModeWorkspaceWrite {
		dirs = append(dirs, sb.Workspace)
		dirs = append(dirs, sb.WritableRoots...)
	}
	dirs = append(dirs, os.TempDir())
	dirs = append(dirs, cacheDirs(env)...)
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) || seen[d] {
			continue
		}
		seen[d] = true
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// cacheDirs are the package and build caches of the ecosystems agentls
// detects, from env or their defaults. Cargo's home is not writable as a
// whole: its bin directory holds programs the user runs.
func cacheDirs(env []string) []string {
	home := lookupEnv(env, "HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		if home == "" {
			return ""
		}
		return filepath.Join(home, def)
	}
	gomod := lookupEnv(env, "GOMODCACHE")
	if gomod == "" {
		if gp := filepath.SplitList(lookupEnv(env, "GOPATH")); len(gp) > 0 && gp[0] != "" {
			gomod = filepath.Join(gp[0], "pkg", "mod")
		}
	}
	npm := lookupEnv(env, "npm_config_cache")
	if npm == "" {
		npm = lookupEnv(env, "NPM_CONFIG_CACHE")
	}
	cargo := or(lookupEnv(env, "CARGO_HOME"), ".cargo")
	dirs := []string{
		lookupEnv(env, "GOCACHE"),
		or(gomod, filepath.Join("go", "pkg", "mod")),
		or(lookupEnv(env, "XDG_CACHE_HOME"), ".cache"),
		or(npm, ".npm"),
	}
	if cargo != "" {
		dirs = append(dirs, filepath.Join(cargo, "registry"), filepath.Join(cargo, "git"))
	}
	return dirs
}

// protected lists the existing protected paths, absolute.
func (sb Sandbox) protected() []string {
	if sb.Mode != ModeWorkspaceWrite {
		return nil
	}
	var out []string
	for _, p := range sb.Protect {
		abs := filepath.Join(sb.Workspace, p)
		if _, err := os.Lstat(abs); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// netFailure matches the messages of common tools (curl, git, Go, npm,
// pip, cargo, glibc) when a connection or a name lookup fails.
var netFailure = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)network is unreachable|could not resolve (host|proxy)|temporary failure in name resolution|name or service not known|no such host|getaddrinfo|eai_again|enetunreach|dial (tcp|udp)\S* .*(refused|unreachable|timeout|i/o timeout)|failed to connect to|connection refused`)
})

// NetworkFailure reports whether output holds a line that looks like a
// network failure, not counting connections refused on the loopback
// (which a sandbox without network still has: a refused local port is the
// command's own affair).
func NetworkFailure(output string) bool {
	for _, line := range strings.Split(output, "\n") {
		if !netFailure().MatchString(line) {
			continue
		}
		l := strings.ToLower(line)
		if strings.Contains(l, "refused") && !strings.Contains(l, "lookup") &&
			(strings.Contains(l, "127.0.0.1") || strings.Contains(l, "localhost") || strings.Contains(l, "[::1]")) {
			continue
		}
		return true
	}
	return false
}

// The launcher: Init recognises it by its first argument and runs it.
const (
	launcherArg  = "__agentls_sandbox_launcher__"
	zygoteArg    = "__agentls_sandbox_zygote__"
	launchPrefix = "agentls sandbox: "
	launchFailed = 126
	probeOK      = "agentls-sandbox-ok"
)

// launchConfig is what the parent tells the launcher (JSON in argv[2]).
type launchConfig struct {
	Argv        []string `json:"argv"`
	Dir         string   `json:"dir,omitempty"`
	Workspace   string   `json:"workspace,omitempty"`
	View        bool     `json:"view,omitempty"`
	ViewThrough []string `json:"viewThrough,omitempty"`
	Network     bool     `json:"network"`
	Writable    []string `json:"writable"`
	Protect     []string `json:"protect"`
	Probe       bool     `json:"probe,omitempty"`
}

// Init runs the sandbox launcher and never returns when this process was
// started as one; otherwise it returns at once. Call it first thing in
// main (and in TestMain of tests that run sandboxed commands).
func Init() {
	if len(os.Args) == 2 && os.Args[1] == zygoteArg {
		err := zygoteMain()
		fmt.Fprintf(os.Stderr, "%s%v\n", launchPrefix, err)
		os.Exit(launchFailed)
	}
	if len(os.Args) < 3 || os.Args[1] != launcherArg {
		return
	}
	err := launch(os.Args[2])
	fmt.Fprintf(os.Stderr, "%s%v\n", launchPrefix, err)
	os.Exit(launchFailed)
}

// The launcher starts in an init function, not in main, because every
// package of the binary is initialized before main, and in agentls that
// costs more than the sandbox's whole budget. Go initializes packages in
// import-path order as soon as their imports are, and this package
// imports only the standard library and x/sys, so few others run first.
func init() { Init() }
