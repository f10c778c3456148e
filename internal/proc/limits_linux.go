package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Process limits. A cgroup's pids.max bounds the whole tree wherever
// agentls may create a cgroup (cgroup v1's pids hierarchy, or a v2 one
// whose pids controller is enabled for the children of agentls's own);
// RLIMIT_NPROC, set by the launcher, bounds it everywhere else. (The
// kernel does not apply RLIMIT_NPROC to root, hence the cgroup first.)

// cgroupDir is a command's cgroup: one directory per hierarchy (cgroup
// v1's pids and memory, or one v2 cgroup); nil is none.
type cgroupDir []string

var cgroupSeq atomic.Int64

// ownCgroups are the cgroup directories of this process: the v2 one and
// the v1 hierarchies by controller.
var ownCgroups = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			out["v2"] = filepath.Join("/sys/fs/cgroup", parts[2])
		default:
			for _, c := range strings.Split(parts[1], ",") {
				if c == "pids" || c == "memory" {
					out[c] = filepath.Join("/sys/fs/cgroup", parts[1], parts[2])
				}
			}
		}
	}
	return out
})

// controlBase is the cgroup directory under which agentls may make a
// child holding file (pids.max, memory.max, memory.limit_in_bytes), or "".
func controlBase(file string, candidates ...string) string {
	for _, base := range candidates {
		if base == "" {
			continue
		}
		// A v2 cgroup's children have pids.max only when its
		// subtree_control enables pids; a v1 pids cgroup always does.
		dir, err := os.MkdirTemp(base, "agentls-probe-")
		if err != nil {
			continue
		}
		_, err = os.Stat(filepath.Join(dir, file))
		os.Remove(dir)
		if err == nil {
			removeStale(base)
			return base
		}
	}
	return ""
}

// pidsBase is the cgroup directory agentls's commands' cgroups go in for
// the process limit, or "" when there is none it may use.
var pidsBase = sync.OnceValue(func() string {
	own := ownCgroups()
	return controlBase("pids.max", own["pids"], own["v2"])
})

// memBase is the same for the memory cap; memV1 says which files it has.
var memBase = sync.OnceValues(func() (string, bool) {
	own := ownCgroups()
	if b := controlBase("memory.limit_in_bytes", own["memory"]); b != "" {
		return b, true
	}
	return controlBase("memory.max", own["v2"]), false
})

// cgroups are the cgroups of commands that have ended, to be used again:
// removing a cgroup right after its last process has gone fails for a
// while (EBUSY), and waiting for it cost every command milliseconds.
// They are named after agentls's pid; those of agentls processes that
// are gone are removed when the first cgroup is made.
var cgroups struct {
	sync.Mutex
	free []cgroupDir
}

// newCgroup returns a cgroup with pids.max = max and the memory cap mem
// (bytes, 0: none), the cgroup.procs files open for writing (the launcher
// joins it by writing 0), and whether the memory cap is the cgroup's;
// nothing when there is none to make.
func newCgroup(max int, mem int64) (cg cgroupDir, procs []*os.File, memCapped bool) {
	pb := pidsBase()
	mb, _ := memBase()
	if mem <= 0 {
		mb = ""
	}
	var bases []string
	for _, b := range []string{pb, mb} {
		if b != "" && !slices.Contains(bases, b) {
			bases = append(bases, b)
		}
	}
	if len(bases) == 0 {
		return nil, nil, false
	}
	cgroups.Lock()
	if n := len(cgroups.free); n > 0 && len(cgroups.free[n-1]) == len(bases) {
		cg, cgroups.free = cgroups.free[n-1], cgroups.free[:n-1]
	}
	cgroups.Unlock()
	if cg == nil {
		name := fmt.Sprintf("agentls-%d-%d", os.Getpid(), cgroupSeq.Add(1))
		for _, b := range bases {
			dir := filepath.Join(b, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				cg.drop()
				return nil, nil, false
			}
			cg = append(cg, dir)
		}
	}
	fail := func() (cgroupDir, []*os.File, bool) {
		for _, f := range procs {
			f.Close()
		}
		cg.drop()
		return nil, nil, false
	}
	if !cg.setLimits(max, mem, mem > 0 && mb != "") {
		return fail()
	}
	memCapped = mem > 0 && mb != ""
	for _, dir := range cg {
		f, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
		if err != nil {
			return fail()
		}
		procs = append(procs, f)
	}
	return cg, procs, memCapped
}

// setLimits writes pids.max = max, and the memory cap mem (bytes) when
// withMem, in the cgroup's directories; false when one could not be
// written.
func (c cgroupDir) setLimits(max int, mem int64, withMem bool) bool {
	pb := pidsBase()
	mb, v1 := memBase()
	for _, dir := range c {
		base := filepath.Dir(dir)
		if base == pb {
			if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
				return false
			}
		}
		if base == mb && withMem {
			v := strconv.FormatInt(mem, 10)
			var err error
			if v1 {
				// With swap accounting, memsw bounds memory and swap
				// together; it may not be set below the memory limit.
				_ = os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), []byte("-1"), 0)
				err = os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(v), 0)
				_ = os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), []byte(v), 0)
			} else {
				err = os.WriteFile(filepath.Join(dir, "memory.max"), []byte(v), 0)
				_ = os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
			}
			if err != nil {
				return false
			}
		}
	}
	return true
}

