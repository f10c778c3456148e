package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/need"
)

// acpx (npm: acpx, a headless ACP client written elsewhere) drives
// `agentls acp` against the scripted model. It keeps a queue owner process
// per session that starts the agent and lives on (--ttl) for the next
// command; "sessions close" ends it. "sessions new" runs its own agentls,
// so the first prompt starts agentls again and resumes the session there.
type acpxRun struct {
	t        *testing.T
	bin      string
	home     string
	root     string
	agent    string // the wrapper acpx runs as the agent
	agentLog string // "start PID" per agentls process
}

func startACPX(t *testing.T, root, base string) *acpxRun {
	t.Helper()
	dir, _ := filepath.Abs("acpx")
	bin := filepath.Join(dir, "node_modules", "acpx", "dist", "cli.js")
	if _, err := os.Stat(bin); err != nil {
		need.Missing(t, "skipped: e2e/acpx/node_modules is missing; run e2e/acpx/install.sh (npm ci) to test with acpx")
	}
	if _, err := exec.LookPath("node"); err != nil {
		need.Missing(t, "skipped: node is not installed")
	}
	tmp := t.TempDir()
	r := &acpxRun{t: t, bin: bin, home: filepath.Join(tmp, "home"), root: root,
		agent: filepath.Join(tmp, "agentls-acp.sh"), agentLog: filepath.Join(tmp, "agent.log")}
	if err := os.MkdirAll(r.home, 0o700); err != nil {
		t.Fatal(err)
	}
	// The wrapper becomes agentls (exec), so the PID it logs is the agent's
	// own and the test can tell when that process is gone, however it
	// ended. (A line written after agentls exits, as this once did, is
	// never written when acpx closes the agent with SIGTERM, which it does
	// 100 ms after closing its stdin: the race-built agentls takes a second
	// longer to exit, the race runtime's atexit_sleep_ms, so TestACPX
	// counted an agent that had long exited.)
	script := fmt.Sprintf(`#!/bin/sh
echo "start $$" >> %q
AGENTLS_BASE_URL=%q AGENTLS_API_KEY=sk-test-secret-key-123 AGENTLS_MODEL=test-model XDG_STATE_HOME=%q \
  exec %q acp --log-file %q --settings '{"verify":{"enabled":false}}'
`, r.agentLog, base, filepath.Join(tmp, "state"), binary, filepath.Join(tmp, "agentls.log"))
	if err := os.WriteFile(r.agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(tmp, "agentls.log"))
			t.Logf("agentls log:\n%s", b)
		}
		r.waitAgentsGone() // the queue owner's agent ends with its TTL
	})
	return r
}

func (r *acpxRun) cmd(ctx context.Context, args ...string) *exec.Cmd {
	all := append([]string{r.bin, "--ttl", "60", "--approve-all", "--agent", r.agent}, args...)
	cmd := exec.CommandContext(ctx, "node", all...)
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "HOME="+r.home, "XDG_CONFIG_HOME="+filepath.Join(r.home, ".config"))
	return cmd
}

