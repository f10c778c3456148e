package proc

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// minLandlockABI is the oldest Landlock the sandbox accepts: before ABI 3
// (Linux 6.2) truncate(2) escapes it.
const minLandlockABI = 3

var avail struct {
	once sync.Once
	ok   bool
	why  string
}

// Available reports whether sandboxed commands can run here and, if not,
// why. It probes once (Landlock ABI, then a real launch of the launcher in
// its namespaces) and caches the answer.
func Available() (ok bool, why string) {
	avail.once.Do(func() { avail.ok, avail.why = probe() })
	return avail.ok, avail.why
}

func probe() (bool, string) {
	// A test hook: the real binary behaves as on a machine without the
	// sandbox (an older kernel, macOS), so that path is tested end to end.
	if os.Getenv("AGENTLS_TEST_NO_SANDBOX") == "1" {
		return false, "disabled by AGENTLS_TEST_NO_SANDBOX (a test hook)"
	}
	abi, err := landlockABI()
	if err != nil {
		return false, fmt.Sprintf("Landlock is not enabled in this kernel (%v)", err)
	}
	if abi < minLandlockABI {
		return false, fmt.Sprintf("this kernel's Landlock ABI %d is older than %d (Linux 6.2)", abi, minLandlockABI)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The probe builds a root as a command's would be (the system, /tmp).
	d, err := Declare(Sandbox{Workspace: "/"}, nil)
	if err != nil {
		return false, err.Error()
	}
	cfg := launchConfig{Argv: []string{"true"}, Root: d.Entries, Probe: true}
	cmd, err := launcher(ctx, cfg, false)
	if err != nil {
		return false, err.Error()
	}
	cmd.Env = CleanEnv(nil, nil)
	cmd.Cancel = func() error { KillTree(cmd); return nil }
	out, err := cmd.CombinedOutput()
	KillTree(cmd)
	if err != nil || strings.TrimSpace(string(out)) != probeOK {
		msg := strings.TrimSpace(strings.TrimPrefix(string(out), launchPrefix))
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return false, fmt.Sprintf("cannot start a process in new user, PID and mount namespaces (does main call proc.Init?): %s", msg)
	}
	return true, ""
}

// sandboxed is the command that runs argv through the launcher, what to
// release once it has ended (its cgroup, its placeholders: only for a
// transient command, one Run waits for), and oom, which reports whether
// the kernel killed a process of the command at its memory cap (false
// when the cap is no cgroup's).
func sandboxed(ctx context.Context, argv, env []string, sb Sandbox, dir string, transient bool) (cmd *exec.Cmd, cleanup func(), oom func() bool, err error) {
	if ok, why := Available(); !ok {
		return nil, nil, nil, fmt.Errorf("proc: %w: %s", ErrUnavailable, why)
	}
	p, err := prepare(argv, env, sb, dir, transient, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	cmd, err = launcher(ctx, p.cfg, sb.Network)
	if err != nil {
		p.cleanup()
		return nil, nil, nil, err
	}
	cmd.ExtraFiles = p.extra
	return cmd, p.cleanup, p.oom, nil
}

// prepared is a command's launch as the parent makes it: what the launcher
// is told, the descriptors it gets (extra[i] is its descriptor 3+i), and
// what the command holds until it ends.
type prepared struct {
	cfg     launchConfig
	extra   []*os.File
	cleanup func()
	oom     func() bool
}

// prepare makes a command's launch; w, when not nil, is the warm launcher
// that will run it (warm_linux.go): its cgroup, and its cache layers when
// they are the ones the command's declaration asks for, are the command's.
func prepare(argv, env []string, sb Sandbox, dir string, transient bool, w *warm) (*prepared, error) {
	cfg, err := configFor(argv, env, sb, dir)
	if err != nil {
		return nil, err
	}
	var extra []*os.File
	add := func(f *os.File) int {
		extra = append(extra, f)
		return 2 + len(extra)
	}
	release := func() {
		for _, f := range extra {
			f.Close()
		}
	}
	if sb.View != nil {
		// The view's texts go through a memory file, not argv's size limits.
		f, err := viewFile(sb.View)
		if err != nil {
			return nil, err
		}
		cfg.ViewFD = add(f)
	}
	// The warm launcher's layer slot is the command's, to its end, even
	// when its caches are not (it unmounts them as it sets up).
	var slotLock *os.File
	if w != nil {
		if w.layersFit(cfg, sb) {
			cfg.CacheLayer, cfg.UseLayered = w.slot, true
		}
		slotLock, w.slotLock = w.slotLock, nil
	}
	if hasCaches(cfg.Root) && !cfg.UseLayered {
		// Without a layer of its own, a cache is not writable at all.
		var lock *os.File
		if cfg.CacheLayer, lock = layerSlot(sb.CacheLayer, sb.Workspace); lock != nil {
			cfg.LayerFD = add(lock) // held until the command ends
		}
	}
	var memoOut *os.File
	memoKey := memoKey(cfg)
	if (!cfg.View || cfg.ViewLayer == "") && (len(cfg.Protect) > 0 || len(cfg.Secrets) > 0) {
		in, out, err := memoFiles(memoKey)
		if err == nil {
			if in != nil {
				cfg.MemoFD = add(in)
			}
			memoOut = out
			cfg.MemoOutFD = add(out)
		}
	}
	var cg cgroupDir
	var memCapped bool
	if w != nil {
		cg, memCapped = w.cg, w.memCapped
		if !cg.setLimits(cfg.MaxProcs, sb.MemoryMax, memCapped) {
			if slotLock != nil {
				slotLock.Close()
			}
			release()
			return nil, errors.New("proc: set the warm launcher's cgroup limits")
		}
	} else {
		var procs []*os.File
		cg, procs, memCapped = newCgroup(cfg.MaxProcs, sb.MemoryMax)
		for _, f := range procs {
			cfg.CgroupFDs = append(cfg.CgroupFDs, add(f))
		}
	}
	if !memCapped && sb.MemoryMax > 0 {
		cfg.MemoryMax = sb.MemoryMax
	}
	oom0 := 0
	if memCapped {
		oom0 = cg.oomKills()
	}
	oom := func() bool { return memCapped && cg.oomKills() > oom0 }
	var unplace func()
	if transient && sb.Mode == ModeWorkspaceWrite && sb.View == nil {
		unplace = placeholders(sb.Workspace, sb.Protect)
	}
	var next warmPlan
	if transient {
		next = planFor(cfg, sb)
	}
	cleanup := func() {
		if memoOut != nil {
			keepMemo(memoKey, memoOut)
		}
		release()
		if slotLock != nil {
			slotLock.Close()
		}
		if unplace != nil {
			unplace()
		}
		cg.remove()
		pruneOnce()
		if transient {
			refill(next)
		}
	}
	return &prepared{cfg: cfg, extra: extra, cleanup: cleanup, oom: oom}, nil
}

func hasCaches(es []Entry) bool {
	for _, e := range es {
		if e.Access == CopyOnWrite {
			return true
		}
	}
	return false
}

// configFor is what the launcher is told.
func configFor(argv, env []string, sb Sandbox, dir string) (launchConfig, error) {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return launchConfig{}, fmt.Errorf("proc: %w", err)
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	d, err := Declare(sb, env)
	if err != nil {
		return launchConfig{}, err
	}
	// The program run (an MCP server, a tool named by its path) is
	// declared too, the file itself, read-only.
	if p, err := resolve(argv[0], lookupEnv(env, "PATH")); err == nil && filepath.IsAbs(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			d.Entries = settle(append(d.Entries, Entry{Path: r, Access: ReadOnly, Why: "the program run"}))
		}
	}
	cfg := launchConfig{Argv: argv, Dir: dir, Workspace: sb.Workspace, Network: sb.Network,
		Writable: sb.writable(), MaxProcs: sb.MaxProcs, Root: d.Entries, Home: d.Home, GitConfigs: d.GitConfigs}
	if sb.Mode == ModeWorkspaceWrite {
		cfg.Protect = sb.Protect
	}
	cfg.ReadOnly = sb.Mode == ModeReadOnly
	cfg.Secrets = sb.SecretFiles
	home := lookupEnv(env, "HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	for _, p := range sb.DenyRead {
		if abs := expandHome(p, home); abs != "" {
			cfg.DenyRead = append(cfg.DenyRead, denyAround(abs, sb.Workspace)...)
		}
	}

	if sb.View != nil {
		cfg.View, cfg.ViewThrough = true, sb.ViewThrough
		if sb.ViewLayer != "" {
			if cfg.ViewLayer, err = filepath.EvalSymlinks(sb.ViewLayer); err != nil {
				return launchConfig{}, fmt.Errorf("proc: view layer: %w", err)
			}
		}
	}
	return cfg, nil
}

// viewFile holds the view's files for the launcher: each its name and
// its text, both length-prefixed (uvarint), so the launcher reads them
// without JSON's base64.
func viewFile(view map[string][]byte) (*os.File, error) {
	var b []byte
	for name, text := range view {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		b = binary.AppendUvarint(b, uint64(len(text)))
		b = append(b, text...)
	}
	fd, err := unix.MemfdCreate("agentls-view", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("proc: view: %w", err)
	}
	f := os.NewFile(uintptr(fd), "agentls-view")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("proc: view: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("proc: view: %w", err)
	}
	return f, nil
}

func launcher(ctx context.Context, cfg launchConfig, network bool) (*exec.Cmd, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("proc: %w", err)
	}
	cmd := exec.CommandContext(ctx, "/proc/self/exe", launcherArg, string(b))
	cmd.SysProcAttr = namespaces(!network, true)
	return cmd, nil
}

