package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// Temporary: these commands are wired in the next commits (review, undo,
// verify, sessions). They answer with a clear error meanwhile.
func notYet(name string) error {
	return jsonrpc2.Errorf(jsonrpc2.InternalError, "%s is not available in this build yet", name)
}

func (s *Server) cmdContinue(ctx context.Context, raw json.RawMessage) (any, error) {
	return nil, notYet("agentls.continue")
}
