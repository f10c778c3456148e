package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
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
		Unsaved:  map[string][]byte{"a.txt": []byte("buffer\n")},
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
	if !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, "\n399999\n400000\n") || !strings.Contains(out, "bytes cut") {
		t.Fatalf("head or tail lost: %q … %q", out[:20], out[len(out)-20:])
	}
}

// marked counts the running processes (zombies excluded) whose command
// line holds marker: the tests' sleeps carry a unique duration, since
// inside the sandbox's PID namespace $! and $$ are not the host's pids.
func marked(marker string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		st, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if k := strings.LastIndexByte(string(st), ')'); k >= 0 && k+2 < len(st) && st[k+2] == 'Z' {
			continue
		}
		n++
	}
	return n
}

// killMarked kills the processes marked counts.
func killMarked(marker string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// newMarker is a sleep duration no other process uses.
func newMarker() string {
	return fmt.Sprintf("%d.%09d", 100+os.Getpid()%100, time.Now().Nanosecond())
}

// waitGone waits until no process carries marker, up to the deadline.
func waitGone(t *testing.T, marker string, deadline time.Time) {
	t.Helper()
	for marked(marker) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d processes still running", marked(marker))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func requireProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see processes")
	}
}

// Both ways to run checks: in the sandbox's view when it is available,
// and unconfined in a copy.
var modes = []struct {
	name string
	sb   proc.Sandbox
}{{"view", proc.Sandbox{}}, {"copy", proc.Sandbox{Mode: proc.ModeOff}}}

func TestRunTimeoutKillsTree(t *testing.T) {
	requireProc(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			mk := newMarker()
			results, err := Run(context.Background(), RunOptions{
				Root:     t.TempDir(),
				Commands: []string{"sleep " + mk + " & sleep " + mk + " & setsid sleep " + mk + " & wait", "echo never"},
				Timeout:  300 * time.Millisecond,
				Sandbox:  m.sb,
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
			waitGone(t, mk, time.Now().Add(10*time.Second))
			if !strings.Contains(r.Output, "timed out") {
				t.Errorf("output does not say it timed out: %q", r.Output)
			}
		})
	}
}

// Cancelling kills the whole tree, a descendant that made its own session
// included. (The deadlines catch a hang; how fast it goes is logged, not
// asserted: a loaded machine is slow.)
func TestRunCancelKillsTree(t *testing.T) {
	requireProc(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			mk := newMarker()
			script := "sleep " + mk + " & sleep " + mk + " & "
			n := 2
			if _, err := os.Stat("/usr/bin/setsid"); err == nil {
				script += "setsid sleep " + mk + " & "
				n = 3
			}
			script += "wait"
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type outcome struct {
				results []Result
				err     error
			}
			done := make(chan outcome, 1)
			go func() {
				r, err := Run(ctx, RunOptions{Root: t.TempDir(), Commands: []string{script, "echo never"}, Sandbox: m.sb})
				done <- outcome{r, err}
			}()
			for deadline := time.Now().Add(10 * time.Second); marked(mk) < n; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					cancel()
					t.Fatalf("%d of the %d processes started", marked(mk), n)
				}
			}
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
			waitGone(t, mk, cancelled.Add(10*time.Second))
			t.Logf("Run returned and the tree was gone %s after cancel", time.Since(cancelled).Round(time.Millisecond))
		})
	}
}

// A background process that keeps the output pipe open does not turn a
// passing command into a failure, nor keep Run waiting for it; it does
// not outlive the check.
func TestRunLeftoverProcessHoldingOutput(t *testing.T) {
	requireProc(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			mk := newMarker()
			results, err := Run(context.Background(), RunOptions{
				Root:     t.TempDir(),
				Commands: []string{"setsid sleep " + mk + " & echo done"},
				Sandbox:  m.sb,
			})
			if err != nil {
				t.Fatal(err)
			}
			r := results[0]
			if !r.Passed || r.ExitCode != 0 {
				t.Fatalf("%+v", r)
			}
			if r.Duration > 30*time.Second {
				t.Fatalf("Run waited for the leftover process: %s", r.Duration)
			}
			if m.sb.Mode == proc.ModeOff {
				// Unconfined, a process that left the session outlives
				// the check: the test cleans it up.
				killMarked(mk)
				return
			}
			waitGone(t, mk, time.Now().Add(5*time.Second))
		})
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
	// Unconfined (the fallback): go's -overlay serves the buffer.
	rs, err := Run(context.Background(), RunOptions{Root: root, Commands: []string{"go build ./...", "go vet ./..."},
		Sandbox: proc.Sandbox{Mode: proc.ModeOff},
		Unsaved: map[string][]byte{"a.go": []byte("package m\n\nfunc A() int { return undefinedName }\n")}})
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
		Sandbox: proc.Sandbox{Mode: proc.ModeOff},
		Unsaved: map[string][]byte{"a.go": []byte("undefinedName")}})
	if err != nil || len(rs) != 1 || !rs[0].Passed {
		t.Fatalf("copy overlay: %+v %v", rs, err)
	}
}