// namespaces are the attributes of a process started in new user, mount
// and (when pid) PID namespaces, and a network one when net.
func namespaces(net, pid bool) *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS)
	if pid {
		flags |= syscall.CLONE_NEWPID
	}
	if net {
		flags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Setsid:     true,
		Cloneflags: flags,
		// The same ids inside as outside, so files keep their owners and
		// the command its user; the launcher keeps the capabilities it
		// needs for its set-up across its own exec as ambient ones, and
		// drops them all before it runs the command.
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP},
	}
}

// launch is the launcher's work; it returns only on failure.
func launch(arg string) error {
	// Capabilities, no_new_privs and Landlock belong to a thread; exec
	// from the same one.
	runtime.LockOSThread()
	var cfg launchConfig
	if err := json.Unmarshal([]byte(arg), &cfg); err != nil || len(cfg.Argv) == 0 {
		return fmt.Errorf("bad launcher argument: %v", err)
	}
	return setUp(cfg, joinCgroups(cfg.CgroupFDs), nil)
}

// setUp builds the command's file system from cfg, confines the launcher
// and runs the command in its place; it returns only on failure. joined
// reports the launcher's joining of the command's cgroups, awaited before
// the command runs. layered are the caches a warm launcher layered before
// it knew its command (warm_linux.go).
func setUp(cfg launchConfig, joined <-chan error, layered []string) error {
	if err := limitProcs(cfg); err != nil {
		return err
	}
	var view map[string][]byte
	if cfg.ViewFD > 0 {
		f := os.NewFile(uintptr(cfg.ViewFD), "view")
		b, err := io.ReadAll(f)
		f.Close()
		if err == nil {
			view, err = parseView(b)
		}
		if err != nil {
			return fmt.Errorf("read the view: %w", err)
		}
	}
	if cfg.View {
		cfg.viewDirs = map[string]bool{"": true}
		for rel := range view {
			for d := filepath.Dir(filepath.Clean(filepath.FromSlash(rel))); d != "." && d != "/"; d = filepath.Dir(d) {
				cfg.viewDirs[filepath.ToSlash(d)] = true
			}
		}
	}
	// Mounts in order: the view on the workspace, the caches' layers, the
	// protected names and the masks (both found on what the command will
	// see), the new root built from the declaration and the masks of the
	// denied paths in it, then the last plan: network, capabilities,
	// Landlock.
	p, err := buildMounts(cfg, view)
	if err != nil {
		return err
	}
	var slots [nslots]uintptr
	if i, errno := runOps(p.ops, &slots); i >= 0 {
		return fmt.Errorf("%s: %w", p.ops[i].what, syscall.Errno(errno))
	}
	runtime.KeepAlive(p)
	var m masker
	defer m.close()
	layered, err = mountBoundary(cfg, &m, layered)
	if err != nil {
		return err
	}
	isLayered := map[string]bool{}
	for _, c := range layered {
		isLayered[c] = true
	}
	if err := buildRoot(cfg, isLayered); err != nil {
		return err
	}
	if err := maskDenied(cfg, &m); err != nil {
		return err
	}
	path, err := resolve(cfg.Argv[0], os.Getenv("PATH"))
	if err != nil {
		return err
	}
	cfg.Writable = append(cfg.Writable, "/tmp", "/dev/shm")
	if cfg.Home != "" && cfg.Home != "/" {
		cfg.Writable = append(cfg.Writable, cfg.Home)
	}
	cfg.Writable = append(cfg.Writable, layered...)
	if p, err = buildConfine(cfg); err != nil {
		return err
	}
	if i, errno := runOps(p.ops, &slots); i >= 0 {
		return fmt.Errorf("%s: %w", p.ops[i].what, syscall.Errno(errno))
	}
	runtime.KeepAlive(p)
	if err := <-joined; err != nil {
		return err
	}
	if cfg.Probe {
		fmt.Println(probeOK)
		os.Exit(0)
	}
	// No descriptor but the standard three reaches the command: agentls
	// may have inherited some from whoever started it.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close descriptors: %w", err)
	}
	if err := unix.Exec(path, cfg.Argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", cfg.Argv[0], err)
	}
	return nil
}

// parseView reads viewFile's bytes.
func parseView(b []byte) (map[string][]byte, error) {
	view := map[string][]byte{}
	next := func() ([]byte, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errors.New("malformed")
		}
		v := b[k : k+int(n)]
		b = b[k+int(n):]
		return v, nil
	}
	for len(b) > 0 {
		name, err := next()
		if err != nil {
			return nil, err
		}
		text, err := next()
		if err != nil {
			return nil, err
		}
		view[string(name)] = text
	}
	return view, nil
}

// resolve finds a program the way the shell would, in PATH when its name
// has no slash.
func resolve(name, pathEnv string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	return lookPath(name, pathEnv)
}
