package proc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The zygote: a launcher started once per process (lazily, on the first
// sandboxed Run) and kept running, in a user and a mount namespace of its
// own, holding the capabilities the set-up needs there. For each command
// it forks a child into fresh PID, mount (and network) namespaces that
// runs the plan and execs the command: no Go binary starts per command,
// which is what made the re-executed launcher cost 7-10 ms.
//
// Protocol: the parent sends, on a SOCK_SEQPACKET control socket, one
// message per command carrying two descriptors: a stream socket for the
// request and the output pipe's write end. On the stream the parent
// writes the request (JSON) and later, to kill the command, "kill"; the
// zygote answers {"pid":…} (or {"error":…}) and then {"exit":…}. When the
// parent goes away, the control socket's end makes the zygote exit; its
// children have a parent-death signal.

type zygoteRequest struct {
	Config launchConfig      `json:"config"`
	View   map[string][]byte `json:"view,omitempty"`
	Env    []string          `json:"env"`
}

type zygoteReply struct {
	Pid      int    `json:"pid,omitempty"`
	Error    string `json:"error,omitempty"`
	Exit     *int   `json:"exit,omitempty"`
	Signaled bool   `json:"signaled,omitempty"`
}

type zygote struct {
	ctl  *os.File
	cmd  *exec.Cmd
	dead atomic.Bool
}

var zyg struct {
	once sync.Once
	z    *zygote
	err  error
}

// theZygote starts the zygote on first use; nil with an error when it
// cannot run (callers then use the launcher).
func theZygote() (*zygote, error) {
	zyg.once.Do(func() { zyg.z, zyg.err = startZygote() })
	if zyg.err == nil && zyg.z.dead.Load() {
		return nil, errors.New("the sandbox zygote exited")
	}
	return zyg.z, zyg.err
}

func startZygote() (*zygote, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "zygote"), os.NewFile(uintptr(fds[1]), "zygote")
	defer theirs.Close()
	cmd := exec.Command("/proc/self/exe", zygoteArg)
	cmd.SysProcAttr = namespaces(false, false)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.Env = CleanEnv(nil, nil)
	cmd.Stderr = os.Stderr
	cmd.ExtraFiles = []*os.File{theirs}
	if err := cmd.Start(); err != nil {
		mine.Close()
		return nil, err
	}
	z := &zygote{ctl: mine, cmd: cmd}
	go func() {
		defer func() { _ = recover() }()
		_ = cmd.Wait()
		z.dead.Store(true)
	}()
	return z, nil
}

// run runs one command through the zygote. started is false when the
// command never started (the caller may use the launcher instead).
func (z *zygote) run(runCtx context.Context, req zygoteRequest, out *Capper) (r Result, started bool, err error) {
	r.ExitCode = -1
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return r, false, err
	}
	conn := os.NewFile(uintptr(fds[0]), "zygote-request")
	defer conn.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		unix.Close(fds[1])
		return r, false, err
	}
	defer pr.Close()
	err = unix.Sendmsg(int(z.ctl.Fd()), []byte("r"), unix.UnixRights(fds[1], int(pw.Fd())), nil, 0)
	unix.Close(fds[1])
	pw.Close()
	if err != nil {
		return r, false, fmt.Errorf("zygote: %w", err)
	}
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return r, false, fmt.Errorf("zygote: %w", err)
	}
	dec := json.NewDecoder(conn)
	var first zygoteReply
	if err := dec.Decode(&first); err != nil {
		return r, false, fmt.Errorf("zygote: %w", err)
	}
	if first.Error != "" {
		return r, true, fmt.Errorf("proc: %s", first.Error)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		defer func() { _ = recover() }()
		_, _ = io.Copy(out, pr)
	}()
	stop := context.AfterFunc(runCtx, func() { // its own goroutine
		defer func() { _ = recover() }()
		_, _ = conn.Write([]byte("kill\n"))
	})
	defer stop()
	var last zygoteReply
	if err := dec.Decode(&last); err != nil || last.Exit == nil {
		// The zygote died: its child died with it (parent-death signal).
		<-copied
		return r, true, fmt.Errorf("proc: the sandbox zygote went away: %v", err)
	}
	waitCopied(copied, pr)
	if !last.Signaled {
		r.ExitCode = *last.Exit
	}
	return r, true, nil
}