// run runs acpx and returns its output; a failure fails the test.
func (r *acpxRun) run(args ...string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := r.cmd(ctx, args...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("acpx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// agents counts the agentls processes acpx started and those that ended.
func (r *acpxRun) agents() (started, exited int) {
	b, _ := os.ReadFile(r.agentLog)
	for _, line := range strings.Split(string(b), "\n") {
		pid, ok := strings.CutPrefix(line, "start ")
		if !ok {
			continue
		}
		started++
		if !processRunning(pid) {
			exited++
		}
	}
	return started, exited
}

// processRunning: process PID exists and has not exited (a zombie waiting
// for its parent to reap it has exited).
func processRunning(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(b), ") ")
	return ok && !strings.HasPrefix(rest, "Z")
}

// waitAgentsGone waits until every agentls acpx started has exited.
func (r *acpxRun) waitAgentsGone() {
	// The queue owner's agent may stay until acpx's --ttl (60 s) runs out.
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if s, e := r.agents(); s == e {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.t.Errorf("an agentls started by acpx did not exit")
}

// jsonResults are the JSON-RPC results in acpx's --format json output, and
// the session IDs its lines name.
func jsonResults(t *testing.T, out string) (results []map[string]any, sessions map[string]bool) {
	t.Helper()
	sessions = map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("acpx printed a line that is not JSON: %s", line)
			continue
		}
		if res, ok := m["result"].(map[string]any); ok {
			results = append(results, res)
		}
		if p, ok := m["params"].(map[string]any); ok {
			if id, ok := p["sessionId"].(string); ok {
				sessions[id] = true
			}
		}
	}
	return results, sessions
}

func stopReasons(results []map[string]any) []string {
	var out []string
	for _, r := range results {
		if s, ok := r["stopReason"].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Sessions (new, a prompt, resume in a new agentls process, list, close),
// set model, set-mode, cancel and JSON output, through acpx.
func TestACPX(t *testing.T) {
	root := copyWorkspace(t, "hello")
	llm, base := startModel(t, `{"models":["fake-a","fake-b"],"turns":[
	 {"text":"First answer."},
	 {"text":"Second answer."},
	 {"text":"`+strings.Repeat("slow words ", 300)+`","chunkSize":4,"chunkDelayMs":30}]}`)
	x := startACPX(t, root, base)

	out := x.run("sessions", "new", "--name", "t")
	lines := strings.Fields(strings.TrimSpace(out))
	id := lines[len(lines)-1]
	if !strings.HasPrefix(id, "20") {
		t.Fatalf("sessions new printed %q", out)
	}
	x.waitAgentsGone()

	// The session is resumed by a new agentls process.
	out = x.run("--format", "json", "prompt", "-s", "t", "first task")
	results, sessions := jsonResults(t, out)
	if reasons := stopReasons(results); len(reasons) != 1 || reasons[0] != "end_turn" {
		t.Fatalf("first prompt: stop reasons %v\n%s", reasons, out)
	}
	if len(sessions) != 1 || !sessions[id] {
		t.Errorf("the prompt ran in sessions %v, want %s (resumed)", sessions, id)
	}
	if s, _ := x.agents(); s < 2 {
		t.Errorf("%d agentls processes; the prompt did not start a new one", s)
	}

	if out := x.run("set", "-s", "t", "model", "fake-b"); !strings.Contains(out, "fake-b") {
		t.Errorf("set model: %s", out)
	}
	if out := x.run("set-mode", "-s", "t", "ask"); !strings.Contains(out, "ask") {
		t.Errorf("set-mode: %s", out)
	}
	out = x.run("--format", "json", "prompt", "-s", "t", "second task")
	if results, _ := jsonResults(t, out); len(stopReasons(results)) != 1 {
		t.Fatalf("second prompt:\n%s", out)
	}
	reqs := llm.Requests()
	if len(reqs) != 2 || reqs[1].Body.Model != "fake-b" {
		t.Errorf("the second task asked for model %q, want fake-b", reqs[len(reqs)-1].Body.Model)
	}

	if out := x.run("sessions", "list"); !strings.Contains(out, id) || !strings.Contains(out, root) {
		t.Errorf("sessions list (the agent's session/list):\n%s", out)
	}

	// Cancel a prompt that streams for seconds.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	slow := x.cmd(ctx, "--format", "json", "prompt", "-s", "t", "talk slowly")
	var slowOut strings.Builder
	slow.Stdout, slow.Stderr = &slowOut, &slowOut
	if err := slow.Start(); err != nil {
		t.Fatal(err)
	}
	for len(llm.Requests()) < 3 {
		if ctx.Err() != nil {
			t.Fatal("the slow prompt never reached the model")
		}
		time.Sleep(50 * time.Millisecond)
	}
	x.run("cancel", "-s", "t")
	_ = slow.Wait()
	results, _ = jsonResults(t, slowOut.String())
	if reasons := stopReasons(results); len(reasons) != 1 || reasons[0] != "cancelled" {
		t.Errorf("the cancelled prompt's stop reasons %v\n%s", reasons, slowOut.String())
	}

	x.run("sessions", "close", "t")
}
