package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/lspclient"
)

var binary string

// testWait bounds waits for something that should happen; reaching it is a
// failure, not a measurement.
const testWait = 30 * time.Second

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentls-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "agentls")
	args := []string{"build", "-o", binary}
	if raceBuild {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, "../cmd/agentls")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building agentls: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// copyWorkspace copies testdata/workspaces/NAME into a temp dir.
func copyWorkspace(t testing.TB, name string) string {
	t.Helper()
	dst := t.TempDir()
	if real, err := filepath.EvalSymlinks(dst); err == nil {
		dst = real
	}
	if name == "" {
		return dst
	}
	if _, err := lspclient.CopyTree(filepath.Join("..", "testdata", "workspaces", name), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// startModel starts the fake model on script: a testdata/conversations
// file, inline JSON if it starts with {, or "" for an empty script. It
// returns the server and its base URL, and stops it when the test ends.
func startModel(t testing.TB, script string) (*fakellm.Server, string) {
	t.Helper()
	var sc *fakellm.Script
	var err error
	switch {
	case script == "":
		sc = &fakellm.Script{}
	case script[0] == '{':
		sc, err = fakellm.Parse([]byte(script))
	default:
		sc, err = fakellm.Load(filepath.Join("..", "testdata", "conversations", script))
	}
	if err != nil {
		t.Fatal(err)
	}
	llm := fakellm.New(sc)
	base, err := llm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	return llm, base
}

// session is one test's server, fake model and workspace.
type session struct {
	*lspclient.Editor
	LLM *fakellm.Server
	ctx context.Context
}

type setup struct {
	workspace string            // testdata/workspaces name, "" for empty
	script    string            // testdata/conversations file, or inline JSON if it starts with {
	caps      *lspclient.Caps   // default VSCodeCaps
	settings  map[string]any    // initializationOptions
	files     map[string]string // extra files written into the workspace
	env       []string          // more environment for the server; later entries win
	root      string            // an existing workspace to serve instead of a copy
}

func start(t *testing.T, s setup) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	root := s.root
	if root == "" {
		root = copyWorkspace(t, s.workspace)
	}
	for rel, body := range s.files {
		p := filepath.Join(root, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	llm, base := startModel(t, s.script)
	caps := lspclient.VSCodeCaps()
	if s.caps != nil {
		caps = *s.caps
	}
	settings := s.settings
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings["verify"]; !ok {
		settings["verify"] = map[string]any{"enabled": false}
	}
	ed, err := lspclient.Start(ctx, lspclient.StartOptions{
		Binary:   binary,
		Root:     root,
		Caps:     caps,
		Settings: settings,
		Env: append([]string{
			"AGENTLS_BASE_URL=" + base,
			"AGENTLS_API_KEY=sk-test-secret-key-123",
			"AGENTLS_MODEL=test-model",
			"XDG_STATE_HOME=" + filepath.Join(t.TempDir(), "state"),
		}, s.env...),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ed.Close(context.Background())
		if t.Failed() {
			t.Logf("server stderr:\n%s", ed.Stderr())
		}
	})
	return &session{Editor: ed, LLM: llm, ctx: ctx}
}

// run starts a task and waits for it to end.
// endResult is the result in the task's end event. The event is a
// notification: it may reach the client after the agentls.wait reply, so
// this waits for it.
func (s *session) endResult(t *testing.T, taskID string) map[string]any {
	t.Helper()
	var res map[string]any
	s.WaitFor(testWait, func() bool {
		for _, ev := range s.Events(taskID) {
			if ev["kind"] == "end" {
				res, _ = ev["result"].(map[string]any)
				return true
			}
		}
		return false
	})
	if res == nil {
		t.Fatalf("task %s: no end event", taskID)
	}
	return res
}

func (s *session) run(t *testing.T, args map[string]any) lspclient.TaskResult {
	t.Helper()
	id, err := s.Run(s.ctx, args)
	if err != nil {
		t.Fatalf("agentls.run: %v", err)
	}
	r, err := s.Wait(s.ctx, id, 30*time.Second)
	if err != nil {
		t.Fatalf("agentls.wait: %v", err)
	}
	return r
}
