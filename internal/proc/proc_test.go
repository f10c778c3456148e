package proc_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// The test binary doubles as the sandbox launcher and as a helper program
// (see helperMain), selected by the environment.
func TestMain(m *testing.M) {
	proc.Init()
	if addr := os.Getenv("PROC_TEST_DIAL"); addr != "" {
		helperDial(addr)
	}
	if marker := os.Getenv("PROC_TEST_WALK"); marker != "" {
		helperWalk(marker)
	}
	if ws := os.Getenv("PROC_TEST_WARM"); ws != "" {
		helperWarm(ws)
	}
	// The workspaces' cache layers go to a state directory of the tests'
	// own, not the user's.
	state, err := os.MkdirTemp("", "proc-test-state-")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
	// As agentls runs them: a command after the first of its kind in a
	// warm launcher (warm_linux.go).
	proc.EnableWarm()
	code := m.Run()
	proc.Shutdown()
	_ = filepath.Walk(state, func(p string, _ os.FileInfo, _ error) error { _ = os.Chmod(p, 0o700); return nil })
	os.RemoveAll(state)
	os.Exit(code)
}

// settleWarm ends the warm launchers when the test ends, before its
// temporary directories go (a launcher started after its last command
// holds a cache layer there), and lets the next tests have them again.
// Call it after the t.TempDir it concerns.
func settleWarm(t testing.TB) {
	t.Cleanup(func() {
		proc.Shutdown()
		proc.EnableWarm()
	})
}

// helperDial connects to addr (TCP, or a Unix socket when it starts
// with "unix:") and exits 0 on success, 1 with the error.
func helperDial(addr string) {
	network := "tcp"
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		network, addr = "unix", path
	}
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	c.Close()
	fmt.Println("connected")
	os.Exit(0)
}

var off = proc.Sandbox{Mode: proc.ModeOff}

func run(t *testing.T, s proc.Spec) proc.Result {
	t.Helper()
	r, err := proc.Run(context.Background(), s)
	if err != nil {
		t.Fatalf("Run(%q): %v", s.Shell, err)
	}
	return r
}

func TestCapperKeepsHeadAndTail(t *testing.T) {
	for _, chunk := range []int{1, 7, 100, 5000} {
		c := proc.NewCapper(100)
		var all strings.Builder
		for i := 0; all.Len() < 3000; i++ {
			s := strings.Repeat(string(rune('a'+i%26)), chunk)
			all.WriteString(s)
			c.Write([]byte(s))
		}
		in := all.String()
		got := c.String()
		want := fmt.Sprintf("%s\n[... %d bytes cut ...]\n%s", in[:50], len(in)-100, in[len(in)-50:])
		if got != want {
			t.Errorf("chunk %d:\n got %q\nwant %q", chunk, got, want)
		}
	}
	c := proc.NewCapper(100)
	c.Write([]byte("short"))
	if got := c.String(); got != "short" {
		t.Errorf("uncut output = %q", got)
	}
}

func TestCapperNeverSplitsARune(t *testing.T) {
	c := proc.NewCapper(11)
	c.Write([]byte(strings.Repeat("é", 40)))
	got := c.String()
	if !strings.Contains(got, "bytes cut") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("got %q", got)
	}
}

func TestRunCapsOutputOfARealCommand(t *testing.T) {
	r := run(t, proc.Spec{Shell: "echo FIRST; seq 1 100000; echo LAST", OutputLimit: 200, Sandbox: off})
	if !strings.HasPrefix(r.Output, "FIRST\n1\n") || !strings.HasSuffix(r.Output, "100000\nLAST\n") || !strings.Contains(r.Output, " bytes cut ...]") {
		t.Errorf("output not capped to head and tail:\n%s", r.Output)
	}
	if len(r.Output) > 250 || r.ExitCode != 0 {
		t.Errorf("exit %d, %d bytes", r.ExitCode, len(r.Output))
	}
}

func TestRunReportsExitCodeAndArgv(t *testing.T) {
	r := run(t, proc.Spec{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, Sandbox: off})
	if r.ExitCode != 3 || r.Output != "out\nerr\n" {
		t.Errorf("got %+v", r)
	}
	if _, err := proc.Run(context.Background(), proc.Spec{Sandbox: off}); err == nil {
		t.Error("an empty Spec ran")
	}
	if _, err := proc.Run(context.Background(), proc.Spec{Shell: "true", Sandbox: proc.Sandbox{Mode: "yolo"}}); err == nil {
		t.Error("an unknown sandbox mode was accepted")
	}
	if _, err := proc.Run(context.Background(), proc.Spec{Argv: []string{"/no/such/program"}, Sandbox: off}); err == nil {
		t.Error("a missing program started")
	}
}

