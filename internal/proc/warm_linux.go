package proc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Warm launchers. A cold launcher costs its command a clone into new
// namespaces and the start of this binary (4 to 5 ms here), and the
// joining of the command's cgroup, for which the kernel waits for an RCU
// grace period (11 to 16 ms on cgroup v1 when commands come seconds
// apart, as a model sends them; a benchmark running commands back to
// back hides it). A warm launcher has done all that before its command
// exists. Once a command Run ran sandboxed has ended, agentls starts the
// next launcher for that kind of command: it joins a cgroup of its own,
// layers the caches the last command's declaration named (in a layer
// slot it holds shared), and waits on a socket. The next command of that
// kind sends it what a cold launcher gets (its configuration, its
// environment) with its descriptors, and the launcher builds the rest of
// the command's file system and confines it exactly as a cold one does
// (setUp).
//
// Until its command arrives nothing runs in it but the launcher, and no
// descriptor reaches it but the socket and its cgroups'. Its caches are
// the command's only when the declaration asks for those caches, in the
// same workspace's layers, each still the directory (device and inode)
// that was layered, in a slot that is still there; otherwise it unmounts
// them and layers what the command's configuration says. A mount or
// unmount made on the machine since it started (it has the mount table of
// then) sends the command to a cold launcher. One launcher waits per kind
// (network or not, memory cgroup or not); a second command at once, or
// one of another kind, starts cold. An idle launcher exits when agentls
// does (its socket closes, and the kernel kills it when the thread that
// started it ends), and Shutdown ends them all first. One waiting costs
// about 1.3 MB of memory of its own (11.5 MB resident, 10.2 of it this
// binary's pages, shared with agentls).
//
// A process has warm launchers once it calls EnableWarm (agentls's main
// does; tests of other packages run every command cold).

// warmFD is the socket's descriptor in a warm launcher.
const warmFD = 3

// maxWarmMessage bounds a command's configuration sent to a warm launcher;
// a larger one (the socket's buffer refuses it first) starts cold.
const maxWarmMessage = 1 << 20

// warmWait is how long a command waits for a warm launcher being started
// rather than start cold (starting one takes a few milliseconds).
const warmWait = 20 * time.Millisecond

type warmKey struct {
	network bool
	memCap  bool
}

// warmPlan is what the next warm launcher of a kind is made for: the
// last command's limits, workspace and caches.
type warmPlan struct {
	key       warmKey
	maxProcs  int
	memoryMax int64
	ws        string
	layers    string   // the workspace's cache layers (Sandbox.CacheLayer)
	caches    []string // copy-on-write caches to layer ahead
}

// warmConfig is a warm launcher's argument.
type warmConfig struct {
	CgroupFDs  []int    `json:"cgroupFDs,omitempty"`
	CacheLayer string   `json:"cacheLayer,omitempty"`
	Caches     []string `json:"caches,omitempty"`
}

type warm struct {
	cmd       *exec.Cmd
	conn      *os.File // agentls's end of the socket
	plan      warmPlan
	cg        cgroupDir
	memCapped bool
	slot      string   // the layer slot its caches are layered in ("": none)
	slotID    fileID   // the slot directory's identity then
	slotLock  *os.File // the slot's lock, held shared while it waits
	cacheIDs  []fileID // the caches' identity when they were layered
	// mounts is agentls's mount table, open since just before the
	// launcher's clone copied it: it polls as changed once a mount or
	// unmount was made since (a drive plugged in, the workspace on it),
	// and the launcher, which has the old table, is not used. (A raw
	// descriptor: Go's poller would take the change for itself.)
	mounts int
}

func (w *warm) closeMounts() {
	if w.mounts >= 0 {
		unix.Close(w.mounts)
		w.mounts = -1
	}
}

// mountsChanged reports whether agentls's mount table changed since the
// launcher copied it.
func (w *warm) mountsChanged() bool {
	if w.mounts < 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(w.mounts), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	return err != nil || n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0
}

type fileID struct{ dev, ino uint64 }

// warmRuns counts the commands run in a warm launcher (for the tests).
var warmRuns atomic.Int64

var warmPool struct {
	sync.Mutex
	on       bool
	idle     map[warmKey]*warm
	starting map[warmKey]chan struct{}
}

