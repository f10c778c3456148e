package verify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunStopsAtFirstFailure(t *testing.T) {
	root := t.TempDir()
	var started []string
	results, err := Run(context.Background(), RunOptions{
		Root:     root,
		Commands: []string{"echo one", "echo two >&2; exit 3", "echo three"},
		OnStart:  func(c string) { started = append(started, c) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || len(started) != 2 {
		t.Fatalf("ran %d, started %v; want the first two only", len(results), started)
	}
	if r := results[0]; !r.Passed || r.ExitCode != 0 || r.Output != "one\n" || r.Command != "echo one" {
		t.Errorf("first: %+v", r)
	}
	if r := results[1]; r.Passed || r.ExitCode != 3 || r.Output != "two\n" || r.TimedOut {
		t.Errorf("second: %+v", r)
	}
	if results[1].Root != root {
		t.Errorf("Root %q", results[1].Root)
	}
}

func TestRunEnvDirAndOverlayPaths(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "disk\n")
	results, err := Run(context.Background(), RunOptions{
		Root:     root,
		Commands: []string{`pwd; echo "$VERIFY_TEST_VAR"; cat a.txt`},
		Env:      []string{"VERIFY_TEST_VAR=set"},
		Overlay:  map[string][]byte{"a.txt": []byte("buffer\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The command ran in the copy, saw the buffer, and its output names
	// the real root.
	if want := root + "\nset\nbuffer\n"; results[0].Output != want {
		t.Fatalf("output %q, want %q", results[0].Output, want)
	}
}

func TestRunUnknownCommand(t *testing.T) {
	results, err := Run(context.Background(), RunOptions{Root: t.TempDir(), Commands: []string{"agentls-no-such-tool --check"}})
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	if r.Passed || r.ExitCode != 127 || len(r.Unlocated) != 1 || !strings.Contains(r.Unlocated[0], "not found") {
		t.Fatalf("%+v", r)
	}
}

func TestRunDetectsWhenNoCommandsGiven(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "Makefile", "check:\n\t@echo checked\n")
	results, err := Run(context.Background(), RunOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Command != "make check" || !results[0].Passed || results[0].Output != "checked\n" {
		t.Fatalf("%+v", results)
	}
	// Nothing to detect: nothing to run, and no error.
	results, err = Run(context.Background(), RunOptions{Root: t.TempDir()})
	if err != nil || len(results) != 0 {
		t.Fatalf("%v %+v", err, results)
	}
}

func TestRunCapsOutput(t *testing.T) {
	// 3 MB of numbered lines: the head and the tail survive.
	results, err := Run(context.Background(), RunOptions{Root: t.TempDir(), Commands: []string{"seq 1 400000; exit 1"}})
	if err != nil {
		t.Fatal(err)
	}
	out := results[0].Output
	if len(out) > maxOutput+100 {
		t.Fatalf("output is %d bytes", len(out))
	}
	if !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, "\n399999\n400000\n") || !strings.Contains(out, "bytes of output omitted") {
		t.Fatalf("head or tail lost: %q … %q", out[:20], out[len(out)-20:])
	}
}

// pidsFrom reads the process ids a test command printed, one per line.
func pidsFrom(t *testing.T, text string, n int) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(text) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	if len(pids) < n {
		t.Fatalf("want %d pids in %q", n, text)
	}
	return pids[:n]
}

// alive reports whether a process still runs; a zombie is dead.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	k := strings.LastIndexByte(s, ')')
	return k < 0 || k+2 >= len(s) || s[k+2] != 'Z'
}

// waitGone waits until none of pids runs, up to the deadline, and fails
// the test with those still running.
func waitGone(t *testing.T, pids []int, deadline time.Time) {
	t.Helper()
	for {
		var left []int
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v still running", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func requireProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see processes")
	}
}

func TestRunTimeoutKillsTree(t *testing.T) {
	requireProc(t)
	start := time.Now()
	results, err := Run(context.Background(), RunOptions{
		Root:     t.TempDir(),
		Commands: []string{"sleep 100 & echo $!; sleep 100 & echo $!; echo $$; wait", "echo never"},
		Timeout:  300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 {
		t.Fatalf("ran %d commands after a timeout", len(results))
	}
	r := results[0]
	if !r.TimedOut || r.Passed || r.ExitCode != -1 {
		t.Fatalf("%+v", r)
	}
	if time.Since(start) > 50*time.Second {
		t.Fatalf("Run waited for the sleeps")
	}
	waitGone(t, pidsFrom(t, r.Output, 3), time.Now().Add(time.Second))
	if !strings.Contains(r.Output, "timed out") {
		t.Errorf("output does not say it timed out: %q", r.Output)
	}
}

// Cancelling kills the whole tree, a descendant that made its own session
// included, within a second.
func TestRunCancelKillsTree(t *testing.T) {
	requireProc(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	script := "sleep 100 & echo $! >> " + pidFile + "; sleep 100 & echo $! >> " + pidFile + "; echo $$ >> " + pidFile + "; "
	n := 3
	if _, err := os.Stat("/usr/bin/setsid"); err == nil {
		script += "setsid sleep 100 & echo $! >> " + pidFile + "; "
		n = 4
	}
	script += "echo ready >> " + pidFile + "; wait"

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		results []Result
		err     error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := Run(ctx, RunOptions{Root: dir, Commands: []string{script, "echo never"}})
		done <- outcome{r, err}
	}()
	var text string
	for !strings.Contains(text, "ready") {
		time.Sleep(10 * time.Millisecond)
		b, _ := os.ReadFile(pidFile)
		text = string(b)
	}
	pids := pidsFrom(t, text, n)
	cancelled := time.Now()
	cancel()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if !errors.Is(o.err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", o.err)
	}
	if len(o.results) != 1 || o.results[0].Passed || o.results[0].TimedOut {
		t.Fatalf("results %+v", o.results)
	}
	waitGone(t, pids, cancelled.Add(time.Second))
	if d := time.Since(cancelled); d > time.Second {
		t.Fatalf("Run took %s to return after cancel", d)
	}
}

// A background process that keeps the output pipe open does not turn a
// passing command into a failure, nor keep Run waiting for it.
func TestRunLeftoverProcessHoldingOutput(t *testing.T) {
	requireProc(t)
	results, err := Run(context.Background(), RunOptions{
		Root:     t.TempDir(),
		Commands: []string{"setsid sleep 100 & echo $!; echo done"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	if !r.Passed || r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	pid := pidsFrom(t, r.Output, 1)[0]
	// It escaped the process group, so it is the test's to clean up.
	defer syscall.Kill(pid, syscall.SIGKILL)
	if r.Duration > 30*time.Second {
		t.Fatalf("Run waited for the leftover process: %s", r.Duration)
	}
}

// Go checks see unsaved buffers through go's -overlay, in place: the
// diagnostics name the real file and the disk stays untouched.
func TestGoOverlayInPlace(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("a.go", "package m\n\nfunc A() int { return 1 }\n")
	rs, err := Run(context.Background(), RunOptions{Root: root, Commands: []string{"go build ./...", "go vet ./..."},
		Overlay: map[string][]byte{"a.go": []byte("package m\n\nfunc A() int { return undefinedName }\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Passed {
		t.Fatalf("results %+v", rs)
	}
	ds := rs[0].Diagnostics
	if len(ds) != 1 || ds[0].Path != filepath.Join(root, "a.go") || ds[0].Line != 3 || !strings.Contains(ds[0].Message, "undefinedName") {
		t.Fatalf("diagnostics %+v\noutput %s", ds, rs[0].Output)
	}
	disk, _ := os.ReadFile(filepath.Join(root, "a.go"))
	if strings.Contains(string(disk), "undefinedName") {
		t.Fatal("buffer written to disk")
	}
	// A non-go command falls back to the copy and sees the buffer too.
	rs, err = Run(context.Background(), RunOptions{Root: root, Commands: []string{"grep -q undefinedName a.go"},
		Overlay: map[string][]byte{"a.go": []byte("undefinedName")}})
	if err != nil || len(rs) != 1 || !rs[0].Passed {
		t.Fatalf("copy overlay: %+v %v", rs, err)
	}
}
