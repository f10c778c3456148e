package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/policy/approval"
)

// Permission options offered for a command; their IDs are what the client
// sends back.
const (
	optAllowOnce   = "allow-once"
	optAllowAlways = "allow-always"
	optReject      = "reject"
)

// askToRun is the shared policy's way of asking in ACP mode:
// session/request_permission about the tool call that runs command.
func (a *Agent) askToRun(s *acpSession, out *stream) approval.Ask {
	return func(ctx context.Context, command, why string) (approval.Answer, error) {
		title := "Run `" + command + "`"
		kind := sdk.ToolKindExecute
		status := sdk.ToolCallStatusPending
		ans, err := a.requestPermission(ctx, s, sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(out.callFor(command)), Title: &title, Kind: &kind, Status: &status,
			RawInput: map[string]any{"command": command, "cwd": s.root, "why": why},
		},
			sdk.PermissionOption{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
			sdk.PermissionOption{OptionId: optAllowAlways, Name: "Allow always", Kind: sdk.PermissionOptionKindAllowAlways},
			sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		)
		if err != nil {
			return approval.NoAnswer, askFailed(ctx, err)
		}
		return ans, nil
	}
}

// requestPermission puts a session/request_permission about call to the
// client and returns the policy's answer for the option chosen (NoAnswer:
// the client cancelled).
func (a *Agent) requestPermission(ctx context.Context, s *acpSession, call sdk.ToolCallUpdate, options ...sdk.PermissionOption) (approval.Answer, error) {
	res, err := a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.id), ToolCall: call, Options: options})
	if err != nil {
		return approval.NoAnswer, err
	}
	return answer(res.Outcome), nil
}

// askFailed is the error of a question the client did not answer: the
// prompt's cancellation, or the request's failure.
func askFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("asking the user failed: %v", err)
}

// answer maps the client's choice to the policy's answer.
func answer(o sdk.RequestPermissionOutcome) approval.Answer {
	if o.Selected == nil {
		return approval.NoAnswer // cancelled
	}
	switch o.Selected.OptionId {
	case optAllowOnce:
		return approval.AllowOnce
	case optAllowAlways:
		return approval.AllowAlways
	case optReject:
		return approval.Deny
	}
	return approval.NoAnswer
}

// settleTrust asks, at a session's first prompt, whether the held-back
// workspace settings may apply; a yes trusts this content and reloads the
// session's settings.
func (a *Agent) settleTrust(ctx context.Context, s *acpSession, out *stream) {
	ws := s.untrusted
	if ws == nil {
		return
	}
	s.untrusted = nil // asked once per session
	ok, err := a.yesNo(ctx, s, out, "Trust "+ws.Path, ws.Question(), map[string]any{"path": ws.Path, "keys": ws.Untrusted, "why": ws.Question()})
	if err != nil || !ok {
		return
	}
	if err := ws.Trust(trustStore()); err != nil {
		a.log.Warn("trust", zap.Error(err))
		return
	}
	cfg := a.loadConfig(s)
	cfg.MCPServers = mergeMCP(cfg.MCPServers, s.clientServers)
	s.mu.Lock()
	if s.model == s.cfg.LLM.Model { // not picked: the trusted settings' model
		s.model = cfg.LLM.Model
	}
	s.cfg = cfg
	s.mu.Unlock()
	s.setMCP(assemble.MCPManager(cfg, s.root, a.log, func(msg string) { a.log.Warn(msg) }))
}
