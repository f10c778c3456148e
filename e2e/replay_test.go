package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// A recording replays to the same events in `agentls run` and in `agentls
// serve`: both front ends build their drivers through one assembly path, so
// neither adds or drops anything of its own (the server used to put the
// checks' timing in the verify summary, the CLI did not).
func TestReplayIsEventIdenticalInBothModes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const task = "Make greet_test.go pass"
	state := t.TempDir()
	env := append(cleanEnv(), "XDG_STATE_HOME="+state, "AGENTLS_MODEL=demo-model")

	_, base := startModel(t, "demo.json")
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	runCLI(t, copyWorkspace(t, "demo"), env, "run", "--json", "--record", rec, "--base-url", base, task)

	cli := runCLI(t, copyWorkspace(t, "demo"), env, "run", "--json", "--replay", rec, task)
	var fromCLI []map[string]any
	sc := bufio.NewScanner(strings.NewReader(cli))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("--json line %q: %v", sc.Text(), err)
		}
		switch ev["kind"] {
		case "start", "note", "warning":
			continue
		}
		fromCLI = append(fromCLI, ev)
	}

	ed, err := lspclient.Start(ctx, lspclient.StartOptions{
		Binary: binary, Root: copyWorkspace(t, "demo"), Caps: lspclient.VSCodeCaps(),
		Env: []string{"XDG_STATE_HOME=" + state, "AGENTLS_MODEL=demo-model"}, Args: []string{"--replay", rec},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ed.Close(context.Background())
	id, err := ed.Run(ctx, map[string]any{"task": task})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ed.Wait(ctx, id, time.Minute); err != nil {
		t.Fatal(err)
	}
	// The end event is announced once the task is done, so it may follow
	// agentls.wait's answer.
	ended := func() bool {
		for _, ev := range ed.Events(id) {
			if ev["kind"] == "end" {
				return true
			}
		}
		return false
	}
	if !ed.WaitFor(testWait, ended) {
		t.Fatal("no end event")
	}
	var fromServer []map[string]any
	for _, ev := range ed.Events(id) {
		fromServer = append(fromServer, ev)
	}

	norm := func(evs []map[string]any) []string {
		var out []string
		for _, ev := range evs {
			delete(ev, "taskId")
			delete(ev, "session")
			delete(ev, "task") // the editor's first event heads the task with its prompt
			b, _ := json.Marshal(ev)
			out = append(out, string(b))
		}
		return out
	}
	a, b := norm(fromCLI), norm(fromServer)
	if len(a) == 0 {
		t.Fatal("the CLI replay sent no events")
	}
	verified := false
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			t.Fatalf("event %d differs:\n  run:   %s\n  serve: %s", i, x, y)
		}
		verified = verified || strings.Contains(x, `"kind":"verify"`)
	}
	if !verified {
		t.Error("no verify event: the comparison must cover the gate's summary")
	}
}

// cleanEnv is the test's environment without agentls's own settings.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENTLS_") || strings.HasPrefix(k, "OPENAI_") || k == "XDG_STATE_HOME" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// runCLI runs the binary in dir and returns its stderr (the --json stream).
func runCLI(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("agentls %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stderr.String()
}
