package proc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
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
	abi, err := landlockABI()
	if err != nil {
		return false, fmt.Sprintf("Landlock is not enabled in this kernel (%v)", err)
	}
	if abi < minLandlockABI {
		return false, fmt.Sprintf("this kernel's Landlock ABI %d is older than %d (Linux 6.2)", abi, minLandlockABI)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := launchConfig{Argv: []string{"true"}, Writable: []string{os.TempDir()}, Probe: true}
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

// sandboxed is the command that runs argv through the launcher.
func sandboxed(ctx context.Context, argv, env []string, sb Sandbox) (*exec.Cmd, error) {
	if ok, why := Available(); !ok {
		return nil, fmt.Errorf("proc: %w: %s", ErrUnavailable, why)
	}
	cfg := launchConfig{Argv: argv, Network: sb.Network, Writable: sb.writable(env), Protect: sb.protected()}
	return launcher(ctx, cfg, sb.Network)
}

func launcher(ctx context.Context, cfg launchConfig, network bool) (*exec.Cmd, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("proc: %w", err)
	}
	cmd := exec.CommandContext(ctx, "/proc/self/exe", launcherArg, string(b))
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS)
	if !network {
		flags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
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
	return cmd, nil
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
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	for _, p := range cfg.Protect {
		if err := bindReadOnly(p); err != nil {
			return fmt.Errorf("protect %s: %w", p, err)
		}
	}
	if !cfg.Network {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("loopback: %w", err)
		}
	}
	path := cfg.Argv[0]
	if !strings.Contains(path, "/") {
		var err error
		if path, err = lookPath(path); err != nil {
			return err
		}
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if err := restrict(cfg.Writable); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if cfg.Probe {
		fmt.Println(probeOK)
		os.Exit(0)
	}
	env := os.Environ()
	if err := unix.Exec(path, cfg.Argv, env); err != nil {
		return fmt.Errorf("exec %s: %w", cfg.Argv[0], err)
	}
	return nil
}

func lookPath(name string) (string, error) {
	for _, dir := range strings.Split(os.Getenv("PATH"), ":") {
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + name
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: executable file not found in $PATH", name)
}

// bindReadOnly mounts p read-only over itself. A bind mount in a user
// namespace keeps the flags the host locked on the original mount
// (nosuid, nodev, …), so the remount must repeat them.
func bindReadOnly(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, m := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&m.st != 0 {
			flags |= m.ms
		}
	}
	return unix.Mount("", p, "", flags, "")
}

// loopbackUp brings up the new network namespace's lo, so that a test
// talking to a server it started on 127.0.0.1 still works.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// dropCapabilities empties every capability set of this thread,
// so the command has no capability after exec, even as uid 0.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("cap %d: %w", c, err)
		}
	}
	// The inheritable set too: root's exec would turn it into permitted.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return unix.Capset(&hdr, &data[0])
}

// restrict applies Landlock to this thread: read and execute everywhere,
// everything under the writable directories, read and write on the
// harmless devices; abstract Unix sockets and signals stay inside.
func restrict(writable []string) error {
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	handled := uint64(1<<15 - 1) // ABI 3
	if abi >= 5 {
		handled |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if abi >= 9 {
		handled |= accessFSResolveUnix
	}
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, err := landlockCreateRuleset(&attr)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	read := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR)
	device := uint64(unix.LANDLOCK_ACCESS_FS_READ_FILE|unix.LANDLOCK_ACCESS_FS_WRITE_FILE|unix.LANDLOCK_ACCESS_FS_IOCTL_DEV) & handled
	if err := addRule(fd, "/", read, true); err != nil {
		return err
	}
	for _, d := range writable {
		if err := addRule(fd, d, handled, true); err != nil {
			return err
		}
	}
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"} {
		if err := addRule(fd, d, device, false); err != nil {
			return err
		}
	}
	if err := addRule(fd, "/dev/pts", device, false); err != nil {
		return err
	}
	if err := addRule(fd, "/dev/shm", handled, false); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	return landlockRestrictSelf(fd)
}

// addRule allows access beneath path; a path that is missing is an error
// only when required.
func addRule(rulesetFD int, path string, access uint64, required bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if required {
			return fmt.Errorf("open %s: %w", path, err)
		}
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if err := landlockAddPathRule(rulesetFD, &unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}); err != nil {
		return fmt.Errorf("rule for %s: %w", path, err)
	}
	return nil
}