// EnableWarm gives this process warm launchers: after a sandboxed command
// Run ran has ended, the next of its kind is started ahead.
func EnableWarm() {
	warmPool.Lock()
	defer warmPool.Unlock()
	warmPool.on = true
	if warmPool.idle == nil {
		warmPool.idle, warmPool.starting = map[warmKey]*warm{}, map[warmKey]chan struct{}{}
	}
}

// Shutdown ends the warm launchers, waiting for those being started, and
// starts no more: call it before the process exits, so that none outlives
// it for a moment holding its cache layers.
func Shutdown() {
	warmPool.Lock()
	warmPool.on = false
	var starting []chan struct{}
	for _, c := range warmPool.starting {
		starting = append(starting, c)
	}
	warmPool.Unlock()
	for _, c := range starting {
		<-c
	}
	warmPool.Lock()
	idle := warmPool.idle
	warmPool.idle = map[warmKey]*warm{}
	warmPool.Unlock()
	for _, w := range idle {
		w.end(true)
	}
}

func warmKeyFor(sb Sandbox) warmKey {
	mb, _ := memBase()
	return warmKey{network: sb.Network, memCap: sb.MemoryMax > 0 && mb != ""}
}

// planFor is the plan of the launcher to start after a command of cfg.
func planFor(cfg launchConfig, sb Sandbox) warmPlan {
	p := warmPlan{key: warmKeyFor(sb), maxProcs: cfg.MaxProcs, memoryMax: sb.MemoryMax, ws: sb.Workspace, layers: sb.CacheLayer}
	for _, e := range cfg.Root {
		if e.Access != CopyOnWrite {
			continue
		}
		// A cache in the workspace would be hidden by a view mounted
		// over the workspace after it: layered cold, after the view.
		if rel, err := filepath.Rel(sb.Workspace, e.Path); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			p.caches = nil
			break
		}
		p.caches = append(p.caches, e.Path)
	}
	return p
}

// identities are the caches' devices and inodes; false when one cannot
// be read.
func identities(paths []string) ([]fileID, bool) {
	var ids []fileID
	for _, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil {
			return nil, false
		}
		ids = append(ids, fileID{st.Dev, st.Ino})
	}
	return ids, true
}

