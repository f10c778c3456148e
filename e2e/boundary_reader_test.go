package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// The attacks of issue 30 on the text agentls reads from the workspace
// for the model: every such read goes through one reader
// (internal/wsread) with the secret rules and no blocking open. Each test
// ran against the code before it and failed there.

const dotEnvSecret = "DATABASE_PASSWORD=correct-horse-battery-staple"

// cliRun runs `agentls run` headless on root against base and returns its
// exit code and output.
func cliRun(t *testing.T, root, base string, args ...string) (int, string) {
	t.Helper()
	env := append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir(), "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model")
	return runCLIStatus(t, root, env, append([]string{"run", "--base-url", base, "--no-verify"}, args...)...)
}

// A project command that is a link to the workspace's .env is not a
// command: its text never reaches the model as the user's message. Before,
// `.agentls/commands/leak.md -> ../../.env` sent the .env whole.
func TestProjectCommandLinkedToASecretIsRefused(t *testing.T) {
	llm, base := startModel(t, `{"turns":[{"text":"ok"}]}`)
	root := copyWorkspace(t, "")
	os.WriteFile(filepath.Join(root, ".env"), []byte(dotEnvSecret+"\n"), 0o600)
	os.MkdirAll(filepath.Join(root, ".agentls", "commands"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentls", "commands", "hello.md"), []byte("Say hello.\n"), 0o644)
	if err := os.Symlink("../../.env", filepath.Join(root, ".agentls", "commands", "leak.md")); err != nil {
		t.Fatal(err)
	}
	code, out := cliRun(t, root, base, "/leak")
	sent := sentText(llm)
	if strings.Contains(sent, "correct-horse") {
		t.Fatalf("the .env reached the model through a project command:\n%s", sent)
	}
	if code == 0 && sent == "" {
		t.Fatalf("nothing ran: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "leak.md") || !strings.Contains(out, "secret") {
		t.Errorf("the user is not told why /leak is no command:\n%s", out)
	}
}

// A nested AGENTS.md that links to .env is not appended to a tool's
// result. Before, list_files of sub/ carried sub/AGENTS.md -> ../.env to
// the model.
func TestNestedAgentsFileLinkedToASecretIsRefused(t *testing.T) {
	llm, base := startModel(t, `{"turns":[
 {"toolCalls":[{"id":"l1","name":"list_files","arguments":"{\"path\":\"sub\"}"}]},
 {"toolCalls":[{"id":"l2","name":"list_files","arguments":"{\"path\":\"ok\"}"}]},
 {"text":"done"}]}`)
	root := copyWorkspace(t, "")
	os.WriteFile(filepath.Join(root, ".env"), []byte(dotEnvSecret+"\n"), 0o600)
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "main.go"), []byte("package sub\n"), 0o644)
	if err := os.Symlink("../.env", filepath.Join(root, "sub", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "ok"), 0o755)
	os.WriteFile(filepath.Join(root, "ok", "AGENTS.md"), []byte("Use tabs in ok/.\n"), 0o644)
	if code, out := cliRun(t, root, base, "look around"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	sent := sentText(llm)
	if strings.Contains(sent, "correct-horse") {
		t.Fatalf("the .env reached the model as a nested AGENTS.md:\n%s", sent)
	}
	// A real nested AGENTS.md still is.
	if !strings.Contains(sent, "Use tabs in ok/.") {
		t.Fatalf("the nested AGENTS.md of ok/ was not sent:\n%s", sent)
	}
}

// sentText is the content of every message the model was sent.
func sentText(llm *fakellm.Server) string {
	var b strings.Builder
	for _, r := range llm.Requests() {
		for _, m := range r.Body.Messages {
			b.WriteString(m.Content)
			b.WriteString("\n")
			for _, c := range m.ToolCalls {
				b.WriteString(c.Arguments)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// An ACP prompt whose resource_link names a named pipe in the workspace
// does not hang: the link is refused as not a regular file and the task
// runs. Before, content.go opened it blocking and the prompt never
// returned.
func TestACPLinkToAFIFODoesNotHang(t *testing.T) {
	r := startACP(t, "hello", `{"turns":[{"text":"done"}]}`, false, map[string]any{"llm": map[string]any{"model": "gpt-4o"}})
	for _, name := range []string{"pipe.png", "pipe.txt"} {
		if err := syscall.Mkfifo(filepath.Join(r.root, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := r.newSession(t)
	// The bound only turns a hang (the old code) into a failure.
	ctx, cancel := context.WithTimeout(r.ctx, 60*time.Second)
	defer cancel()
	res, err := r.Prompt(ctx, sdk.PromptRequest{SessionId: s, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("look at these"),
		sdk.ResourceLinkBlock("pipe.png", "file://"+filepath.Join(r.root, "pipe.png")),
		sdk.ResourceLinkBlock("pipe.txt", "file://"+filepath.Join(r.root, "pipe.txt")),
	}})
	if err != nil {
		t.Fatalf("a prompt linking a FIFO: %v", err)
	}
	if res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %v", res.StopReason)
	}
	_, _, text := toolCalls(r.client.snapshot())
	if n := strings.Count(text, "not a regular file"); n != 2 {
		t.Errorf("the client is not told both links are no regular files (%d):\n%s", n, text)
	}
}