func (c cgroupDir) drop() {
	for _, d := range c {
		_ = os.Remove(d)
	}
}

// oomKills is how many processes the kernel killed in the cgroup for
// want of memory, so far.
func (c cgroupDir) oomKills() int {
	for _, d := range c {
		for _, f := range []string{"memory.events", "memory.oom_control"} {
			b, err := os.ReadFile(filepath.Join(d, f))
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				if n, ok := strings.CutPrefix(line, "oom_kill "); ok {
					v, _ := strconv.Atoi(strings.TrimSpace(n))
					return v
				}
			}
		}
	}
	return 0
}

// remove gives the cgroup back for the next command.
func (c cgroupDir) remove() {
	if c == nil {
		return
	}
	cgroups.Lock()
	defer cgroups.Unlock()
	cgroups.free = append(cgroups.free, c)
}

// limitProcs, in the launcher: join the cgroup, and set RLIMIT_NPROC
// (counted per user namespace, so only this sandbox's processes count).
func limitProcs(cfg launchConfig) error {
	if cfg.MemoryMax > 0 {
		// No cgroup of its own for memory: each process's data is
		// bounded instead (RLIMIT_DATA: heap and private writable
		// mappings, not the address space reserved and never used).
		lim := unix.Rlimit{Cur: uint64(cfg.MemoryMax), Max: uint64(cfg.MemoryMax)}
		if err := unix.Setrlimit(unix.RLIMIT_DATA, &lim); err != nil {
			return fmt.Errorf("memory limit: %w", err)
		}
	}
	if cfg.MaxProcs <= 0 {
		return nil
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
		return fmt.Errorf("process limit: %w", err)
	}
	n := uint64(cfg.MaxProcs)
	if lim.Max < n {
		n = lim.Max
	}
	lim.Cur, lim.Max = n, n
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
		return fmt.Errorf("process limit: %w", err)
	}
	return nil
}

// joinCgroups, in the launcher, joins the command's cgroups (writing 0 to
// their cgroup.procs files, fds) on a thread of its own and reports on
// the channel once done. Moving a process between cgroups makes the kernel
// wait for an RCU grace period (10 to 15 ms here when commands are
// seconds apart), which the launcher's mounts use meanwhile: nothing of
// the command runs before it has ended (setUp waits).
func joinCgroups(fds []int) <-chan error {
	done := make(chan error, 1)
	if len(fds) == 0 {
		done <- nil
		return done
	}
	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("join the sandbox's cgroup: %v", r)
			}
			done <- err
		}()
		for _, fd := range fds {
			if _, werr := unix.Write(fd, []byte("0")); werr != nil && err == nil {
				err = fmt.Errorf("join the sandbox's cgroup: %w", werr)
			}
			unix.Close(fd)
		}
	}()
	return done
}

// Placeholders: a protected name that does not exist at the top of the
// workspace gets an empty file or directory for the life of the command,
// which the launcher binds read-only like any protected name: a command
// cannot create .vscode/settings.json or .envrc. Commands running at once
// share them; the last to end removes them, if they are still the empty
// ones made here.
var places struct {
	sync.Mutex
	count map[string]int
	ino   map[string]uint64
}

func placeholders(ws string, names []string) func() {
	places.Lock()
	defer places.Unlock()
	if places.count == nil {
		places.count, places.ino = map[string]int{}, map[string]uint64{}
	}
	var held []string
	for _, n := range names {
		name := strings.TrimSuffix(n, "/")
		// No .git: an empty one makes go build's version stamping fail
		// in a workspace that is not a repository.
		if strings.ContainsAny(name, `*?[\`) || name == ".git" {
			continue
		}
		p := filepath.Join(ws, name)
		if places.count[p] > 0 {
			places.count[p]++
			held = append(held, p)
			continue
		}
		var err error
		if strings.HasSuffix(n, "/") {
			err = os.Mkdir(p, 0o755)
		} else {
			var f *os.File
			if f, err = os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		}
		if err != nil {
			continue // it exists (the launcher protects it), or cannot be made
		}
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			places.ino[p] = st.Ino
		}
		places.count[p] = 1
		held = append(held, p)
	}
	return func() {
		places.Lock()
		defer places.Unlock()
		for _, p := range held {
			if places.count[p]--; places.count[p] > 0 {
				continue
			}
			delete(places.count, p)
			ino := places.ino[p]
			delete(places.ino, p)
			var st unix.Stat_t
			if unix.Lstat(p, &st) != nil || st.Ino != ino {
				continue // replaced by someone else: theirs now
			}
			_ = unix.Rmdir(p)
			if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == 0 {
				_ = os.Remove(p)
			}
		}
	}
}

// removeStale removes the empty cgroups of agentls processes that are gone.
func removeStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "agentls-*-*"))
	for _, d := range dirs {
		pid, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), "agentls-"), "-")
		if n, err := strconv.Atoi(pid); err == nil && n != os.Getpid() {
			if _, err := os.Stat("/proc/" + pid); errors.Is(err, os.ErrNotExist) {
				_ = os.Remove(d)
			}
		}
	}
}