// layersFit reports whether the launcher's layered caches are those the
// command's configuration asks for, in a slot that is still there, now
// locked exclusively for the command (see lockLayer).
func (w *warm) layersFit(cfg launchConfig, sb Sandbox) bool {
	if w.slot == "" || w.slotLock == nil || sb.CacheLayer != w.plan.layers || sb.Workspace != w.plan.ws {
		return false
	}
	if unix.Flock(int(w.slotLock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false // being pruned (the shared lock is lost with it)
	}
	if ids, ok := identities([]string{w.slot}); !ok || ids[0] != w.slotID {
		return false // pruned while it waited
	}
	var caches []string
	for _, e := range cfg.Root {
		if e.Access == CopyOnWrite {
			caches = append(caches, e.Path)
		}
	}
	if !slices.Equal(caches, w.plan.caches) {
		return false
	}
	ids, ok := identities(caches)
	return ok && slices.Equal(ids, w.cacheIDs)
}

// refill starts a warm launcher for p's kind unless one waits or is being
// started.
func refill(p warmPlan) {
	warmPool.Lock()
	if !warmPool.on || warmPool.idle[p.key] != nil || warmPool.starting[p.key] != nil {
		warmPool.Unlock()
		return
	}
	done := make(chan struct{})
	warmPool.starting[p.key] = done
	warmPool.Unlock()
	go func() {
		var w *warm
		defer func() {
			_ = recover() // a launcher not started: the next command starts cold
			warmPool.Lock()
			delete(warmPool.starting, p.key)
			keep := w != nil && warmPool.on
			if keep {
				warmPool.idle[p.key] = w
			}
			warmPool.Unlock()
			if w != nil && !keep {
				w.end(true) // Shutdown came first
			}
			close(done)
		}()
		w, _ = startWarm(p)
	}()
}

// takeWarm takes the launcher waiting for key's kind, waiting a moment for
// one being started; nil when there is none.
func takeWarm(key warmKey) *warm {
	warmPool.Lock()
	w := warmPool.idle[key]
	done := warmPool.starting[key]
	delete(warmPool.idle, key)
	warmPool.Unlock()
	if w != nil || done == nil {
		return w
	}
	select {
	case <-done:
	case <-time.After(warmWait):
		return nil
	}
	warmPool.Lock()
	defer warmPool.Unlock()
	w = warmPool.idle[key]
	delete(warmPool.idle, key)
	return w
}

// startWarm starts a launcher for p.
func startWarm(p warmPlan) (w *warm, err error) {
	if ok, why := Available(); !ok {
		return nil, fmt.Errorf("proc: %w: %s", ErrUnavailable, why)
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("proc: %w", err)
	}
	w = &warm{conn: os.NewFile(uintptr(pair[0]), "agentls-warm"), plan: p, mounts: -1}
	child := os.NewFile(uintptr(pair[1]), "agentls-warm")
	defer child.Close()
	mem := int64(0)
	if p.key.memCap {
		mem = p.memoryMax
	}
	var procs []*os.File
	w.cg, procs, w.memCapped = newCgroup(p.maxProcs, mem)
	defer func() {
		for _, f := range procs {
			f.Close()
		}
	}()
	extra := []*os.File{child}
	var wc warmConfig
	for _, f := range procs {
		extra = append(extra, f)
		wc.CgroupFDs = append(wc.CgroupFDs, 2+len(extra))
	}
	if len(p.caches) > 0 && p.layers != "" {
		if ids, ok := identities(p.caches); ok {
			// A slot of its own (taken exclusively), held shared while it
			// waits: commands keep out of it, and pruning, which counts
			// it as unused, may remove it (see lockLayer).
			if slot, lock := layerSlot(p.layers, p.ws); lock != nil {
				sid, ok := identities([]string{slot})
				if ok && unix.Flock(int(lock.Fd()), unix.LOCK_SH|unix.LOCK_NB) == nil {
					w.slot, w.slotID, w.slotLock, w.cacheIDs = slot, sid[0], lock, ids
					wc.CacheLayer, wc.Caches = slot, p.caches
				} else {
					lock.Close()
				}
			}
		}
	}
	b, err := json.Marshal(wc)
	if err != nil {
		w.end(false)
		return nil, fmt.Errorf("proc: %w", err)
	}
	if w.mounts, err = unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		w.mounts = -1
		w.end(false)
		return nil, fmt.Errorf("proc: %w", err)
	}
	cmd := exec.Command("/proc/self/exe", launcherWarmArg, string(b))
	cmd.SysProcAttr = namespaces(!p.key.network, true)
	// Killed with agentls while it waits (it clears that for its command).
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.Env = []string{} // the command's arrives with it
	cmd.Dir = "/"
	cmd.ExtraFiles = extra
	if err := cmd.Start(); err != nil {
		w.end(false)
		return nil, fmt.Errorf("proc: start a warm launcher: %w", err)
	}
	w.cmd = cmd
	return w, nil
}

// end ends a launcher no command will use: it is killed at once, and
// reaped (its cgroup given back) before end returns when wait, else in
// the background.
func (w *warm) end(wait bool) {
	w.conn.Close()
	w.closeMounts()
	if w.slotLock != nil {
		w.slotLock.Close()
		w.slotLock = nil
	}
	if w.cmd == nil || w.cmd.Process == nil {
		w.cg.remove()
		return
	}
	_ = w.cmd.Process.Kill()
	reap := func() {
		_ = w.cmd.Wait()
		w.cg.remove()
	}
	if wait {
		reap()
		return
	}
	go func() {
		defer func() { _ = recover() }()
		reap()
	}()
}

var devNull = sync.OnceValues(func() (*os.File, error) { return os.Open(os.DevNull) })

