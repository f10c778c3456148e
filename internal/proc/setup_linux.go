package proc

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Part of the sandbox's set-up inside its namespaces is a plan: a list of
// system calls computed beforehand in ordinary Go (paths, flags, Landlock
// rules, the view's files), run by runOps, which makes raw system calls
// only. The mounts that depend on what the workspace holds (mounts_linux.go)
// run between the two plans, as ordinary Go.

// op is one system call. An argument whose slot is set is replaced by a
// descriptor an earlier op opened; keep stores the result in a slot; poke
// writes a slot into memory (a Landlock rule's parent descriptor) first.
type op struct {
	nr       uintptr
	args     [6]uintptr
	slot     [6]int8
	keep     int8
	poke     *int32
	pokeSlot int8
	what     string
}

const nslots = 4

// Slots of a plan's descriptors.
const (
	slotTmp     = 0 // a descriptor opened and closed by neighbouring ops
	slotRuleset = 1
	slotLower   = 2 // the real workspace, under the view
)

// Fixed descriptor numbers the view's mount options name, as
// /proc/self/fd/N: free in the launcher (it holds a dozen at most), and
// below 64, the size of a new process's descriptor table. A descriptor
// past it makes the kernel grow the table, and a process with more than
// one thread waits a whole RCU grace period for that: 10 to 16 ms of
// every view's set-up here, when these were 1000 and 1001.
const (
	fdLower = 62
	fdUpper = 63
)

type plan struct {
	ops  []op
	refs []any // keeps alive what the ops' pointers point to
}

func (p *plan) cstr(s string) uintptr {
	b := append([]byte(s), 0)
	p.refs = append(p.refs, b)
	return uintptr(unsafe.Pointer(&b[0]))
}

func (p *plan) ptr(v any, at unsafe.Pointer) uintptr {
	p.refs = append(p.refs, v)
	return uintptr(at)
}

// add appends a call; what names it in an error.
func (p *plan) add(what string, nr uintptr, args ...uintptr) *op {
	o := op{nr: nr, keep: -1, pokeSlot: -1, what: what}
	for i := range o.slot {
		o.slot[i] = -1
	}
	copy(o.args[:], args)
	p.ops = append(p.ops, o)
	return &p.ops[len(p.ops)-1]
}

func (p *plan) mount(what, src, target, fstype string, flags uintptr, data string) {
	d := uintptr(0)
	if data != "" {
		d = p.cstr(data)
	}
	s, f := p.cstr(src), uintptr(0)
	if fstype != "" {
		f = p.cstr(fstype)
	}
	p.add(what, unix.SYS_MOUNT, s, p.cstr(target), f, flags, d)
}

func (p *plan) open(what, path string, flags int, mode uint32, keep int8) {
	p.add(what, unix.SYS_OPENAT, atFDCWD, p.cstr(path), uintptr(flags), uintptr(mode)).keep = keep
}

// atFDCWD is AT_FDCWD (negative) as the kernel reads the argument.
var atFDCWD = func() uintptr { v := int64(unix.AT_FDCWD); return uintptr(v) }()

func (p *plan) onSlot(nr uintptr, what string, s int8, args ...uintptr) *op {
	o := p.add(what, nr, append([]uintptr{0}, args...)...)
	o.slot[0] = s
	return o
}

// runOps runs the plan's calls in order and returns the index of the one
// that failed and its errno, or -1.
func runOps(ops []op, slots *[nslots]uintptr) (int, uintptr) {
	for i := 0; i < len(ops); i++ {
		o := &ops[i]
		if o.poke != nil {
			*o.poke = int32(slots[o.pokeSlot])
		}
		a := o.args
		for j := 0; j < 6; j++ {
			if s := o.slot[j]; s >= 0 {
				a[j] = slots[s]
			}
		}
		r, _, e := syscall.RawSyscall6(o.nr, a[0], a[1], a[2], a[3], a[4], a[5])
		if e != 0 {
			return i, uintptr(e)
		}
		if o.keep >= 0 {
			slots[o.keep] = r
		}
	}
	return -1, 0
}

