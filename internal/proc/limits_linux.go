package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// cgroupDir is a cgroup made for one command; "" is none.
type cgroupDir string

var cgroupSeq atomic.Int64

// pidsBase is the cgroup directory agentls's commands' cgroups go in, or
// "" when there is none it may use.
var pidsBase = sync.OnceValue(func() string {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	defer f.Close()
	var v1, v2 string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = filepath.Join("/sys/fs/cgroup", parts[2])
		case strings.Contains(","+parts[1]+",", ",pids,"):
			v1 = filepath.Join("/sys/fs/cgroup/pids", parts[2])
		}
	}
	for _, base := range []string{v1, v2} {
		if base == "" {
			continue
		}
		// A v2 cgroup's children have pids.max only when its
		// subtree_control enables pids; a v1 pids cgroup always does.
		dir, err := os.MkdirTemp(base, "agentls-probe-")
		if err != nil {
			continue
		}
		_, err = os.Stat(filepath.Join(dir, "pids.max"))
		os.Remove(dir)
		if err == nil {
			removeStale(base)
			return base
		}
	}
	return ""
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

// newCgroup returns a cgroup with pids.max = max and its cgroup.procs
// open for writing (the launcher joins it by writing 0), or "" and nil
// when there is none to make.
func newCgroup(max int) (cgroupDir, *os.File) {
	base := pidsBase()
	if base == "" {
		return "", nil
	}
	cgroups.Lock()
	var cg cgroupDir
	if n := len(cgroups.free); n > 0 {
		cg, cgroups.free = cgroups.free[n-1], cgroups.free[:n-1]
	}
	cgroups.Unlock()
	if cg == "" {
		dir := filepath.Join(base, fmt.Sprintf("agentls-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", nil
		}
		cg = cgroupDir(dir)
	}
	if err := os.WriteFile(filepath.Join(string(cg), "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		_ = os.Remove(string(cg))
		return "", nil
	}
	f, err := os.OpenFile(filepath.Join(string(cg), "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		_ = os.Remove(string(cg))
		return "", nil
	}
	return cg, f
}

// remove gives the cgroup back for the next command.
func (c cgroupDir) remove() {
	if c == "" {
		return
	}
	cgroups.Lock()
	defer cgroups.Unlock()
	cgroups.free = append(cgroups.free, c)
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

// limitProcs, in the launcher: join the cgroup, and set RLIMIT_NPROC
// (counted per user namespace, so only this sandbox's processes count).
func limitProcs(cfg launchConfig) error {
	if cfg.CgroupFD > 0 {
		_, err := unix.Write(cfg.CgroupFD, []byte("0"))
		unix.Close(cfg.CgroupFD)
		if err != nil {
			return fmt.Errorf("join the sandbox's cgroup: %w", err)
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
