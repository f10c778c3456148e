package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// Answers offered when agentls asks to run a command.
const (
	allowOnce   = "Allow once"
	allowAlways = "Always allow this command"
	deny        = "Deny"
)

// approver is the shared command policy (approval.New) with the user
// asked through window/showMessageRequest. A client that cannot ask (Helix
// 25.07) follows the policy alone, whose refusal says how to allow the
// command.
func (s *Server) approver(cfg config.Config) tools.Approver {
	return approval.New(cfg, &s.allowed, s.ask())
}

// ask is how the user is asked whether something may run: askToRun, or
// nil when the client cannot ask.
func (s *Server) ask() approval.Ask {
	if !s.ed.canAsk() {
		return nil
	}
	return s.askToRun
}

// askToRun asks the user whether command may run. It holds no lock while
// the client answers.
func (s *Server) askToRun(ctx context.Context, command, _ string) (approval.Answer, error) {
	res, err := s.ed.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: fmt.Sprintf("agentls wants to run in %s:\n\n%s", s.ed.rootDir(), command),
		Actions: []protocol.MessageActionItem{{Title: allowOnce}, {Title: allowAlways}, {Title: deny}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return approval.NoAnswer, ctx.Err()
		}
		return approval.NoAnswer, fmt.Errorf("asking the user failed: %v", err)
	}
	switch {
	case res == nil:
		return approval.NoAnswer, nil
	case res.Title == allowOnce:
		return approval.AllowOnce, nil
	case res.Title == allowAlways:
		return approval.AllowAlways, nil
	default:
		return approval.Deny, nil
	}
}

// Answers to the questions about a protected file and about network.
const (
	allowChange = "Allow this change"
	withNetwork = "Run again with network"
	notAllowed  = "No"
)

// confirmWrite asks whether the model may change a file that configures
// agentls or the editor. A client that cannot ask refuses it.
func (s *Server) confirmWrite(ctx context.Context, rel, why string) (bool, error) {
	return s.yesNo(ctx, fmt.Sprintf("agentls wants to change %s, which %s. Allow this change?", rel, why), allowChange)
}

// askNetwork asks whether a command that failed for want of network may
// run again with it.
func (s *Server) askNetwork(ctx context.Context, command string) (bool, error) {
	return s.yesNo(ctx, fmt.Sprintf("This command failed without network (agentls runs commands in a sandbox):\n\n%s\n\nRun it again with network?", command), withNetwork)
}

// yesNo asks a question with one affirmative answer; no lock is held
// while the client answers.
func (s *Server) yesNo(ctx context.Context, question, yes string) (bool, error) {
	if !s.ed.canAsk() {
		return false, nil
	}
	res, err := s.ed.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: question,
		Actions: []protocol.MessageActionItem{{Title: yes}, {Title: notAllowed}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("asking the user failed: %v", err)
	}
	return res != nil && res.Title == yes, nil
}
