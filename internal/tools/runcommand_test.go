//go:build unix

package tools

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

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
)

// allowAll runs every command: these tests are about running, not policy.
var allowAll = ApproverFunc(func(context.Context, string) (bool, string, error) { return true, "", nil })

func TestRunCommand(t *testing.T) {
	ws := newDisk(t, map[string]string{"hello.txt": "hi from the workspace\n"})
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "OPENAI_API_KEY=sk-1", "AGENTLS_API_KEY=sk-2",
		"ANTHROPIC_API_KEY=sk-3", "GITHUB_TOKEN=gh", "my_token=x", "KEEP_ME=yes"}
	rc := toolNamed(t, ws, Options{Approver: allowAll, Env: env, MaxCommandOutput: 1000}, "run_command")
	tests := []struct {
		args string
		want []string
		not  []string
		err  string
	}{
		{args: `{"command":"cat hello.txt"}`, want: []string{"hi from the workspace\n[exit code 0]\n"}},
		{args: `{"command":"pwd"}`, want: []string{ws.Root() + "\n"}},
		{args: `{"command":"echo out; echo err >&2; exit 3"}`, want: []string{"out\nerr\n[exit code 3]"}},
		{args: `{"command":"true"}`, want: []string{"(no output)\n[exit code 0]"}},
		{args: `{"command":"env"}`, want: []string{"KEEP_ME=yes", "GIT_TERMINAL_PROMPT=0"}, not: []string{"sk-", "GITHUB_TOKEN", "my_token"}},
		{args: `{"command":"cat; echo read-done"}`, want: []string{"read-done\n[exit code 0]"}},
		{args: `{"command":"seq 1 2000"}`, want: []string{"1\n2\n3\n", "bytes cut ...]\n", "\n2000\n[exit code 0]"}, not: []string{"\n1000\n"}},
		{args: `{"command":"( : </dev/tty ) 2>/dev/null && echo has-tty || echo no-tty"}`, want: []string{"no-tty"}},
		{args: `{"command":"sleep 30 & echo started"}`, want: []string{"started\n[exit code 0]"}},
		{args: `{"command":"sleep 5","timeout_seconds":1}`, want: []string{"[timed out after 1s; process tree killed]"}},
		{args: `{"command":""}`, err: "command is empty"},
		{args: `{"command":"ls","timeout_seconds":601}`, err: `field "timeout_seconds" must be an integer from 1 to 600, got 601`},
		{args: `{"cmd":"ls"}`, err: "unknown field"},
	}
	for _, tt := range tests {
		start := time.Now()
		res, err := call(t, rc, tt.args)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.args, err)
			continue
		}
		wantContains(t, tt.args, res.Output, tt.want...)
		for _, n := range tt.not {
			if strings.Contains(res.Output, n) {
				t.Errorf("%s: output contains %q:\n%s", tt.args, n, res.Output)
			}
		}
		if len(res.Output) > 1200 {
			t.Errorf("%s: output is %d bytes; cap is 1000", tt.args, len(res.Output))
		}
		if time.Since(start) > 4*time.Second {
			t.Errorf("%s took %s", tt.args, time.Since(start))
		}
	}
}

// TestRunCommandKillsGroup: on timeout the shell's children die too, and a
// background child left behind by a finished command is cleaned up.
// The pids a command writes are only meaningful outside the sandbox's PID
// namespace, so this runs unconfined; internal/proc tests the sandboxed
// tree kill (the namespace dies with its first process).
func TestRunCommandKillsGroup(t *testing.T) {
	ws := newDisk(t, nil)
	rc := toolNamed(t, ws, Options{Approver: allowAll, Sandbox: proc.Sandbox{Mode: proc.ModeOff}}, "run_command")
	for _, tc := range []struct{ cmd, note string }{
		{`sh -c 'sleep 30' & echo $! > child.pid; wait`, "timed out"},
		{`(sleep 30 >/dev/null 2>&1 &) ; sh -c 'echo $PPID' > /dev/null; sleep 30 & echo $! > child.pid`, "exit code 0"},
	} {
		os.Remove(filepath.Join(ws.Root(), "child.pid"))
		res, err := call(t, rc, map[string]any{"command": tc.cmd, "timeout_seconds": 1})
		if err != nil {
			t.Fatal(err)
		}
		wantContains(t, "output", res.Output, tc.note)
		b, err := os.ReadFile(filepath.Join(ws.Root(), "child.pid"))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid)
	}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 100 {
		// A killed child may linger as a zombie until init reaps it; that
		// counts as gone.
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d still running", pid)
}

func TestRunCommandCancel(t *testing.T) {
	ws := newDisk(t, nil)
	rc := toolNamed(t, ws, Options{Approver: allowAll}, "run_command")
	ctx, cancel := context.WithCancel(context.Background())
	// (Long enough for a sandboxed start on a loaded machine: the command
	// must have printed before it is cancelled.)
	time.AfterFunc(1500*time.Millisecond, cancel)
	start := time.Now()
	res, err := rc.Run(ctx, []byte(`{"command":"echo started; sleep 30"}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	wantContains(t, "output", res.Output, "started", "[cancelled after")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancel took %s", d)
	}
}

func TestRunCommandApproval(t *testing.T) {
	ws := newDisk(t, nil)
	asked := ""
	ask := ApproverFunc(func(_ context.Context, c string) (bool, string, error) {
		asked = c
		return false, "the user said no", nil
	})
	_, err := call(t, toolNamed(t, ws, Options{Approver: ask}, "run_command"), `{"command":"touch x"}`)
	if err == nil || !strings.Contains(err.Error(), "the user said no") || asked != "touch x" {
		t.Fatalf("err = %v, asked %q", err, asked)
	}
	if _, statErr := os.Stat(filepath.Join(ws.Root(), "x")); statErr == nil {
		t.Fatal("a refused command ran")
	}
	// The default approver refuses and says how to allow.
	_, err = call(t, toolNamed(t, ws, Options{}, "run_command"), `{"command":"go test ./..."}`)
	if err == nil {
		t.Fatal("the default approver allowed a command")
	}
	wantContains(t, "error", err.Error(), "tools.allow", ".agentls.json", `"go test"`)
}

// run_command's result says how the command ran, for the editors: how it
// was allowed (what the approver noted), whether the sandbox confined it,
// and its exit code.
func TestRunCommandSaysHowItRan(t *testing.T) {
	ws := newDisk(t, map[string]string{})
	approved := ApproverFunc(func(ctx context.Context, _ string) (bool, string, error) {
		Granted(ctx, agent.RanApproved)
		return true, "", nil
	})
	rc := toolNamed(t, ws, Options{Approver: approved, Sandbox: proc.Sandbox{Mode: proc.ModeOff}}, "run_command")
	res, err := call(t, rc, `{"command":"echo hi; exit 3"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := agent.CommandRun{Approval: agent.RanApproved, Sandboxed: false, ExitCode: 3}
	if res.Run == nil || *res.Run != want {
		t.Errorf("run = %+v, want %+v", res.Run, want)
	}
	if confined, _ := proc.Available(); confined {
		rc := toolNamed(t, ws, Options{Approver: allowAll}, "run_command")
		res, err := call(t, rc, `{"command":"true"}`)
		if err != nil {
			t.Fatal(err)
		}
		if want := (agent.CommandRun{Sandboxed: true}); res.Run == nil || *res.Run != want {
			t.Errorf("sandboxed: run = %+v, want %+v", res.Run, want)
		}
	}
}