// buildMounts: private mounts and the view.
func buildMounts(cfg launchConfig, view map[string][]byte) (*plan, error) {
	p := &plan{}
	p.mount("make mounts private", "", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")
	if cfg.View {
		if err := p.view(cfg, view); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// buildConfine: the loopback, the working directory, no capabilities,
// Landlock.
func buildConfine(cfg launchConfig) (*plan, error) {
	p := &plan{}
	if !cfg.Network {
		ifr, err := unix.NewIfreq("lo")
		if err != nil {
			return nil, err
		}
		ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK)
		p.add("loopback socket", unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0).keep = slotTmp
		p.onSlot(unix.SYS_IOCTL, "loopback up", slotTmp, unix.SIOCSIFFLAGS, p.ptr(ifr, unsafe.Pointer(ifr)))
		p.onSlot(unix.SYS_CLOSE, "close", slotTmp)
	}
	if cfg.Dir != "" {
		p.add("chdir "+cfg.Dir, unix.SYS_CHDIR, p.cstr(cfg.Dir))
	}
	p.dropCapabilities()
	return p, p.landlock(cfg)
}

// view mounts an overlay on the workspace: the real one below, and above
// it a fresh tmpfs holding the view's files, where every write lands and
// dies with the mount namespace.
func (p *plan) view(cfg launchConfig, files map[string][]byte) error {
	ws := cfg.Workspace
	wsInfo, err := os.Stat(ws)
	if err != nil {
		return err
	}
	p.open("open the workspace", ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0, slotLower)
	p.onSlot(unix.SYS_DUP3, "dup", slotLower, fdLower, unix.O_CLOEXEC)
	// The upper layer: a tmpfs mounted for a moment on the workspace's
	// path, or the caller's directory (Sandbox.ViewLayer), where the
	// command's writes stay once it has ended.
	base := ws
	if cfg.ViewLayer != "" {
		base = cfg.ViewLayer
	} else {
		p.mount("mount the view's tmpfs", "agentls-view", ws, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0700")
	}
	p.open("open the view's upper layer", base, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0, slotTmp)
	p.onSlot(unix.SYS_DUP3, "dup", slotTmp, fdUpper, unix.O_CLOEXEC)
	p.onSlot(unix.SYS_CLOSE, "close", slotTmp)
	upper := filepath.Join(base, "u")
	p.mkdir(upper, wsInfo.Mode())
	p.mkdir(filepath.Join(base, "w"), 0o700)
	made := map[string]bool{}
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		local := filepath.Clean(filepath.FromSlash(rel))
		if !filepath.IsLocal(local) {
			return fmt.Errorf("view file %q is not inside the workspace", rel)
		}
		// Every directory on the way must be a real one: an upper
		// directory would hide a symlink of the workspace.
		dir := filepath.Dir(local)
		var parts []string
		for d := dir; d != "."; d = filepath.Dir(d) {
			parts = append([]string{d}, parts...)
		}
		for _, d := range parts {
			fi, err := os.Lstat(filepath.Join(ws, d))
			mode := os.FileMode(0o755)
			switch {
			case err == nil && !fi.IsDir():
				return fmt.Errorf("view file %q: %s is not a directory", rel, d)
			case err == nil:
				mode = fi.Mode()
			}
			if !made[d] {
				made[d] = true
				p.mkdir(filepath.Join(upper, d), mode)
			}
		}
		mode := uint32(0o644)
		if fi, err := os.Lstat(filepath.Join(ws, local)); err == nil {
			if fi.IsDir() {
				return fmt.Errorf("view file %q is a directory", rel)
			}
			if fi.Mode().IsRegular() {
				mode = uint32(fi.Mode().Perm())
			}
		}
		text := files[rel]
		p.open("write view file "+rel, filepath.Join(upper, local), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, mode, slotTmp)
		if len(text) > 0 {
			p.onSlot(unix.SYS_WRITE, "write view file "+rel, slotTmp, p.ptr(text, unsafe.Pointer(&text[0])), uintptr(len(text)))
		}
		p.onSlot(unix.SYS_FCHMOD, "chmod view file "+rel, slotTmp, uintptr(mode))
		p.onSlot(unix.SYS_CLOSE, "close", slotTmp)
	}
	opts := "lowerdir=/proc/self/fd/" + strconv.Itoa(fdLower) +
		",upperdir=/proc/self/fd/" + strconv.Itoa(fdUpper) + "/u" +
		",workdir=/proc/self/fd/" + strconv.Itoa(fdUpper) + "/w" +
		// Whiteouts and opaque directories as user.overlay.* attributes
		// (a user namespace may not set trusted.*): without them,
		// deleting a directory of the disk fails half-way with EIO.
		",userxattr"
	p.mount("mount the view (overlayfs)", "agentls-view", ws, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts)
	p.add("close", unix.SYS_CLOSE, fdUpper)
	return nil
}

func (p *plan) mkdir(path string, mode os.FileMode) {
	p.add("mkdir "+path, unix.SYS_MKDIRAT, atFDCWD, p.cstr(path), uintptr(mode.Perm()))
	// mkdir's mode passes through the umask; the directory's must not.
	p.add("chmod "+path, unix.SYS_FCHMODAT, atFDCWD, p.cstr(path), uintptr(mode.Perm()), 0)
}

// dropCapabilities empties every capability set, so the command has no
// capability after exec, even as uid 0.
func (p *plan) dropCapabilities() {
	p.add("drop ambient capabilities", unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL)
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		p.add("drop capability "+strconv.Itoa(c), unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, uintptr(c))
	}
	// The inheritable set too: root's exec would turn it into permitted.
	hdr := &unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	data := &[2]unix.CapUserData{}
	p.add("capset", unix.SYS_CAPSET, p.ptr(hdr, unsafe.Pointer(hdr)), p.ptr(data, unsafe.Pointer(&data[0])))
}

// landlock: read and execute everywhere, everything under the writable
// directories, read and write on the harmless devices; abstract Unix
// sockets and signals stay inside.
func (p *plan) landlock(cfg launchConfig) error {
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
	attr := &unix.LandlockRulesetAttr{Access_fs: handled}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	p.add("landlock ruleset", unix.SYS_LANDLOCK_CREATE_RULESET, p.ptr(attr, unsafe.Pointer(attr)), unsafe.Sizeof(*attr), 0).keep = slotRuleset
	read := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR)
	device := uint64(unix.LANDLOCK_ACCESS_FS_READ_FILE|unix.LANDLOCK_ACCESS_FS_WRITE_FILE|unix.LANDLOCK_ACCESS_FS_IOCTL_DEV) & handled
	rule := func(path string, access uint64, required bool) error {
		fi, err := os.Stat(path)
		if err != nil {
			if required {
				return err
			}
			return nil
		}
		if !fi.IsDir() {
			access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
		}
		a := &unix.LandlockPathBeneathAttr{Allowed_access: access}
		p.open("open "+path, path, unix.O_PATH|unix.O_CLOEXEC, 0, slotTmp)
		o := p.onSlot(unix.SYS_LANDLOCK_ADD_RULE, "landlock rule for "+path, slotRuleset, unix.LANDLOCK_RULE_PATH_BENEATH, p.ptr(a, unsafe.Pointer(a)), 0)
		o.poke, o.pokeSlot = &a.Parent_fd, slotTmp
		p.onSlot(unix.SYS_CLOSE, "close", slotTmp)
		return nil
	}
	if err := rule("/", read, true); err != nil {
		return err
	}
	for _, d := range cfg.Writable {
		if err := rule(d, handled, true); err != nil {
			return err
		}
	}
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"} {
		if err := rule(d, device, false); err != nil {
			return err
		}
	}
	if err := rule("/dev/shm", handled, false); err != nil {
		return err
	}
	p.add("no_new_privs", unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1)
	p.onSlot(unix.SYS_LANDLOCK_RESTRICT_SELF, "landlock", slotRuleset, 0)
	p.onSlot(unix.SYS_CLOSE, "close", slotRuleset)
	return nil
}
