package proc_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/internal/proc"
)

// warmRun runs s in a warm launcher, failing the test when none took it.
func warmRun(t *testing.T, ctx context.Context, s proc.Spec) proc.Result {
	t.Helper()
	if !proc.WaitWarm() {
		t.Fatal("no warm launcher waits")
	}
	n := proc.WarmRuns()
	r, err := proc.Run(ctx, s)
	if err != nil {
		t.Fatalf("Run(%q): %v", s.Shell, err)
	}
	if proc.WarmRuns() != n+1 {
		t.Fatalf("Run(%q) did not run in the warm launcher", s.Shell)
	}
	return r
}

// A command run in a warm launcher sees what the same command run cold
// sees: its directory, environment, user, descriptors, declared file
// system and masks.
func TestWarmLauncherRunsTheCommandAsColdDoes(t *testing.T) {
	needSandbox(t)
	ws := goWorkspace(t)
	write(t, filepath.Join(ws, "sub", ".env"), "TOKEN=secret\n", 0o644)
	settleWarm(t)
	env := append(os.Environ(), "AGENTLS_WARM_TEST=yes")
	look := "pwd; id -u; env | grep -v '^_=' | sort; ls /proc/self/fd; cat sub/.env | wc -c; ls -d / /home /root 2>&1; echo x > sub/new && cat sub/new; " +
		"echo x > .envrc; ls -a"
	s := proc.Spec{Shell: look, Env: env, Dir: ws, Sandbox: confined()}
	run(t, proc.Spec{Shell: "true", Env: env, Dir: ws, Sandbox: confined()}) // starts the warm one
	warm := warmRun(t, context.Background(), s)
	os.Remove(filepath.Join(ws, "sub", "new"))
	proc.Shutdown() // no warm launcher: the next runs cold
	cold := run(t, s)
	proc.EnableWarm()
	os.Remove(filepath.Join(ws, "sub", "new"))
	if warm.Output != cold.Output || warm.ExitCode != cold.ExitCode {
		t.Errorf("warm:\n%s(exit %d)\ncold:\n%s(exit %d)", warm.Output, warm.ExitCode, cold.Output, cold.ExitCode)
	}
	for _, want := range []string{"AGENTLS_WARM_TEST=yes", "\n0\n", "\nx\n"} {
		if !strings.Contains(warm.Output, want) {
			t.Errorf("the warm command's output lacks %q:\n%s", want, warm.Output)
		}
	}
}

// A command in a warm launcher is killed at its timeout and on
// cancellation, its whole tree with it.
func TestWarmLauncherTimeoutAndCancel(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	run(t, proc.Spec{Shell: "true", Dir: ws, Sandbox: confined()})
	start := time.Now()
	r := warmRun(t, context.Background(), proc.Spec{Shell: "sleep 60 & sleep 60", Dir: ws, Sandbox: confined(), Timeout: 300 * time.Millisecond})
	if !r.TimedOut || time.Since(start) > 30*time.Second {
		t.Errorf("not timed out: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	r = warmRun(t, ctx, proc.Spec{Shell: "sleep 60", Dir: ws, Sandbox: confined()})
	if !r.Cancelled {
		t.Errorf("not cancelled: %+v", r)
	}
}

// A warm launcher layers the caches of the last command's workspace ahead;
// a command of another workspace gets its own layers, never those.
func TestWarmLauncherCachesAreTheWorkspaces(t *testing.T) {
	needSandbox(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	settleWarm(t)
	gomod, env := modCache(t)
	one, two := goWorkspace(t), goWorkspace(t)
	run(t, proc.Spec{Shell: "true", Env: env, Dir: one, Sandbox: confined()})
	if r := warmRun(t, context.Background(), proc.Spec{Shell: "echo planted > " + gomod + "/p", Env: env, Dir: one, Sandbox: confined()}); r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	if r := warmRun(t, context.Background(), proc.Spec{Shell: "cat " + gomod + "/p", Env: env, Dir: one, Sandbox: confined()}); r.Output != "planted\n" {
		t.Errorf("the same workspace does not see its layer: %+v", r)
	}
	// The launcher waiting now holds one's layers.
	if r := warmRun(t, context.Background(), proc.Spec{Shell: "cat " + gomod + "/p; echo mine > " + gomod + "/q", Env: env, Dir: two, Sandbox: confined()}); strings.Contains(r.Output, "planted") || r.ExitCode != 0 {
		t.Errorf("another workspace sees the first one's layer, or cannot write its own: %+v", r)
	}
	if r := warmRun(t, context.Background(), proc.Spec{Shell: "cat " + gomod + "/q", Env: env, Dir: one, Sandbox: confined()}); r.ExitCode == 0 {
		t.Errorf("the first workspace sees the second one's layer: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(gomod, "p")); err == nil {
		t.Errorf("the real cache was written: %q", b)
	}
}

// A mount made on the machine after a warm launcher started (a drive
// plugged in, the workspace on it) is there for the next command: the
// launcher has the mount table of its start, so that command starts cold.
func TestWarmLauncherSeesMountsMadeSince(t *testing.T) {
	needSandbox(t)
	if os.Geteuid() != 0 {
		t.Skip("mounting on the machine takes root")
	}
	ws := t.TempDir()
	sub := filepath.Join(ws, "drive")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, proc.Spec{Shell: "true", Dir: ws, Sandbox: confined()})
	if !proc.WaitWarm() {
		t.Fatal("no warm launcher waits")
	}
	if err := unix.Mount("agentls-test", sub, "tmpfs", 0, ""); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(sub, unix.MNT_DETACH)
	write(t, filepath.Join(sub, "f"), "on the drive\n", 0o644)
	n := proc.WarmRuns()
	if r := run(t, proc.Spec{Shell: "cat drive/f", Dir: ws, Sandbox: confined()}); r.Output != "on the drive\n" {
		t.Errorf("the mount made since is not there: %+v", r)
	}
	if proc.WarmRuns() != n {
		t.Errorf("the launcher started before the mount ran the command")
	}
	if r := warmRun(t, context.Background(), proc.Spec{Shell: "cat drive/f", Dir: ws, Sandbox: confined()}); r.Output != "on the drive\n" {
		t.Errorf("the next launcher does not see the mount: %+v", r)
	}
}

// helperWarm plays agentls for TestWarmLauncherDiesWithAgentls: it runs a
// sandboxed command in ws, prints the pid of the warm launcher started
// after it, and waits to be killed.
func helperWarm(ws string) {
	proc.EnableWarm()
	sb := proc.Sandbox{Protect: []string{".vscode/"}}
	if _, err := proc.Run(context.Background(), proc.Spec{Shell: "true", Dir: ws, Sandbox: sb}); err != nil || !proc.WaitWarm() {
		fmt.Println("no warm launcher:", err)
		os.Exit(1)
	}
	fmt.Println(proc.WarmPIDs()[0])
	select {}
}

// A warm launcher waiting for a command exits when agentls is killed
// (its socket closes; the kernel's parent-death signal kills it too): no
// sandboxed process outlives agentls.
func TestWarmLauncherDiesWithAgentls(t *testing.T) {
	needSandbox(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROC_TEST_WARM="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the helper: %q", line)
	}
	if unix.Kill(pid, 0) != nil {
		t.Fatalf("the warm launcher %d is not running", pid)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for range 500 {
		if unix.Kill(pid, 0) == unix.ESRCH {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("the warm launcher %d outlived the process that started it by 5 s", pid)
}
