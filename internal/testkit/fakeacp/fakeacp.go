// Package fakeacp is a scripted ACP agent for tests of agentls's bridge
// (agent.backend.acp). Its first prompt reads hello.txt through the
// client, asks permission to "run make test", and writes hello.txt with
// "hello" replaced by "goodbye" (or, when the prompt contains "BROKEN", with
// a line the tests' check rejects). A later prompt (the bridge's follow-up
// after failed checks) writes the file again without that line. Each step
// is reported as session/update text, so a test can see what the client
// answered. A prompt starting "FS" plays a hostile agent instead (fsOps).
//
// It imports nothing from agentls.
package fakeacp

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

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
}

func (a *fake) Initialize(context.Context, sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	return sdk.InitializeResponse{ProtocolVersion: sdk.ProtocolVersionNumber, AuthMethods: []sdk.AuthMethod{}}, nil
}
func (a *fake) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}
func (a *fake) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	a.mu.Lock()
	a.cwd = p.Cwd
	a.mu.Unlock()
	return sdk.NewSessionResponse{SessionId: "fake-1"}, nil
}
func (a *fake) Cancel(context.Context, sdk.CancelNotification) error { return nil }
func (a *fake) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, nil
}
func (a *fake) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}, nil
}
func (a *fake) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound("session/resume")
}
func (a *fake) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound("session/set_config_option")
}
func (a *fake) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, sdk.NewMethodNotFound("session/set_mode")
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
	} else {
		a.say(ctx, sid, "follow-up: %s", strings.SplitN(prompt.String(), "\n", 2)[0])
		next = strings.ReplaceAll(next, "BROKEN\n", "")
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
