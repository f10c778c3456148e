package proc

import (
	"crypto/sha256"
	"encoding/hex"
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

// DefaultMaxProcs bounds the processes a sandboxed command may have at
// once when Sandbox.MaxProcs is zero: enough for a parallel build, too few
// for a fork bomb to starve the machine.
const DefaultMaxProcs = 1024

// DefaultMemoryMax caps a sandboxed command's memory when
// Sandbox.MemoryMax is zero: its whole tree's, page cache and the private
// /tmp included, where agentls can make a memory cgroup; each process's
// data elsewhere. Enough for a large build, and a runaway command cannot
// take the machine.
const DefaultMemoryMax = 4 << 30

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
	// Protect are the names of files and directories (a trailing "/"
	// marks a directory) that stay read-only at any depth of a writable
	// workspace: each entry is a path.Match glob on one path element,
	// compared without case. Those that exist when the command starts are
	// bound read-only; those that do not, at the top of the workspace,
	// get a read-only empty placeholder for the command's life, so it
	// cannot create them either. The caller passes policy.ProtectedNames():
	// this package holds no list of its own.
	Protect []string
	// SecretFiles are the tools.secretFiles globs: workspace files that
	// match (those found when the command starts, at any depth) read as
	// empty inside the sandbox.
	SecretFiles []string
	// DenyRead are paths outside the workspace ("~/" is the home
	// directory) that read as empty (a file) or as an empty directory
	// inside the sandbox: the user's credentials and histories
	// (policy.DefaultDenyRead and sandbox.denyRead).
	DenyRead []string
	// Scratch are directories agentls made for this command alone (the
	// LSP view's exchange directory, a check's copy of the workspace): they
	// are declared, and writable in every mode.
	Scratch []string
	// AllowRead are more paths ("~/" is the home directory) a command may
	// read, beyond the declared ones (sandbox.allowRead).
	AllowRead []string
	// MemoryMax caps the command's memory in bytes; zero means
	// DefaultMemoryMax, a negative value no cap.
	MemoryMax int64
	// CacheLayer is the directory under which the writable layers of the
	// copy-on-write caches live; empty means
	// $XDG_STATE_HOME/agentls/sandbox/<hash of the workspace's path and
	// identity> (see CacheLayers).
	CacheLayer string
	// MaxProcs bounds the processes the command may have at once; zero
	// means DefaultMaxProcs.
	MaxProcs int
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
	// ViewLayer, with View, is an empty directory of the caller's own
	// (outside the workspace, on a file system with user extended
	// attributes) that becomes the view's upper layer instead of a tmpfs
	// that dies with the command: once the command has ended, ViewLayer/u
	// holds everything it wrote in the workspace as overlayfs leaves it (new
	// and changed files; a deletion as a 0/0 character device; a directory
	// replaced whole marked with the user.overlay.opaque attribute), and
	// the view's texts, for the caller to carry in through the write path.
	// The command never sees the directory.
	ViewLayer string
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
	for _, p := range sb.Protect {
		if n := strings.TrimSuffix(p, "/"); n == "" || strings.Contains(n, "/") {
			return sb, fmt.Errorf("proc: protected name %q is not one path element", p)
		}
	}
	if sb.MaxProcs <= 0 {
		sb.MaxProcs = DefaultMaxProcs
	}
	if sb.MemoryMax == 0 {
		sb.MemoryMax = DefaultMemoryMax
	}
	if sb.CacheLayer == "" {
		sb.CacheLayer = defaultCacheLayer(sb.Workspace)
	}
	return sb, nil
}

// writable lists the existing directories the process may write, but for
// its private ones and the caches, which it may write only through their
// layers (the launcher adds those).
func (sb Sandbox) writable() []string {
	var dirs []string
	if sb.Mode == ModeWorkspaceWrite {
		dirs = append(dirs, sb.Workspace)
		dirs = append(dirs, sb.WritableRoots...)
	}
	dirs = append(dirs, sb.Scratch...)
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

// defaultCacheLayer is where a workspace's cache layers live: agentls's
// state directory, which no sandboxed process can read or write (it is not
// declared), and which is never inside a cache it layers. They are keyed
// by the workspace's path and its identity (the directory's inode and
// birth time): a project made later at the same path is another one, and
// never sees the layers of the one that was there.
func defaultCacheLayer(ws string) string {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		state = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(ws + "\x00" + workspaceIdentity(ws)))
	return filepath.Join(state, "agentls", "sandbox", hex.EncodeToString(sum[:8]))
}

