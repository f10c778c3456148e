package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/config"
)

// Temporary: these commands are wired in the next commits (review, undo,
// verify, sessions). They answer with a clear error meanwhile.
func notYet(name string) error {
	return jsonrpc2.Errorf(jsonrpc2.InternalError, "%s is not available in this build yet", name)
}

func (s *Server) cmdAccept(ctx context.Context, raw json.RawMessage) (any, error) {
	return nil, notYet("agentls.accept")
}
func (s *Server) cmdReject(ctx context.Context, raw json.RawMessage) (any, error) {
	return nil, notYet("agentls.reject")
}
func (s *Server) cmdUndo(ctx context.Context, raw json.RawMessage) (any, error) {
	return nil, notYet("agentls.undo")
}
func (s *Server) cmdVerify(ctx context.Context, raw json.RawMessage) (any, error) {
	return nil, notYet("agentls.verify")
}
func (s *Server) cmdContinue(ctx context.Context, raw json.RawMessage) (any, error) {
	return nil, notYet("agentls.continue")
}

const codeActionKindReview protocol.CodeActionKind = "source.agentls.review"

func (s *Server) codeAction(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	return []protocol.CommandOrCodeAction{}, nil
}

func (s *Server) approver(cfg config.Config) tools.Approver {
	return nil // TODO(lead): tools.PolicyApprover{Allow: cfg.Tools.Allow, Deny: cfg.Tools.Deny} once it lands
}

func (s *Server) verifier(cfg config.Config, root string, t *task) agent.Verifier { return nil }
