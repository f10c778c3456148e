package acpclient

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/policy/approval"
	"github.com/agentls/agentls/internal/tools"
)

// bridgeClient is the client side the external agent talks to.
type bridgeClient struct{ r *bridgeRun }

var _ sdk.Client = (*bridgeClient)(nil)

// confine resolves a path the agent sent beneath the workspace root, as
// agentls's own tools do: symlinks are followed to where they really lead
// (a link to $HOME or / is outside), secret files (tools.secretFiles) are
// never read or written, whether named or reached through a link, and .git
// is read-only. The workspace-relative real path is returned; the check is
// repeated with os.Root when the file is opened (opened). A path checked
// only lexically let a hostile agent read .env and ~/.ssh through links and
// write .git/hooks.
func (c *bridgeClient) confine(path string, write bool) (rel string, err error) {
	root := c.r.b.Root
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	pol := tools.Policy{Root: root, SecretFiles: c.r.b.SecretFiles}
	if write {
		_, rel, err = pol.ResolveWrite(path)
	} else {
		_, rel, err = pol.ResolveRead(path)
	}
	if err != nil {
		return "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%s: %v", path, err)})
	}
	return rel, nil
}

// opened checks, with os.Root, that rel still opens beneath the root as
// the file confine resolved (no link swapped in since); a file that does
// not exist yet is fine.
func (c *bridgeClient) opened(rel string) error {
	r, err := os.OpenRoot(c.r.b.Root)
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.Lstat(filepath.FromSlash(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%s: %v", rel, err)})
	case st.Mode()&fs.ModeSymlink != 0:
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%s became a symbolic link", rel)})
	}
	return nil
}

// protected asks the user before the agent changes a file that configures
// agentls, the editor or git's hooks, named, reached through a link, or
// lying where a protected symlink leads (tools.ProtectedWrite); without a
// way to ask, the write is refused.
func (c *bridgeClient) protected(ctx context.Context, spelled, rel string) error {
	lexical, _ := filepath.Rel(c.r.b.Root, filepath.Clean(spelled))
	ok, why := tools.ProtectedWrite(c.r.b.Root, rel, filepath.ToSlash(lexical))
	if !ok {
		return nil
	}
	if c.r.b.ConfirmWrite == nil {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%s is protected: %s, and there is no way to ask the user", rel, why)})
	}
	yes, err := c.r.b.ConfirmWrite(ctx, rel, why)
	if err != nil || !yes {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("the user did not allow changing %s (%s)", rel, why)})
	}
	return nil
}

// ReadTextFile reads the editor's view (unsaved buffers first).
func (c *bridgeClient) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (_ sdk.ReadTextFileResponse, err error) {
	defer barrier(c.r.b.Log, "fs/read_text_file", &err)
	rel, err := c.confine(p.Path, false)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	if err := c.opened(rel); err != nil {
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
	spelled := p.Path
	if !filepath.IsAbs(spelled) {
		spelled = filepath.Join(c.r.b.Root, spelled)
	}
	rel, err := c.confine(p.Path, true)
	if err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	if err := c.protected(ctx, spelled, rel); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	if err := c.opened(rel); err != nil {
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
	case approval.AllowOnce:
		return pick(p.Options, sdk.PermissionOptionKindAllowOnce, cancelled), nil
	case approval.AllowAlways:
		return pick(p.Options, sdk.PermissionOptionKindAllowAlways, pick(p.Options, sdk.PermissionOptionKindAllowOnce, cancelled)), nil
	case approval.Deny:
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
	u := p.Update
	if r.replaying.Load() {
		return nil // session/load's replay of turns already recorded
	}
	c.noteUpdateDiffs(u)
	switch {
	case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
		r.emit(agent.Event{Kind: agent.KindThought, Text: u.AgentThoughtChunk.Content.Text.Text})
	case u.Plan != nil:
		r.emit(agent.Event{Kind: agent.KindPlan, Plan: workPlan(u.Plan.Entries)})
	case u.AvailableCommandsUpdate != nil:
		r.emitHeld(agent.Event{Kind: agent.KindCommands, Commands: agentCommands(u.AvailableCommandsUpdate.AvailableCommands)})
	case u.ConfigOptionUpdate != nil:
		r.noteOptions(u.ConfigOptionUpdate.ConfigOptions)
		r.emitOptions()
	case u.CurrentModeUpdate != nil:
		r.noteMode(string(u.CurrentModeUpdate.CurrentModeId))
		r.emitOptions()
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		t := u.AgentMessageChunk.Content.Text.Text
		if t == "" {
			return nil // qwen-code ends a message with an empty chunk carrying its usage
		}
		r.mu.Lock()
		r.text.WriteString(t)
		r.mu.Unlock()
		r.emit(agent.Event{Kind: agent.KindText, Text: t})
	case u.ToolCall != nil:
		tc := u.ToolCall
		r.emit(agent.Event{Kind: agent.KindToolCall, Call: &agent.ToolCall{
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
		r.emit(agent.Event{Kind: agent.KindToolResult, Call: &agent.ToolCall{ID: string(tu.ToolCallId), Name: name},
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

// workPlan is an ACP plan as agentls's own (the plan event update_plan
// sends for agentls's loop); ACP's statuses are the same words.
func workPlan(entries []sdk.PlanEntry) *agent.WorkPlan {
	p := &agent.WorkPlan{Steps: []agent.PlanStep{}}
	for _, e := range entries {
		st := agent.StepPending
		switch e.Status {
		case sdk.PlanEntryStatusCompleted:
			st = agent.StepCompleted
		case sdk.PlanEntryStatusInProgress:
			st = agent.StepInProgress
		}
		p.Steps = append(p.Steps, agent.PlanStep{Step: e.Content, Status: st})
	}
	return p
}
