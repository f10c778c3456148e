package acpclient

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
)

// bridgeClient is the client side the external agent talks to.
type bridgeClient struct{ r *bridgeRun }

var _ sdk.Client = (*bridgeClient)(nil)

// rel confines a path the agent sent to the workspace.
func (c *bridgeClient) rel(path string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.r.b.Root, path)
	}
	rel, err := filepath.Rel(c.r.b.Root, filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%s is outside the workspace %s", path, c.r.b.Root)})
	}
	return filepath.ToSlash(rel), nil
}

// ReadTextFile reads the editor's view (unsaved buffers first).
func (c *bridgeClient) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (_ sdk.ReadTextFileResponse, err error) {
	defer barrier(c.r.b.Log, "fs/read_text_file", &err)
	rel, err := c.rel(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	b, err := c.r.b.Workspace.ReadFile(ctx, rel)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	text := string(b)
	if p.Line != nil || p.Limit != nil {
		lines := strings.SplitAfter(text, "\n")
		from := 0
		if p.Line != nil && *p.Line > 1 {
			from = min(*p.Line-1, len(lines))
		}
		to := len(lines)
		if p.Limit != nil && *p.Limit >= 0 {
			to = min(from+*p.Limit, len(lines))
		}
		text = strings.Join(lines[from:to], "")
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

// WriteTextFile goes through the editor workspace like agentls's own
// edits: a versioned workspace/applyEdit, or a proposal in review mode.
func (c *bridgeClient) WriteTextFile(ctx context.Context, p sdk.WriteTextFileRequest) (_ sdk.WriteTextFileResponse, err error) {
	defer barrier(c.r.b.Log, "fs/write_text_file", &err)
	rel, err := c.rel(p.Path)
	if err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	err = c.r.b.Workspace.Edit(ctx, rel, func([]byte, bool) ([]byte, error) { return []byte(p.Content), nil })
	if err != nil {
		return sdk.WriteTextFileResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	c.r.mu.Lock()
	c.r.changed[rel] = true
	c.r.mu.Unlock()
	return sdk.WriteTextFileResponse{}, nil
}

// RequestPermission asks the user the way the server asks about commands.
func (c *bridgeClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (_ sdk.RequestPermissionResponse, err error) {
	defer barrier(c.r.b.Log, "session/request_permission", &err)
	cancelled := sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}
	if c.r.b.Ask == nil {
		return pick(p.Options, sdk.PermissionOptionKindRejectOnce, cancelled), nil
	}
	what := "an action"
	if p.ToolCall.Title != nil {
		what = *p.ToolCall.Title
	}
	ans, err := c.r.b.Ask(ctx, what, "")
	if err != nil {
		return cancelled, nil
	}
	switch ans {
	case assemble.AllowOnce:
		return pick(p.Options, sdk.PermissionOptionKindAllowOnce, cancelled), nil
	case assemble.AllowAlways:
		return pick(p.Options, sdk.PermissionOptionKindAllowAlways, pick(p.Options, sdk.PermissionOptionKindAllowOnce, cancelled)), nil
	case assemble.Deny:
		return pick(p.Options, sdk.PermissionOptionKindRejectOnce, pick(p.Options, sdk.PermissionOptionKindRejectAlways, cancelled)), nil
	}
	return cancelled, nil
}

func pick(opts []sdk.PermissionOption, kind sdk.PermissionOptionKind, otherwise sdk.RequestPermissionResponse) sdk.RequestPermissionResponse {
	for _, o := range opts {
		if o.Kind == kind {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}
		}
	}
	return otherwise
}

// SessionUpdate turns the agent's updates into agentls events: text,
// tool calls and their results.
func (c *bridgeClient) SessionUpdate(_ context.Context, p sdk.SessionNotification) (err error) {
	defer barrier(c.r.b.Log, "session/update", &err)
	r := c.r
	r.mu.Lock()
	step := r.steps
	r.mu.Unlock()
	u := p.Update
	c.noteUpdateDiffs(u)
	switch {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		t := u.AgentMessageChunk.Content.Text.Text
		r.mu.Lock()
		r.text.WriteString(t)
		r.mu.Unlock()
		r.emit(agent.Event{Kind: agent.KindText, Step: step, Text: t})
	case u.ToolCall != nil:
		tc := u.ToolCall
		r.emit(agent.Event{Kind: agent.KindToolCall, Step: step, Call: &agent.ToolCall{
			ID: string(tc.ToolCallId), Name: toolName(tc.Kind, tc.Title), Arguments: rawJSON(tc.RawInput)}})
	case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
		tu := u.ToolCallUpdate
		st := *tu.Status
		if st != sdk.ToolCallStatusCompleted && st != sdk.ToolCallStatusFailed {
			return nil
		}
		name := "tool"
		if tu.Title != nil {
			name = *tu.Title
		}
		var out strings.Builder
		for _, cc := range tu.Content {
			switch {
			case cc.Content != nil && cc.Content.Content.Text != nil:
				out.WriteString(cc.Content.Content.Text.Text)
			case cc.Diff != nil:
				fmt.Fprintf(&out, "edited %s\n", cc.Diff.Path)
			}
		}
		r.emit(agent.Event{Kind: agent.KindToolResult, Step: step, Call: &agent.ToolCall{ID: string(tu.ToolCallId), Name: name},
			Output: out.String(), IsErr: st == sdk.ToolCallStatusFailed})
	}
	return nil
}

// toolName names an external tool call for agentls's events: its title,
// else its kind.
func toolName(kind sdk.ToolKind, title string) string {
	if title != "" {
		return title
	}
	if kind != "" {
		return string(kind)
	}
	return "tool"
}

func (c *bridgeClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}
func (c *bridgeClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}
func (c *bridgeClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}
func (c *bridgeClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}
func (c *bridgeClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}
