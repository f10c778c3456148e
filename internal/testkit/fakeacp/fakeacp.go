// Package fakeacp is a scripted ACP agent for tests of agentls's bridge
// (agent.backend.acp). Its first prompt reads hello.txt through the
// client, asks permission to "run make test", and writes hello.txt with
// "hello" replaced by "goodbye" (or, when the prompt contains "BROKEN", with
// a line the tests' check rejects). A later prompt (the bridge's follow-up
// after failed checks) writes the file again without that line, unless the
// first prompt said "STAY BROKEN". Each step
// is reported as session/update text, so a test can see what the client
// answered. A prompt starting "FS" plays a hostile agent instead (fsOps).
//
// It imports nothing from agentls.
package fakeacp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// Serve runs the fake agent on in/out until the client goes away.
func Serve(in io.Reader, out io.Writer) {
	a := &fake{}
	a.conn = sdk.NewAgentSideConnection(a, out, in)
	<-a.conn.Done()
}

type fake struct {
	conn *sdk.AgentSideConnection
	mu   sync.Mutex
	cwd  string
	n    int
	stay bool // the first prompt said "STAY BROKEN": follow-ups leave the line

	sid         sdk.SessionId
	resumed     bool
	authed      bool
	model, mode string
	effort      string
	mcp         []string
}

// The fake's environment switches: FAKEACP_AUTH_VAR names a variable an
// env_var auth method needs before session/new (else "authentication
// required"); sessions can be resumed (any "fake-" ID); a model config
// option (fake-small, fake-large) and modes (ask, code) can be picked. The
// first line of each prompt's text says which session, model, mode and MCP
// servers the prompt runs with. Each prompt announces two slash commands
// (init, compress) and turns its effort option (category thought_level,
// low or high) to high.

func (a *fake) Initialize(context.Context, sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	res := sdk.InitializeResponse{ProtocolVersion: sdk.ProtocolVersionNumber, AuthMethods: []sdk.AuthMethod{},
		AgentCapabilities: sdk.AgentCapabilities{SessionCapabilities: sdk.SessionCapabilities{Resume: &sdk.SessionResumeCapabilities{}}}}
	if v := os.Getenv("FAKEACP_AUTH_VAR"); v != "" {
		res.AuthMethods = append(res.AuthMethods, sdk.AuthMethod{EnvVar: &sdk.AuthMethodEnvVarInline{Id: "fake-env", Name: "API key", Type: "env_var",
			Vars: []sdk.AuthEnvVar{{Name: v}}}})
	}
	return res, nil
}
func (a *fake) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	if p.MethodId != "fake-env" || os.Getenv(os.Getenv("FAKEACP_AUTH_VAR")) == "" {
		return sdk.AuthenticateResponse{}, sdk.NewInvalidParams(map[string]any{"error": "no key"})
	}
	a.mu.Lock()
	a.authed = true
	a.mu.Unlock()
	return sdk.AuthenticateResponse{}, nil
}

func (a *fake) options() ([]sdk.SessionConfigOption, *sdk.SessionModeState) {
	cat := sdk.SessionConfigOptionCategoryModel
	vals := sdk.SessionConfigSelectOptionsUngrouped{{Name: "small", Value: "fake-small"}, {Name: "large", Value: "fake-large"}}
	thought := sdk.SessionConfigOptionCategoryThoughtLevel
	efforts := sdk.SessionConfigSelectOptionsUngrouped{{Name: "low", Value: "low"}, {Name: "high", Value: "high"}}
	return []sdk.SessionConfigOption{{Select: &sdk.SessionConfigOptionSelect{Id: "model", Name: "Model", Category: &cat,
			CurrentValue: sdk.SessionConfigValueId(a.model), Options: sdk.SessionConfigSelectOptions{Ungrouped: &vals}}},
			{Select: &sdk.SessionConfigOptionSelect{Id: "effort", Name: "Effort", Category: &thought,
				CurrentValue: sdk.SessionConfigValueId(a.effort), Options: sdk.SessionConfigSelectOptions{Ungrouped: &efforts}}}},
		&sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(a.mode), AvailableModes: []sdk.SessionMode{{Id: "ask", Name: "Ask"}, {Id: "code", Name: "Code"}}}
}

func (a *fake) open(cwd string, servers []sdk.McpServer) {
	a.cwd, a.model, a.mode, a.effort, a.mcp = cwd, "fake-small", "ask", "low", nil
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			a.mcp = append(a.mcp, s.Stdio.Name)
		case s.Http != nil:
			a.mcp = append(a.mcp, s.Http.Name)
		}
	}
}

func (a *fake) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if os.Getenv("FAKEACP_AUTH_VAR") != "" && !a.authed {
		return sdk.NewSessionResponse{}, &sdk.RequestError{Code: -32000, Message: "Authentication required"}
	}
	a.open(p.Cwd, p.McpServers)
	a.sid = sdk.SessionId(fmt.Sprintf("fake-%d", time.Now().UnixNano()))
	opts, modes := a.options()
	return sdk.NewSessionResponse{SessionId: a.sid, ConfigOptions: opts, Modes: modes}, nil
}
func (a *fake) ResumeSession(_ context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	if !strings.HasPrefix(string(p.SessionId), "fake-") {
		return sdk.ResumeSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "no such session"})
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.open(p.Cwd, p.McpServers)
	a.sid, a.resumed = p.SessionId, true
	opts, modes := a.options()
	return sdk.ResumeSessionResponse{ConfigOptions: opts, Modes: modes}, nil
}
func (a *fake) Cancel(context.Context, sdk.CancelNotification) error { return nil }
func (a *fake) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, nil
}
func (a *fake) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}, nil
}
func (a *fake) SetSessionConfigOption(_ context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil || p.ValueId.ConfigId != "model" {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "no such option"})
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.model = string(p.ValueId.Value)
	opts, _ := a.options()
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}
func (a *fake) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mode = string(p.ModeId)
	return sdk.SetSessionModeResponse{}, nil
}

