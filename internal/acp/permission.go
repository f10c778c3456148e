package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/assemble"
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
func (a *Agent) askToRun(s *acpSession, out *stream) assemble.Ask {
	return func(ctx context.Context, command, why string) (assemble.Answer, error) {
		title := "Run `" + command + "`"
		kind := sdk.ToolKindExecute
		status := sdk.ToolCallStatusPending
		res, err := a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
			SessionId: sdk.SessionId(s.id),
			ToolCall: sdk.ToolCallUpdate{
				ToolCallId: sdk.ToolCallId(out.callFor(command)), Title: &title, Kind: &kind, Status: &status,
				RawInput: map[string]any{"command": command, "cwd": s.root, "why": why},
			},
			Options: []sdk.PermissionOption{
				{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
				{OptionId: optAllowAlways, Name: "Allow always", Kind: sdk.PermissionOptionKindAllowAlways},
				{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
			},
		})
		if err != nil {
			if ctx.Err() != nil {
				return assemble.NoAnswer, ctx.Err()
			}
			return assemble.NoAnswer, fmt.Errorf("asking the user failed: %v", err)
		}
		return answer(res.Outcome), nil
	}
}

// answer maps the client's choice to the policy's answer.
func answer(o sdk.RequestPermissionOutcome) assemble.Answer {
	if o.Selected == nil {
		return assemble.NoAnswer // cancelled
	}
	switch o.Selected.OptionId {
	case optAllowOnce:
		return assemble.AllowOnce
	case optAllowAlways:
		return assemble.AllowAlways
	case optReject:
		return assemble.Deny
	}
	return assemble.NoAnswer
}