func TestChildEnvironmentHasNoSecrets(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH"), "AGENTLS_API_KEY=sk-one", "OPENAI_API_KEY=sk-two",
		"GITHUB_TOKEN=ghp-three", "aws_secret_access_key=four", "COPY=prefix-sk-five", "KEEP=visible"}
	for _, sb := range []proc.Sandbox{off, {}} {
		if sb.Mode == "" {
			if ok, why := proc.Available(); !ok {
				t.Logf("sandbox half skipped: %s", why)
				continue
			}
		}
		r := run(t, proc.Spec{Shell: "env", Env: env, Secrets: []string{"sk-five"}, Dir: t.TempDir(), Sandbox: sb})
		for _, leak := range []string{"sk-one", "sk-two", "ghp-three", "four", "sk-five"} {
			if strings.Contains(r.Output, leak) {
				t.Errorf("mode %q: the child saw %q:\n%s", sb.Mode, leak, r.Output)
			}
		}
		if !strings.Contains(r.Output, "KEEP=visible") {
			t.Errorf("mode %q: an ordinary variable was dropped:\n%s", sb.Mode, r.Output)
		}
	}
}

// treeCommand starts a grandchild that leaves the group (setsid) and
// waits until it runs; the marker is the grandchild's sleep argument.
func treeCommand(dir, marker string) string {
	return fmt.Sprintf("setsid sh -c 'sleep %[2]s & touch %[1]s/ready; wait' & while [ ! -e %[1]s/ready ]; do sleep 0.01; done; echo READY; sleep %[2]s", dir, marker)
}

// alive lists live processes whose command line is "sleep marker".
func alive(marker string) []string {
	var pids []string
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range matches {
		b, err := os.ReadFile(f)
		if err != nil || string(b) != "sleep\x00"+marker+"\x00" {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(f), "stat"))
		if err == nil && !strings.Contains(string(stat), ") Z ") {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

// outlived is what alive still lists once a killed tree has had time to
// die: SIGKILL is delivered at once, but a process is torn down (and leaves
// /proc) a moment later, so a check right after the kill can see a process
// on its way out. A survivor sleeps for thousands of seconds; 5 s tells.
func outlived(marker string) []string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		p := alive(marker)
		if len(p) == 0 || time.Now().After(deadline) {
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func modes(t *testing.T) []proc.Sandbox {
	ms := []proc.Sandbox{off}
	if ok, why := proc.Available(); ok {
		ms = append(ms, proc.Sandbox{})
	} else {
		t.Logf("sandboxed half skipped: %s", why)
	}
	return ms
}

func TestTimeoutKillsTheWholeTree(t *testing.T) {
	for i, sb := range modes(t) {
		dir := t.TempDir()
		marker := fmt.Sprint(7001 + i)
		r := run(t, proc.Spec{Shell: treeCommand(dir, marker), Dir: dir, Timeout: 2 * time.Second, Sandbox: sb})
		if !r.TimedOut || r.Cancelled || r.ExitCode != -1 || !strings.Contains(r.Output, "READY") {
			t.Errorf("mode %q: %+v", sb.Mode, r)
		}
		if p := outlived(marker); len(p) > 0 {
			t.Errorf("mode %q: processes %v outlived the timeout", sb.Mode, p)
		}
	}
}

func TestCancelKillsTheWholeTree(t *testing.T) {
	for i, sb := range modes(t) {
		dir := t.TempDir()
		marker := fmt.Sprint(7101 + i)
		ctx, cancel := context.WithCancel(context.Background())
		// The watcher ends when it cancels, or when Run returned without
		// the tree ever getting ready (cancel below).
		go func() {
			for {
				if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
					cancel()
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
		r, err := proc.Run(ctx, proc.Spec{Shell: treeCommand(dir, marker), Dir: dir, Sandbox: sb})
		cancel()
		if err != nil || !r.Cancelled || r.TimedOut {
			t.Errorf("mode %q: %+v, %v", sb.Mode, r, err)
		}
		if p := outlived(marker); len(p) > 0 {
			t.Errorf("mode %q: processes %v outlived the cancellation", sb.Mode, p)
		}
	}
}

func TestBackgroundChildrenDieWhenTheCommandEnds(t *testing.T) {
	for i, sb := range modes(t) {
		dir := t.TempDir()
		marker := fmt.Sprint(7201 + i)
		r := run(t, proc.Spec{Shell: fmt.Sprintf("sleep %s & echo started", marker), Dir: dir, Sandbox: sb})
		if r.ExitCode != 0 || r.Output != "started\n" {
			t.Errorf("mode %q: %+v", sb.Mode, r)
		}
		if p := outlived(marker); len(p) > 0 {
			t.Errorf("mode %q: background processes %v outlived the command", sb.Mode, p)
		}
	}
}

func TestNetworkFailureIsRecognised(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want bool
	}{
		{"curl: (6) Could not resolve host: example.com", true},
		{"dial tcp: lookup modules.example on 10.0.0.2:53: dial udp 10.0.0.2:53: connect: network is unreachable", true},
		{"fatal: unable to access 'https://github.com/x/y/': Failed to connect to github.com port 443", true},
		{"npm ERR! code EAI_AGAIN", true},
		{"dial tcp 127.0.0.1:5432: connect: connection refused", false},
		{"--- FAIL: TestX (0.00s)\n    x_test.go:3: want 2, got 3", false},
		{"", false},
	} {
		r := proc.NetworkFailure(tc.out)
		if r != tc.want {
			t.Errorf("NetworkFailure(%q) = %v, want %v", tc.out, r, tc.want)
		}
	}
}
