package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// Answers offered when agentls asks to run a command.
const (
	allowOnce   = "Allow once"
	allowAlways = "Always allow this command"
	deny        = "Deny"
)

// approver decides whether run_command (and MCP tools) may run. The
// policy in tools.allow / tools.deny decides when it can; otherwise the
// user is asked with window/showMessageRequest. A client that cannot ask
// (Helix 25.07) falls back to the policy, whose refusal tells the user how
// to allow the command.
func (s *Server) approver(cfg config.Config) tools.Approver {
	return tools.ApproverFunc(func(ctx context.Context, command string) (bool, string, error) {
		// Deny rules refuse without asking.
		if ok, reason, err := (tools.PolicyApprover{Allow: []string{"*"}, Deny: cfg.Tools.Deny}).Approve(ctx, command); err != nil || !ok {
			return false, reason, err
		}
		s.mu.Lock()
		always := contains(s.allowed, command)
		canAsk := s.caps.showMessageReq
		s.mu.Unlock()
		if always {
			return true, "", nil
		}
		ok, reason, err := (tools.PolicyApprover{Allow: cfg.Tools.Allow}).Approve(ctx, command)
		if err != nil || ok || !canAsk {
			return ok, reason, err
		}
		res, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
			Type:    protocol.MessageTypeWarning,
			Message: fmt.Sprintf("agentls wants to run in %s:\n\n%s", s.rootDir(), command),
			Actions: []protocol.MessageActionItem{{Title: allowOnce}, {Title: allowAlways}, {Title: deny}},
		})
		if err != nil {
			if ctx.Err() != nil {
				return false, "", ctx.Err()
			}
			return false, "", fmt.Errorf("asking the user failed: %v", err)
		}
		switch {
		case res == nil:
			return false, "the user dismissed the request to run " + command, nil
		case res.Title == allowOnce:
			return true, "", nil
		case res.Title == allowAlways:
			s.mu.Lock()
			s.allowed = append(s.allowed, command)
			s.mu.Unlock()
			return true, "", nil
		default:
			return false, "the user denied running " + command, nil
		}
	})
}
