package lsp

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
)

// trust holds back the workspace's settings that widen what agentls may
// run (.agentls.json, the editor's workspace-scope settings) until the
// user trusts their content, and asks about them when a task starts.
type trust struct {
	ed       *editor // asks through showMessageRequest
	log      *zap.Logger
	stateDir string // holds the trust store

	mu         sync.Mutex
	untrusted  *assemble.WorkspaceSettings // .agentls.json held back until trusted
	edUntrust  *assemble.WorkspaceSettings // the editor's workspace-scope settings, the same
	trustAsked map[string]bool             // contents already asked about
}

// Answers when agentls asks to trust the workspace's settings file.
const (
	trustFile = "Trust this file"
	notNow    = "Not now"
)

// workspaceSettings reads .agentls.json with what widens power held back
// until the user trusts the content (assemble.ReadWorkspaceSettings). The
// held-back file is kept so the next task can ask about it.
func (tr *trust) workspaceSettings(root string) (config.Source, []config.Problem) {
	ws := assemble.ReadWorkspaceSettings(root, assemble.TrustStore(tr.stateDir))
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(ws.Untrusted) == 0 {
		tr.untrusted = nil
		return ws.Source, ws.Problems
	}
	tr.untrusted = &ws
	probs := append(ws.Problems, config.Problem{Key: fmt.Sprint(ws.Untrusted), Source: config.FileName,
		Msg: "not applied until you trust this file: it widens what agentls may run (you are asked when the next task starts)"})
	return ws.Source, probs
}

// editorWorkspaceSettings is the editor's workspace-scope settings (sent
// apart from the user's, under workspaceSettings) as a source, with what
// widens power held back until the user trusts this content, as for
// .agentls.json.
func (tr *trust) editorWorkspaceSettings(root string, data []byte) (config.Source, []config.Problem) {
	const name = "editor workspace settings"
	if len(data) == 0 {
		tr.mu.Lock()
		tr.edUntrust = nil
		tr.mu.Unlock()
		return config.Source{Name: name}, nil
	}
	store := assemble.TrustStore(tr.stateDir)
	ws := assemble.HoldBack(name, assemble.EditorWorkspaceFile(root), data, store)
	var dropped []config.Problem
	for k := range ws.Source.Values {
		switch {
		case k == "agent.backend" || strings.HasPrefix(k, "agent.backend."):
			// A command to start: the user's own settings only, as for
			// .agentls.json.
			delete(ws.Source.Values, k)
			dropped = append(dropped, config.Problem{Key: k, Source: name, Msg: "read from your user settings only, never from the workspace's"})
		case k == "tools.deny" && !store.Trusted(ws.Path, data):
			// These settings rank above the user's: a workspace value
			// would replace the user's deny rules.
			delete(ws.Source.Values, k)
			ws.Untrusted = append(ws.Untrusted, k)
		}
	}
	ws.Problems = append(ws.Problems, dropped...)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(ws.Untrusted) == 0 {
		tr.edUntrust = nil
		return ws.Source, ws.Problems
	}
	tr.edUntrust = &ws
	probs := append(ws.Problems, config.Problem{Key: fmt.Sprint(ws.Untrusted), Source: name,
		Msg: "not applied until you trust these workspace settings: they widen what agentls may run (you are asked when the next task starts)"})
	return ws.Source, probs
}

// settleTrust asks, before a task, whether the held-back workspace
// settings (.agentls.json, the editor's workspace scope) may apply, once
// per content, and reports a yes (the caller re-resolves the
// configuration then). No lock is held while the client answers.
func (tr *trust) settleTrust(ctx context.Context) (trusted bool) {
	tr.mu.Lock()
	var ask []*assemble.WorkspaceSettings
	for _, ws := range []*assemble.WorkspaceSettings{tr.untrusted, tr.edUntrust} {
		if ws == nil {
			continue
		}
		key := fmt.Sprintf("%x", sha256.Sum256(append([]byte(ws.Path+"\x00"), ws.Content...)))
		// A held-back endpoint stops every task (assemble.HeldBack), so
		// it is asked about at each one; the rest once per content.
		if tr.trustAsked[key] && assemble.HeldBack(ws.Untrusted) == nil {
			continue
		}
		if tr.trustAsked == nil {
			tr.trustAsked = map[string]bool{}
		}
		tr.trustAsked[key] = true
		ask = append(ask, ws)
	}
	tr.mu.Unlock()
	if len(ask) == 0 || !tr.ed.canAsk() {
		return false
	}
	for _, ws := range ask {
		res, err := tr.ed.ask(ctx, protocol.ShowMessageRequestParams{
			Type:    protocol.MessageTypeWarning,
			Message: ws.Question(),
			Actions: []protocol.MessageActionItem{{Title: trustFile}, {Title: notNow}},
		})
		if err != nil || res == nil || res.Title != trustFile {
			continue
		}
		if err := ws.Trust(assemble.TrustStore(tr.stateDir)); err != nil {
			tr.log.Warn("trust", zap.Error(err))
			continue
		}
		trusted = true
	}
	return trusted
}

// heldBack lists the workspace settings still held back for want of trust
// (.agentls.json's and the editor's workspace scope).
func (tr *trust) heldBack() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var keys []string
	for _, ws := range []*assemble.WorkspaceSettings{tr.untrusted, tr.edUntrust} {
		if ws != nil {
			keys = append(keys, ws.Untrusted...)
		}
	}
	return keys
}