// runWarm starts s, whose sandbox is sb, in a warm launcher with out as its
// stdout and stderr: ok false when none waited for its kind (or it could
// not take the command), and s is to be started cold.
func runWarm(ctx context.Context, s Spec, sb Sandbox, out *os.File) (cmd *exec.Cmd, ok bool, err error) {
	if sb.Mode == ModeOff {
		return nil, false, nil
	}
	if ok, _ := Available(); !ok {
		return nil, false, nil
	}
	argv, err := s.argv()
	if err != nil {
		return nil, false, nil // the cold start says why
	}
	null, err := devNull()
	if err != nil {
		return nil, false, nil
	}
	w := takeWarm(warmKeyFor(sb))
	if w == nil {
		return nil, false, nil
	}
	if w.mountsChanged() {
		w.end(false)
		return nil, false, nil
	}
	env := sandboxEnv(CleanEnv(s.Env, s.Secrets))
	p, err := prepare(argv, env, sb, s.Dir, true, w)
	if err != nil {
		w.end(false)
		return nil, true, err
	}
	p.cfg.Env = env
	msg, err := json.Marshal(p.cfg)
	if err == nil && len(msg) > maxWarmMessage {
		err = errors.New("configuration too large")
	}
	if err == nil {
		fds := []int{int(null.Fd()), int(out.Fd()), int(out.Fd())}
		for _, f := range p.extra {
			fds = append(fds, int(f.Fd()))
		}
		err = unix.Sendmsg(int(w.conn.Fd()), msg, unix.UnixRights(fds...), nil, unix.MSG_NOSIGNAL)
		runtime.KeepAlive(out)
	}
	w.conn.Close()
	w.closeMounts()
	if err != nil {
		// (A launcher that died waiting, or a configuration too large
		// for the socket.)
		w.cg = nil // the command's now: its cleanup gives it back
		w.end(false)
		p.cleanup()
		return nil, false, nil
	}
	cmd = w.cmd
	warmRuns.Add(1)
	stop := context.AfterFunc(ctx, func() {
		defer func() { _ = recover() }()
		KillTree(cmd)
	})
	releases.Store(cmd, release{func() { stop(); p.cleanup() }, p.oom})
	return cmd, true, nil
}

// launchWarm is a warm launcher's work: it returns only on failure, and
// exits quietly when agentls closes the socket.
func launchWarm(arg string) error {
	runtime.LockOSThread()
	var wc warmConfig
	if err := json.Unmarshal([]byte(arg), &wc); err != nil {
		os.Exit(launchFailed) // nowhere to say it: agentls starts the command cold
	}
	joined := joinCgroups(wc.CgroupFDs)
	var layered []string
	if wc.CacheLayer != "" {
		var root []Entry
		for _, c := range wc.Caches {
			root = append(root, Entry{Path: c, Access: CopyOnWrite})
		}
		layered = layerCaches(root, wc.CacheLayer)
	}
	cfg, err := receiveCommand()
	if err == io.EOF {
		os.Exit(0)
	}
	// The command is not killed with the thread that started it.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the parent-death signal: %w", err)
	}
	if err != nil {
		return err
	}
	return setUp(cfg, joined, layered)
}

// receiveCommand reads the command's configuration and descriptors from
// the socket: its stdin, stdout and stderr become 0, 1 and 2, and the
// configuration's descriptor numbers (3 and up) are mapped to those
// received.
func receiveCommand() (launchConfig, error) {
	var cfg launchConfig
	buf := make([]byte, maxWarmMessage)
	oob := make([]byte, unix.CmsgSpace(4*64))
	var n, oobn, flags int
	var err error
	for {
		n, oobn, flags, _, err = unix.Recvmsg(warmFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return cfg, fmt.Errorf("receive the command: %w", err)
	}
	if n == 0 && oobn == 0 {
		return cfg, io.EOF
	}
	unix.Close(warmFD)
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	var fds []int
	if err == nil && len(msgs) == 1 {
		fds, err = unix.ParseUnixRights(&msgs[0])
	}
	if err != nil || len(fds) < 3 {
		return cfg, fmt.Errorf("receive the command: %d descriptors (%v)", len(fds), err)
	}
	for i := range 3 {
		if err := unix.Dup3(fds[i], i, 0); err != nil {
			return cfg, fmt.Errorf("receive the command: %w", err)
		}
		unix.Close(fds[i])
	}
	if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
		return cfg, errors.New("receive the command: truncated")
	}
	if err := json.Unmarshal(buf[:n], &cfg); err != nil || len(cfg.Argv) == 0 {
		return cfg, fmt.Errorf("bad launcher argument: %v", err)
	}
	fd := func(k int) int {
		if k >= 3 && k < len(fds) {
			return fds[k]
		}
		return 0
	}
	cfg.ViewFD, cfg.LayerFD, cfg.MemoFD, cfg.MemoOutFD = fd(cfg.ViewFD), fd(cfg.LayerFD), fd(cfg.MemoFD), fd(cfg.MemoOutFD)
	cfg.CgroupFDs = nil
	os.Clearenv()
	for _, kv := range cfg.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			os.Setenv(k, v)
		}
	}
	return cfg, nil
}
