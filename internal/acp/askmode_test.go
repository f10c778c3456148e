package acp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
)

// editOnce asks for one edit of hello.txt, then ends the turn.
type editOnce struct{}

func (editOnce) Stream(_ context.Context, req agent.Request, _ func(string)) (agent.Response, error) {
	if last := req.Messages[len(req.Messages)-1]; last.Role == agent.RoleTool {
		return agent.Response{Content: "Done.", FinishReason: "stop"}, nil
	}
	return agent.Response{FinishReason: "tool_calls", ToolCalls: []agent.ToolCall{{ID: "r1", Name: "read_file", Arguments: `{"path":"hello.txt"}`}, {ID: "e1", Name: "edit_file",
		Arguments: `{"path":"hello.txt","old_string":"hello","new_string":"goodbye"}`}}}, nil
}

// askClient is an ACP client without fs that answers every permission
// request with answer and keeps the requests.
type askClient struct {
	mu     sync.Mutex
	answer sdk.PermissionOptionId
	asked  []sdk.RequestPermissionRequest
}

func (c *askClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, p)
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(c.answer)}, nil
}
func (c *askClient) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }
func (c *askClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound("fs/read_text_file")
}
func (c *askClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound("fs/write_text_file")
}
func (c *askClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}
func (c *askClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}
func (c *askClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}
func (c *askClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}
func (c *askClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}

// In the "ask" mode each edit is a session/request_permission carrying its
// diff, and a rejected edit is not written; an applied one is.
func TestAskModeAsksEachEditWithItsDiff(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root := t.TempDir()
	hello := filepath.Join(root, "hello.txt")
	if err := os.WriteFile(hello, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c2aR, c2aW := io.Pipe()
	a2cR, a2cW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = Serve(ctx, c2aR, a2cW, Options{Log: zap.NewNop(), Settings: []byte(`{"verify":{"enabled":false}}`),
			NewLLM: func(config.Config) agent.LLM { return editOnce{} }})
	}()
	defer func() { cancel(); c2aW.Close(); <-served }()
	client := &askClient{answer: optReject}
	conn := sdk.NewClientSideConnection(client, c2aW, a2cR)
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: modeAsk}); err != nil {
		t.Fatal(err)
	}
	prompt := func() {
		t.Helper()
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("edit")}}); err != nil {
			t.Fatal(err)
		}
	}

	prompt()
	if b, _ := os.ReadFile(hello); string(b) != "hello world\n" {
		t.Errorf("a rejected edit was written: %q", b)
	}
	client.mu.Lock()
	if len(client.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(client.asked))
	}
	call := client.asked[0].ToolCall
	client.answer = optAllowOnce
	client.mu.Unlock()
	if call.Kind == nil || *call.Kind != sdk.ToolKindEdit || len(call.Content) != 1 || call.Content[0].Diff == nil {
		t.Fatalf("the question is not an edit with its diff: %+v", call)
	}
	if d := call.Content[0].Diff; d.Path != hello || d.OldText == nil || *d.OldText != "hello world\n" || d.NewText != "goodbye world\n" {
		t.Errorf("diff %q: %v -> %q", d.Path, d.OldText, d.NewText)
	}

	prompt()
	if b, _ := os.ReadFile(hello); string(b) != "goodbye world\n" {
		t.Errorf("an applied edit was not written: %q", b)
	}
}
