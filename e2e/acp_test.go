package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// acpClient is an ACP client (the Go SDK's client side) recording what
// the agent sends; it answers fs requests from its own buffers when fs is on.
type acpClient struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	first   time.Time // when the first update came
	buffers map[string]string
	reads   []string
	writes  []string
	asked   []sdk.RequestPermissionRequest
	answer  sdk.PermissionOptionId // "" cancels
	notify  chan struct{}
	// writeDelay is how long a write takes (an editor busy elsewhere).
	writeDelay time.Duration
}

func (c *acpClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	if b, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: b}, nil
	}
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return sdk.ReadTextFileResponse{Content: string(b)}, nil
}

func (c *acpClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	d := c.writeDelay
	c.mu.Unlock()
	time.Sleep(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, p.Path)
	c.buffers[p.Path] = p.Content // an unsaved buffer: the disk is left alone
	return sdk.WriteTextFileResponse{}, nil
}

func (c *acpClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, p)
	if c.answer == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(c.answer)}, nil
}

func (c *acpClient) SessionUpdate(_ context.Context, p sdk.SessionNotification) error {
	c.mu.Lock()
	if c.first.IsZero() {
		c.first = time.Now()
	}
	c.updates = append(c.updates, p.Update)
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return nil
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}
func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}
func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}
func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}
func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}

func (c *acpClient) snapshot() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionUpdate(nil), c.updates...)
}

// acpRun is `agentls acp` against the fake model, with a client connected.
type acpRun struct {
	*sdk.ClientSideConnection
	client *acpClient
	root   string
	llm    *fakellm.Server
	ctx    context.Context
	state  string
	cmd    *exec.Cmd
	exited chan struct{} // closed when agentls acp has exited (cmd.ProcessState is set)
}

func startACP(t *testing.T, workspace, script string, fs bool, settings map[string]any) *acpRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	root := copyWorkspace(t, workspace)
	llm, base := startModel(t, script)
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings["verify"]; !ok {
		settings["verify"] = map[string]any{"enabled": false}
	}
	raw, _ := json.Marshal(settings)
	state := filepath.Join(t.TempDir(), "state")
	return connectACP(t, ctx, root, llm, base, state, string(raw), fs)
}

func connectACP(t *testing.T, ctx context.Context, root string, llm *fakellm.Server, base, state, settings string, fs bool) *acpRun {
	t.Helper()
	cmd := exec.CommandContext(ctx, binary, "acp", "--settings", settings)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AGENTLS_BASE_URL="+base, "AGENTLS_API_KEY=sk-test-secret-key-123",
		"AGENTLS_MODEL=test-model", "XDG_STATE_HOME="+state)
	var stderr strings.Builder
	cmd.Stderr = &lockedBuilder{b: &stderr}
	in, _ := cmd.StdinPipe()
	// A pipe of our own, not StdoutPipe: Wait, which runs as soon as the
	// process exits (to tell when it did), would close StdoutPipe's read end
	// and lose the last answers still in it.
	out, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { out.Close() })
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		in.Close()
		<-exited
		if t.Failed() {
			t.Logf("agentls acp stderr:\n%s", stderr.String())
		}
	})
	c := &acpClient{buffers: map[string]string{}, notify: make(chan struct{}, 1)}
	conn := sdk.NewClientSideConnection(c, in, out)
	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: fs, WriteTextFile: fs}}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if !init.AgentCapabilities.LoadSession || init.ProtocolVersion != sdk.ProtocolVersionNumber {
		t.Fatalf("initialize: %+v", init)
	}
	return &acpRun{ClientSideConnection: conn, client: c, root: root, llm: llm, ctx: ctx, state: state, cmd: cmd, exited: exited}
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (r *acpRun) newSession(t *testing.T) sdk.SessionId {
	t.Helper()
	s, err := r.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if s.Modes == nil || len(s.Modes.AvailableModes) != 2 {
		t.Fatalf("session/new: modes %+v", s.Modes)
	}
	return s.SessionId
}

func (r *acpRun) prompt(t *testing.T, id sdk.SessionId, text string) sdk.PromptResponse {
	t.Helper()
	res, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	return res
}

// diffs and tool calls seen in the updates.
func toolCalls(ups []sdk.SessionUpdate) (starts map[string]*sdk.SessionUpdateToolCall, ends map[string]*sdk.SessionToolCallUpdate, text string) {
	starts, ends = map[string]*sdk.SessionUpdateToolCall{}, map[string]*sdk.SessionToolCallUpdate{}
	for _, u := range ups {
		switch {
		case u.ToolCall != nil:
			starts[string(u.ToolCall.ToolCallId)] = u.ToolCall
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			ends[string(u.ToolCallUpdate.ToolCallId)] = u.ToolCallUpdate
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			text += u.AgentMessageChunk.Content.Text.Text
		}
	}
	return
}

const readEditScript = `{"turns":[
 {"text":"Let me look.","toolCalls":[{"id":"call_read","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
 {"toolCalls":[{"id":"call_editr","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"},{"id":"call_edit","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
 {"text":"Done: hello became goodbye."}]}`