// zygoteMain serves requests until the control socket closes.
func zygoteMain() error {
	runtime.LockOSThread() // the capabilities are this thread's until forks
	unix.CloseOnExec(3)    // the control socket: no command may inherit it
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	buf, oob := make([]byte, 16), make([]byte, unix.CmsgSpace(2*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(3, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			os.Exit(0) // the parent is gone
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			continue
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 2 {
			for _, fd := range fds {
				unix.Close(fd)
			}
			continue
		}
		go serve(os.NewFile(uintptr(fds[0]), "request"), os.NewFile(uintptr(fds[1]), "output"), null)
	}
}

func serve(conn, out, null *os.File) {
	defer conn.Close()
	defer func() {
		if v := recover(); v != nil {
			_ = json.NewEncoder(conn).Encode(zygoteReply{Error: fmt.Sprintf("sandbox zygote: panic: %v", v)})
		}
	}()
	enc, dec := json.NewEncoder(conn), json.NewDecoder(conn)
	var req zygoteRequest
	err := dec.Decode(&req)
	var pid int
	if err == nil {
		pid, err = spawn(req, out, null)
	}
	out.Close()
	if err != nil {
		_ = enc.Encode(zygoteReply{Error: err.Error()})
		return
	}
	pidfd, perr := unix.PidfdOpen(pid, 0)
	_ = enc.Encode(zygoteReply{Pid: pid})
	// "kill", or the parent's end closing, kills the command: it is the
	// first process of its PID namespace, so everything in it dies. The
	// pidfd names this process even once reaped; it is closed here only,
	// so its number is never reused under the signal.
	go func() {
		defer func() { _ = recover() }()
		// (The request's encoder ended it with a newline, maybe buffered.)
		rest, _ := io.ReadAll(dec.Buffered())
		for !bytes.Contains(rest, []byte("kill")) {
			var b [16]byte
			n, err := conn.Read(b[:])
			if err != nil {
				break
			}
			rest = append(rest, b[:n]...)
		}
		if perr == nil {
			_ = unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
			unix.Close(pidfd)
		}
	}()
	var ws unix.WaitStatus
	for {
		_, err = unix.Wait4(pid, &ws, 0, nil)
		if err != unix.EINTR {
			break
		}
	}
	code := ws.ExitStatus()
	_ = enc.Encode(zygoteReply{Exit: &code, Signaled: ws.Signaled()})
}

// spawn forks a child into new namespaces that runs the plan and execs
// the command.
func spawn(req zygoteRequest, out, null *os.File) (int, error) {
	cfg := req.Config
	path, err := resolve(cfg.Argv[0], lookupEnv(req.Env, "PATH"))
	if err != nil {
		return 0, err
	}
	p, err := buildPlan(setup{cfg: cfg, view: req.View, stdio: []int{int(null.Fd()), int(out.Fd()), int(out.Fd())}})
	if err != nil {
		return 0, err
	}
	c := &child{ops: p.ops}
	if c.path, err = unix.BytePtrFromString(path); err != nil {
		return 0, err
	}
	if c.argv, err = syscall.SlicePtrFromStrings(cfg.Argv); err != nil {
		return 0, err
	}
	if c.envp, err = syscall.SlicePtrFromStrings(req.Env); err != nil {
		return 0, err
	}
	flags := uintptr(unix.CLONE_NEWPID | unix.CLONE_NEWNS)
	if !cfg.Network {
		flags |= unix.CLONE_NEWNET
	}
	var all, old [1]uint64
	all[0] = ^uint64(0)
	runtime.LockOSThread()
	syscall.ForkLock.Lock()
	_, _, _ = syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	pid, errno := forkChild(flags, c)
	_, _, _ = syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	syscall.ForkLock.Unlock()
	runtime.UnlockOSThread()
	runtime.KeepAlive(p)
	runtime.KeepAlive(c)
	if errno != 0 {
		return 0, fmt.Errorf("fork: %w", syscall.Errno(errno))
	}
	return int(pid), nil
}

type child struct {
	ops   []op
	slots [nslots]uintptr
	path  *byte
	argv  []*byte
	envp  []*byte
	digit [24]byte
}

var (
	failPrefix = launchPrefix
	failErrno  = ": errno "
	noSignals  [1]uint64
)

// forkChild clones; the child runs the plan and execs, or writes why not
// to its stderr and exits with launchFailed. Between fork and exec only
// raw system calls run, on this goroutine's stack copy: nothing here may
// grow the stack, allocate or reach the scheduler.
//
//go:nosplit
//go:norace
func forkChild(flags uintptr, c *child) (uintptr, uintptr) {
	pid, _, e := syscall.RawSyscall6(unix.SYS_CLONE, flags|uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
	if e != 0 || pid != 0 {
		return pid, uintptr(e)
	}
	i, errno := runOps(c.ops, &c.slots)
	what := "exec"
	if i < 0 {
		_, _, _ = syscall.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&noSignals)), 0, 8, 0, 0)
		_, _, e = syscall.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(c.path)), uintptr(unsafe.Pointer(&c.argv[0])), uintptr(unsafe.Pointer(&c.envp[0])))
		errno = uintptr(e)
	} else {
		what = c.ops[i].what
	}
	rawWrite(failPrefix)
	rawWrite(what)
	rawWrite(failErrno)
	n := len(c.digit)
	for {
		n--
		c.digit[n] = byte('0' + errno%10)
		errno /= 10
		if errno == 0 || n == 0 {
			break
		}
	}
	_, _, _ = syscall.RawSyscall(unix.SYS_WRITE, 2, uintptr(unsafe.Pointer(&c.digit[n])), uintptr(len(c.digit)-n))
	_, _, _ = syscall.RawSyscall(unix.SYS_WRITE, 2, uintptr(unsafe.Pointer(unsafe.StringData("\n"))), 1)
	for {
		_, _, _ = syscall.RawSyscall(unix.SYS_EXIT_GROUP, launchFailed, 0, 0)
	}
}

//go:nosplit
//go:norace
func rawWrite(s string) {
	if len(s) > 0 {
		_, _, _ = syscall.RawSyscall(unix.SYS_WRITE, 2, uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(len(s)))
	}
}

// viaZygote runs a sandboxed command through the zygote; ok is false when
// it could not start there and the launcher should run it instead.
func viaZygote(runCtx context.Context, s Spec, sb Sandbox, out *Capper) (r Result, ok bool, err error) {
	if avail, _ := Available(); !avail {
		return r, false, nil
	}
	z, err := theZygote()
	if err != nil {
		return r, false, nil
	}
	argv, err := s.argv()
	if err != nil {
		return Result{ExitCode: -1}, true, err
	}
	env := CleanEnv(s.Env, s.Secrets)
	cfg, err := configFor(argv, env, sb, s.Dir)
	if err != nil {
		return Result{ExitCode: -1}, true, err
	}
	r, started, err := z.run(runCtx, zygoteRequest{Config: cfg, View: sb.View, Env: env}, out)
	if !started {
		return r, false, nil
	}
	return r, true, err
}
