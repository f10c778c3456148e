package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/need"
)

// qwen-code (npm: @qwen-code/qwen-code, `qwen --acp`), a real ACP agent
// written elsewhere, through the bridge against the scripted model (it
// takes an OpenAI-compatible endpoint from OPENAI_BASE_URL): initialize,
// session/new, a prompt whose answer comes back as the task's text, and a
// follow-up (agentls.continue) that goes on in qwen's own session, so the
// model is sent the first task's prompt again — qwen kept its context.
func TestBridgeRunsQwenCode(t *testing.T) {
	dir, _ := filepath.Abs("agents")
	qwen := filepath.Join(dir, "node_modules", ".bin", "qwen")
	if _, err := os.Stat(qwen); err != nil {
		need.Missing(t, "skipped: e2e/agents/node_modules is missing; run e2e/agents/install.sh to test with qwen-code")
	}
	if _, err := exec.LookPath("node"); err != nil {
		need.Missing(t, "skipped: node is not installed")
	}
	turns := make([]string, 12)
	for i := range turns {
		turns[i] = `{"text":"Hello from the scripted model."}`
	}
	llm, base := startModel(t, `{"models":["fake-qwen"],"turns":[`+strings.Join(turns, ",")+`]}`)
	home := t.TempDir()
	s := start(t, setup{workspace: "hello", env: []string{"HOME=" + home}, settings: map[string]any{
		"agent": map[string]any{"backend": map[string]any{"acp": map[string]any{"command": qwen, "args": []string{"--acp"},
			"env": map[string]any{"OPENAI_BASE_URL": base, "OPENAI_API_KEY": "sk-qwen-test", "OPENAI_MODEL": "fake-qwen", "HOME": home}}}},
	}})
	s.OnShowMessageRequest = func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		return &protocol.MessageActionItem{Title: "Allow once"}
	}
	id, err := s.Run(s.ctx, map[string]any{"task": "say hi, first task"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Wait(s.ctx, id, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := taskText(s, r.TaskID)
	if r.Status != "ok" || !strings.Contains(text, "Hello from the scripted model.") {
		t.Fatalf("first task %+v; text %q", r, text)
	}
	before := len(llm.Requests())
	var cont struct {
		TaskID string `json:"taskId"`
	}
	if err := s.Command(s.ctx, "agentls.continue", map[string]any{"session": r.Session, "task": "and a second task"}, &cont); err != nil {
		t.Fatal(err)
	}
	r2, err := s.Wait(s.ctx, cont.TaskID, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Status != "ok" {
		t.Fatalf("follow-up %+v", r2)
	}
	var kept bool
	for _, req := range llm.Requests()[before:] {
		var all strings.Builder
		for _, m := range req.Body.Messages {
			all.WriteString(m.Content)
		}
		if strings.Contains(all.String(), "and a second task") && strings.Contains(all.String(), "say hi, first task") {
			kept = true
		}
	}
	if !kept {
		t.Errorf("the follow-up's model requests do not carry the first task: qwen started a new session")
	}
}

// gemini-cli (npm: @google/gemini-cli, `gemini --acp`), a second real ACP
// agent written elsewhere. It speaks only Google's own API, so offline it
// cannot finish a turn; what is tested is what the bridge negotiates with
// it: initialize (four sign-in methods, none an env_var one; with
// GEMINI_API_KEY in its environment session/new needs no authenticate),
// session/new, its models offered the older way (picked with
// session/set_model) and its modes (picked with session/set_mode), all
// forwarded as an options event with the picks applied.
func TestBridgeNegotiatesGeminiCLI(t *testing.T) {
	negotiate(t, "gemini", []string{"--acp"},
		map[string]any{"GEMINI_API_KEY": "test-gemini-key", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"},
		"gemini-2.5-pro", "plan", "[default autoEdit yolo plan]")
}

// Claude Code's ACP adapter (npm: @zed-industries/claude-code-acp), a
// third: it speaks only Anthropic's API, so again the negotiation alone.
// Its one sign-in method (claude-login) is not an env_var one, and with
// ANTHROPIC_API_KEY set session/new needs none. As root (the test
// machines) the Claude Code process it starts refuses to run without
// IS_SANDBOX=1, and session/new then fails "Query closed before response
// received".
func TestBridgeNegotiatesClaudeCode(t *testing.T) {
	negotiate(t, "claude-code-acp", nil,
		map[string]any{"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "IS_SANDBOX": "1"},
		"haiku", "plan", "[default acceptEdits plan dontAsk bypassPermissions]")
}

// negotiate runs a task through the bridge on e2e/agents' BIN with args and
// env, picking model and mode, and checks the options event the session
// forwards: model picked among the agent's models, mode among modes (as
// printed). The agent's endpoint is a closed local port, so the turn
// cannot reach out; the task is cancelled once the options are seen.
func negotiate(t *testing.T, bin string, args []string, env map[string]any, model, mode, modes string) {
	t.Helper()
	dir, _ := filepath.Abs("agents")
	agentBin := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(agentBin); err != nil {
		need.Missing(t, "skipped: e2e/agents/node_modules has no %s; run e2e/agents/install.sh", bin)
	}
	if _, err := exec.LookPath("node"); err != nil {
		need.Missing(t, "skipped: node is not installed")
	}
	home := t.TempDir()
	env["HOME"] = home
	acp := map[string]any{"command": agentBin, "model": model, "mode": mode, "env": env}
	if args != nil {
		acp["args"] = args
	}
	s := start(t, setup{workspace: "hello", env: []string{"HOME=" + home}, settings: map[string]any{
		"agent": map[string]any{"backend": map[string]any{"acp": acp}},
	}})
	s.OnShowMessageRequest = func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		return &protocol.MessageActionItem{Title: "Deny"}
	}
	id, err := s.Run(s.ctx, map[string]any{"task": "say hi"})
	if err != nil {
		t.Fatal(err)
	}
	// The options event comes once the session is open and the picks are
	// made, before the prompt.
	var opts []any
	deadline := time.Now().Add(2 * time.Minute)
	for opts == nil && time.Now().Before(deadline) {
		for _, ev := range s.Events(id) {
			if ev["kind"] == "options" {
				opts, _ = ev["options"].([]any)
			}
			if ev["kind"] == "end" && opts == nil {
				t.Fatalf("the task ended before the session opened: %v", ev["result"])
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if opts == nil {
		t.Fatalf("no options event from %s's session", bin)
	}
	got := map[string]map[string]any{}
	for _, o := range opts {
		m := o.(map[string]any)
		got[m["id"].(string)] = m
	}
	if m := got["model"]; m == nil || m["current"] != model || !strings.Contains(fmt.Sprint(m["values"]), model) {
		t.Errorf("%s's model option %v, want %s picked among its models", bin, m, model)
	}
	if m := got["mode"]; m == nil || m["current"] != mode || fmt.Sprint(m["values"]) != modes {
		t.Errorf("%s's mode option %v, want %s picked among %s", bin, m, mode, modes)
	}
	if err := s.Command(s.ctx, "agentls.cancel", map[string]any{"taskId": id}, nil); err != nil {
		t.Logf("agentls.cancel: %v", err)
	}
	r, err := s.Wait(s.ctx, id, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status == "ok" {
		t.Errorf("a turn against a closed endpoint succeeded: %+v", r)
	}
	t.Logf("%s negotiated %v; the offline turn ended %s (%s)", bin, opts, r.Status, r.Error)
}
