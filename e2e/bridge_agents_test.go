package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
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
		t.Skip("skipped: e2e/agents/node_modules is missing; run e2e/agents/install.sh to test with qwen-code")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("skipped: node is not installed")
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
