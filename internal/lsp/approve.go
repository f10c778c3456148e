package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// Answers offered when agentls asks to run a command.
const (
	allowOnce   = "Allow once"
	allowAlways = "Always allow this command"
	deny        = "Deny"
)

// approver is the shared command policy (assemble.Approver) with the user
// asked through window/showMessageRequest. A client that cannot ask (Helix
// 25.07) follows the policy alone, whose refusal says how to allow the
// command.
func (s *Server) approver(cfg config.Config) tools.Approver {
	caps, _ := s.clientState()
	canAsk := caps.showMessageReq
	var ask assemble.Ask
	if canAsk {
		ask = s.askToRun
	}
	return assemble.Approver(cfg, &s.allowed, ask)
}

// askToRun asks the user whether command may run. It holds no lock while
// the client answers.
func (s *Server) askToRun(ctx context.Context, command, _ string) (assemble.Answer, error) {
	res, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: fmt.Sprintf("agentls wants to run in %s:\n\n%s", s.rootDir(), command),
		Actions: []protocol.MessageActionItem{{Title: allowOnce}, {Title: allowAlways}, {Title: deny}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return assemble.NoAnswer, ctx.Err()
		}
		return assemble.NoAnswer, fmt.Errorf("asking the user failed: %v", err)
	}
	switch {
	case res == nil:
		return assemble.NoAnswer, nil
	case res.Title == allowOnce:
		return assemble.AllowOnce, nil
	case res.Title == allowAlways:
		return assemble.AllowAlways, nil
	default:
		return assemble.Deny, nil
	}
}
