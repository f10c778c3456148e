package lsp

import (
	"context"
	"crypto/sha256"
	"fmt"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
)

// Answers when agentls asks to trust the workspace's settings file.
const (
	trustFile = "Trust this file"
	notNow    = "Not now"
)

// workspaceSettings reads .agentls.json with what widens power held back
// until the user trusts the content (assemble.ReadWorkspaceSettings). The
// held-back file is kept so the next task can ask about it.
func (s *Server) workspaceSettings(root string) (config.Source, []config.Problem) {
	ws := assemble.ReadWorkspaceSettings(root, assemble.TrustStore(s.stateDir()))
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	if len(ws.Untrusted) == 0 {
		s.untrusted = nil
		return ws.Source, ws.Problems
	}
	s.untrusted = &ws
	probs := append(ws.Problems, config.Problem{Key: fmt.Sprint(ws.Untrusted), Source: config.FileName,
		Msg: "not applied until you trust this file: it widens what agentls may run (you are asked when the next task starts)"})
	return ws.Source, probs
}

// settleTrust asks, before a task, whether the held-back workspace
// settings may apply, once per content; a yes re-resolves the
// configuration. No lock is held while the client answers.
func (s *Server) settleTrust(ctx context.Context) {
	s.trustMu.Lock()
	ws := s.untrusted
	var key string
	if ws != nil {
		key = fmt.Sprintf("%x", sha256.Sum256(ws.Content))
		// A held-back endpoint stops every task (assemble.HeldBack), so
		// it is asked about at each one; the rest once per content.
		if s.trustAsked[key] && assemble.HeldBack(ws.Untrusted) == nil {
			ws = nil
		} else {
			if s.trustAsked == nil {
				s.trustAsked = map[string]bool{}
			}
			s.trustAsked[key] = true
		}
	}
	s.trustMu.Unlock()
	if ws == nil || !s.canAsk() {
		return
	}
	res, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: ws.Question(),
		Actions: []protocol.MessageActionItem{{Title: trustFile}, {Title: notNow}},
	})
	if err != nil || res == nil || res.Title != trustFile {
		return
	}
	if err := ws.Trust(assemble.TrustStore(s.stateDir())); err != nil {
		s.log.Warn("trust", zap.Error(err))
		return
	}
	s.configure(ctx, nil)
}

func (s *Server) canAsk() bool {
	caps, _ := s.clientState()
	return caps.showMessageReq
}

// heldBack lists the workspace settings still held back for want of trust.
func (s *Server) heldBack() []string {
	s.trustMu.Lock()
	defer s.trustMu.Unlock()
	if s.untrusted == nil {
		return nil
	}
	return s.untrusted.Untrusted
}
