package proc

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Capabilities is what the sandbox can enforce on this machine, part by
// part, for agentls doctor: the kernel features it is built on, each
// probed for real where that is cheap.
type Capabilities struct {
	OS string `json:"os"`
	// Available and Why are Available()'s answer: whether sandboxed
	// commands run at all.
	Available bool   `json:"available"`
	Why       string `json:"why,omitempty"`
	// LandlockABI is the kernel's Landlock ABI (0: none; LandlockErr
	// says why); the sandbox needs 3, and confines Unix sockets from 9.
	LandlockABI int    `json:"landlockABI"`
	LandlockErr string `json:"landlockError,omitempty"`
	MinABI      int    `json:"minLandlockABI"`
	// UserNamespaces: a process can be started in new user, PID, mount and
	// network namespaces (proven by a launch when Available; otherwise
	// what the kernel's settings say, in UserNamespacesWhy).
	UserNamespaces    bool   `json:"userNamespaces"`
	UserNamespacesWhy string `json:"userNamespacesWhy,omitempty"`
	// Overlay: an overlayfs view of a workspace mounts in the sandbox (a
	// sandboxed command read a file only the view holds).
	Overlay    bool   `json:"overlayfs"`
	OverlayWhy string `json:"overlayfsWhy,omitempty"`
	// PidsCgroup is the cgroup a command's pids.max goes in; "" means
	// RLIMIT_NPROC bounds its processes instead.
	PidsCgroup string `json:"pidsCgroup,omitempty"`
}

// Probe finds out what the sandbox can enforce here. It runs one
// sandboxed command (the overlay probe) when the sandbox is available;
// ctx bounds it.
func Probe(ctx context.Context) Capabilities {
	c := Capabilities{OS: runtime.GOOS, MinABI: minABI}
	c.Available, c.Why = Available()
	abi, err := LandlockABI()
	c.LandlockABI = abi
	if err != nil {
		c.LandlockErr = err.Error()
	}
	c.PidsCgroup = PidsCgroup()
	if c.Available {
		c.UserNamespaces = true
		c.Overlay, c.OverlayWhy = probeOverlay(ctx)
	} else {
		c.UserNamespaces, c.UserNamespacesWhy = userNamespaces()
		c.OverlayWhy = "not tried: the sandbox is unavailable"
	}
	return c
}

// probeOverlay runs `cat` in the sandbox on a view holding a file the disk
// does not: only a mounted overlay shows it.
func probeOverlay(ctx context.Context) (bool, string) {
	ws, err := os.MkdirTemp("", "agentls-doctor-")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(ws)
	layers := filepath.Join(ws, ".layers")
	const name, text = "agentls-view-probe", "view ok"
	res, err := Run(ctx, Spec{Argv: []string{"cat", name}, Dir: ws, Timeout: 20 * time.Second,
		Sandbox: Sandbox{Workspace: ws, CacheLayer: layers, View: map[string][]byte{name: []byte(text)}}})
	switch {
	case err != nil:
		return false, err.Error()
	case res.ExitCode != 0 || strings.TrimSpace(res.Output) != text:
		return false, strings.TrimSpace(res.Output)
	}
	return true, ""
}

// userNamespaces says what the kernel's settings allow, where no launch
// proved it.
func userNamespaces() (bool, string) {
	if runtime.GOOS != "linux" {
		return false, "not Linux"
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	if read("/proc/sys/user/max_user_namespaces") == "0" {
		return false, "disabled: user.max_user_namespaces is 0"
	}
	if os.Geteuid() != 0 && read("/proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return false, "disabled for unprivileged users: kernel.unprivileged_userns_clone is 0"
	}
	if os.Geteuid() != 0 && read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1" {
		return false, "restricted by AppArmor: kernel.apparmor_restrict_unprivileged_userns is 1"
	}
	return true, "allowed by the kernel's settings (no launch was tried)"
}
