//go:build unix

package proc

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ownSession starts cmd in a new session: no controlling terminal to
// prompt on (a password prompt fails instead of hanging), and a process
// group of its own to kill.
func ownSession(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// KillTree kills cmd's process, its process group and every descendant
// that left the group (found through /proc). For a sandboxed command the
// process is the first of its PID namespace, so killing it also kills
// everything inside. It is safe to call more than once and on a command
// that never started.
func KillTree(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		releaseCmd(cmd)
		return
	}
	defer releaseCmd(cmd)
	pid := cmd.Process.Pid
	// Stop before killing: a process found in one scan could otherwise
	// fork a child the scan missed just before it dies, and the child
	// would be orphaned outside the group. Stopped processes fork no
	// more, so scan until a scan finds nothing new (bounded: a fork bomb must not
	// keep us scanning).
	_ = syscall.Kill(-pid, syscall.SIGSTOP)
	found := map[int]bool{}
	for range 8 {
		added := false
		for _, p := range descendants(pid) {
			if !found[p] {
				found[p] = true
				added = true
				_ = syscall.Kill(p, syscall.SIGSTOP)
			}
		}
		if !added {
			break
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = cmd.Process.Kill() // safe once reaped, unlike a kill(2) of pid
	for p := range found {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// killGroup kills the process group of a command already reaped: its
// children were reparented, so there is no tree left to scan.
func killGroup(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// descendants lists the processes below pid, walking the kernel's
// per-thread children lists, or every /proc/*/stat where there are none
// (kernels without CONFIG_PROC_CHILDREN).
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		kids, ok := children(p)
		if !ok {
			return scanDescendants(pid)
		}
		out = append(out, kids...)
		queue = append(queue, kids...)
	}
	return out
}

// children reads /proc/pid/task/*/children; ok is false when the kernel
// has no such files. A process that is gone has no children.
func children(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, true
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir + "/" + t.Name()); serr == nil {
				return nil, false
			}
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				kids = append(kids, c)
			}
		}
	}
	return kids, true
}

// scanDescendants lists the processes below pid, read from /proc/*/stat.
func scanDescendants(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	children := map[int][]int{}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parens.
		s := string(b)
		k := strings.LastIndexByte(s, ')')
		if k < 0 {
			continue
		}
		fields := strings.Fields(s[k+1:])
		head := strings.Fields(s[:k])
		if len(fields) < 2 || len(head) == 0 {
			continue
		}
		p, err1 := strconv.Atoi(head[0])
		pp, err2 := strconv.Atoi(fields[1])
		if err1 != nil || err2 != nil {
			continue
		}
		children[pp] = append(children[pp], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