func (a *fake) say(ctx context.Context, sid sdk.SessionId, format string, args ...any) {
	_ = a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.UpdateAgentMessageText(fmt.Sprintf(format, args...) + "\n")})
}

func (a *fake) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	a.mu.Lock()
	a.n++
	n, cwd := a.n, a.cwd
	a.mu.Unlock()
	var prompt strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			prompt.WriteString(b.Text.Text)
		}
	}
	sid := p.SessionId
	a.mu.Lock()
	how := "new"
	if a.resumed {
		how = "resumed"
	}
	a.say(ctx, sid, "session: %s (%s), model: %s, mode: %s, mcp: %s", sid, how, a.model, a.mode, strings.Join(a.mcp, ","))
	a.mu.Unlock()
	_ = a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
		AvailableCommands: []sdk.AvailableCommand{
			{Name: "init", Description: "Write AGENTS.md"},
			{Name: "compress", Description: "Summarise the session", Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "what to keep"}}},
		}}}})
	a.mu.Lock()
	a.effort = "high"
	opts, _ := a.options()
	a.mu.Unlock()
	_ = a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: opts}}})
	_ = a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.UpdateAgentThoughtText("thinking about it")})
	_ = a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.UpdatePlan(
		sdk.PlanEntry{Content: "read the file", Status: sdk.PlanEntryStatusCompleted, Priority: sdk.PlanEntryPriorityHigh},
		sdk.PlanEntry{Content: "change it", Status: sdk.PlanEntryStatusInProgress, Priority: sdk.PlanEntryPriorityHigh})})
	if ops, ok := strings.CutPrefix(prompt.String(), "FS\n"); ok {
		a.fsOps(ctx, sid, cwd, ops)
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	path := filepath.Join(cwd, "hello.txt")
	read, err := a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sid, Path: path})
	if err != nil {
		a.say(ctx, sid, "read failed: %v", err)
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	a.say(ctx, sid, "read: %s", strings.TrimSpace(read.Content))
	_ = a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.StartToolCall("edit-1", "Edit hello.txt", sdk.WithStartKind(sdk.ToolKindEdit), sdk.WithStartStatus(sdk.ToolCallStatusInProgress))})
	next := strings.ReplaceAll(read.Content, "hello", "goodbye")
	if n == 1 {
		title := "run make test"
		perm, err := a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sid,
			ToolCall: sdk.ToolCallUpdate{ToolCallId: "cmd-1", Title: &title},
			Options: []sdk.PermissionOption{
				{OptionId: "yes", Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
				{OptionId: "no", Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
			}})
		switch {
		case err != nil:
			a.say(ctx, sid, "permission: error %v", err)
		case perm.Outcome.Selected != nil:
			a.say(ctx, sid, "permission: %s", perm.Outcome.Selected.OptionId)
		default:
			a.say(ctx, sid, "permission: cancelled")
		}
		if strings.Contains(prompt.String(), "BROKEN") {
			next += "BROKEN\n"
		}
		a.mu.Lock()
		a.stay = strings.Contains(prompt.String(), "STAY BROKEN")
		a.mu.Unlock()
	} else {
		a.say(ctx, sid, "follow-up: %s", strings.SplitN(prompt.String(), "\n", 2)[0])
		a.mu.Lock()
		stay := a.stay
		a.mu.Unlock()
		if !stay {
			next = strings.ReplaceAll(next, "BROKEN\n", "")
		}
	}
	if _, err := a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sid, Path: path, Content: next}); err != nil {
		a.say(ctx, sid, "write failed: %v", err)
	}
	st := sdk.ToolCallStatusCompleted
	_ = a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sid, Update: sdk.UpdateToolCall("edit-1", sdk.WithUpdateStatus(st),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolDiffContent(path, next, read.Content)}))})
	a.say(ctx, sid, "done")
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// fsOps plays a hostile agent: a prompt "FS\n" followed by lines
// "read PATH" or "write PATH" (relative to the session's cwd, or absolute)
// makes those calls and reports each as "fs read PATH: ok: TEXT" or
// "fs write PATH: refused: ERROR".
func (a *fake) fsOps(ctx context.Context, sid sdk.SessionId, cwd, ops string) {
	for _, line := range strings.Split(ops, "\n") {
		op, p, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, p)
		}
		switch op {
		case "read":
			res, err := a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sid, Path: abs})
			if err != nil {
				a.say(ctx, sid, "fs read %s: refused: %v", p, err)
			} else {
				a.say(ctx, sid, "fs read %s: ok: %s", p, strings.TrimSpace(res.Content))
			}
		case "write":
			_, err := a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sid, Path: abs, Content: "#!/bin/sh\necho owned\n"})
			if err != nil {
				a.say(ctx, sid, "fs write %s: refused: %v", p, err)
			} else {
				a.say(ctx, sid, "fs write %s: ok", p)
			}
		}
	}
	a.say(ctx, sid, "done")
}