// expandHome turns "~/x" into an absolute path; other relative paths are
// dropped.
func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home == "" {
			return ""
		}
		return filepath.Join(home, rest)
	}
	if !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Clean(p)
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
	launcherArg = "__agentls_sandbox_launcher__"
	// A launcher started ahead of its command (warm_linux.go).
	launcherWarmArg = "__agentls_sandbox_warm__"
	launchPrefix    = "agentls sandbox: "
	launchFailed    = 126
	probeOK         = "agentls-sandbox-ok"
)

// launchConfig is what the parent tells the launcher (JSON in argv[2]).
type launchConfig struct {
	Argv        []string `json:"argv"`
	Dir         string   `json:"dir,omitempty"`
	Workspace   string   `json:"workspace,omitempty"`
	View        bool     `json:"view,omitempty"`
	ViewLayer   string   `json:"viewLayer,omitempty"`
	ViewThrough []string `json:"viewThrough,omitempty"`
	Network     bool     `json:"network"`
	Writable    []string `json:"writable"`
	// Protect and Secrets are name globs the launcher looks for in the
	// workspace (ReadOnly: the whole workspace is read-only already).
	Protect []string `json:"protect,omitempty"`
	Secrets []string `json:"secrets,omitempty"`
	// ReadOnly binds the workspace read-only over itself (ModeReadOnly):
	// a workspace beneath a writable directory (the temp directory) stays
	// read-only all the same.
	ReadOnly bool     `json:"readOnly,omitempty"`
	DenyRead []string `json:"denyRead,omitempty"`
	// Root is the declaration the new root is built from (Declare); its
	// copy-on-write entries are layered in CacheLayer.
	Root       []Entry  `json:"root,omitempty"`
	GitConfigs []string `json:"gitConfigs,omitempty"`
	Home       string   `json:"home,omitempty"`
	CacheLayer string   `json:"cacheLayer,omitempty"`
	MaxProcs   int      `json:"maxProcs,omitempty"`
	// MemoryMax, when set, is applied as RLIMIT_DATA: no cgroup holds it.
	MemoryMax int64 `json:"memoryMax,omitempty"`
	// Descriptors the launcher inherits: the view's texts and the
	// cgroup.procs files to join (0: none).
	ViewFD    int   `json:"viewFD,omitempty"`
	LayerFD   int   `json:"layerFD,omitempty"`
	CgroupFDs []int `json:"cgroupFDs,omitempty"`
	// The walk's records (walkmemo_linux.go): read from MemoFD (0: none),
	// the next ones written to MemoOutFD.
	MemoFD    int `json:"memoFD,omitempty"`
	MemoOutFD int `json:"memoOutFD,omitempty"`
	// viewDirs, in the launcher: the directories holding the view's files
	// ("" the top), the only ones its fresh upper layer has.
	viewDirs map[string]bool
	Probe    bool `json:"probe,omitempty"`
	// For a warm launcher (warm_linux.go): the command's environment,
	// and whether the caches it layered ahead are the command's (else it
	// unmounts them and layers CacheLayer's).
	Env        []string `json:"env,omitempty"`
	UseLayered bool     `json:"useLayered,omitempty"`
}

// Init runs the sandbox launcher and never returns when this process was
// started as one; otherwise it returns at once. Call it first thing in
// main (and in TestMain of tests that run sandboxed commands).
func Init() {
	if len(os.Args) < 3 {
		return
	}
	var err error
	switch os.Args[1] {
	case launcherArg:
		err = launch(os.Args[2])
	case launcherWarmArg:
		err = launchWarm(os.Args[2])
	default:
		return
	}
	fmt.Fprintf(os.Stderr, "%s%v\n", launchPrefix, err)
	os.Exit(launchFailed)
}

// The launcher starts in an init function, not in main, because every
// package of the binary is initialized before main, and in agentls that
// costs more than the sandbox's whole budget. Go initializes packages in
// import-path order as soon as their imports are, and this package
// imports only the standard library and x/sys, so few others run first.
func init() { Init() }

// denyAround is what masking p means for a command whose workspace is ws:
// p itself, unless the workspace is p or inside it (a task's worktree
// under agentls's state directory); then every entry of p as it is now
// but the one on the way to the workspace, and so on down. The workspace
// stays visible and everything beside it is masked.
func denyAround(p, ws string) []string {
	rp := p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		rp = r
	}
	rel, err := filepath.Rel(rp, ws)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return []string{p}
	}
	if rel == "." {
		return nil
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	ents, err := os.ReadDir(rp)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		child := filepath.Join(rp, e.Name())
		if e.Name() == first {
			out = append(out, denyAround(child, ws)...)
			continue
		}
		out = append(out, child)
	}
	return out
}
