package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/session"
)

// configState is the resolved configuration and where it came from. It has
// its own lock, held only to swap values: .agentls.json and the
// environment are read without it.
type configState struct {
	mu       sync.Mutex
	initOpts []byte // initializationOptions (agentls settings), raw
	settings []byte // the latest workspace/didChangeConfiguration, raw
	cfg      config.Config
	reported map[string]bool // problems and warnings already shown

	ed     *editor // the root; problems are shown there
	trust  *trust  // the workspace's settings, what widens power held back
	getenv func(string) string
	log    *zap.Logger
	// stateDir holds the sessions (openStore).
	stateDir string
}

// agentlsSettings picks settings.agentls out of a settings object; an
// object without that key is taken as the agentls settings themselves.
func agentlsSettings(raw protocol.LSPAny) []byte {
	if len(raw) == 0 {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) == nil {
		if v, ok := top["agentls"]; ok {
			return v
		}
		if v, ok := top["settings"]; ok {
			return agentlsSettings(protocol.LSPAny(v))
		}
	}
	return raw
}

// splitWorkspaceScope takes the workspace-scope settings out of an agentls
// settings object (config.SplitWorkspaceScope).
func splitWorkspaceScope(raw []byte) (user, ws []byte, sent bool) {
	return config.SplitWorkspaceScope(raw)
}

func (c *configState) config() config.Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg
}

// configure re-resolves the configuration and reports each new problem
// once, naming its key. Settings from workspace/didChangeConfiguration win
// over initializationOptions key by key, so a client that sends an empty
// settings object (eglot does, right after initialized) loses nothing.
func (c *configState) configure(ctx context.Context, settings []byte) {
	c.mu.Lock()
	if settings != nil {
		c.settings = settings
	}
	rawChanged, rawInit := c.settings, c.initOpts
	c.mu.Unlock()

	rawChanged, wsChanged, sent := splitWorkspaceScope(rawChanged)
	rawInit, wsInit, _ := splitWorkspaceScope(rawInit)
	if !sent {
		wsChanged = wsInit // no didChangeConfiguration yet, or one without them
	}
	changed, p1 := config.FromJSON("editor settings", rawChanged)
	initial, p0 := config.FromJSON("editor settings", rawInit)
	edWS, pw := c.trust.editorWorkspaceSettings(c.ed.rootDir(), wsChanged)
	file, p2 := c.trust.workspaceSettings(c.ed.rootDir())
	cfg, p3 := config.Resolve(edWS, changed, initial, file, config.FromEnv(c.getenv))
	p2 = append(pw, p2...)

	c.mu.Lock()
	c.cfg = cfg
	var fresh []string
	for _, p := range append(append(append(p0, p1...), p2...), p3...) {
		if msg := p.String(); !c.reported[msg] {
			c.reported[msg] = true
			fresh = append(fresh, msg)
		}
	}
	c.mu.Unlock()
	for _, m := range fresh {
		c.log.Warn("configuration problem", zap.String("problem", m))
		c.ed.notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: m})
	}
}

// warnOnce shows a warning the first time it is given.
func (c *configState) warnOnce(ctx context.Context, msg string) {
	c.mu.Lock()
	seen := c.reported[msg]
	c.reported[msg] = true
	c.mu.Unlock()
	c.log.Warn(msg)
	if !seen {
		c.ed.showMessage(ctx, protocol.MessageTypeWarning, "%s", msg)
	}
}

// openStore opens the workspace's session store for one task.
func (c *configState) openStore(ctx context.Context, cfg config.Config, root string) *session.Store {
	st, err := session.Open(root, session.Options{
		StateDir: c.stateDir,
		Memory:   cfg.Agent.Memory,
		Redact:   cfg.Redact,
		Warn:     func(msg string) { c.warnOnce(ctx, "agentls: "+msg) },
	})
	if err != nil {
		c.warnOnce(ctx, fmt.Sprintf("agentls: sessions are not saved (%v); tasks run in memory", err))
		return nil
	}
	return st
}

// sayDisagree tells the user, once per server, that the editor's text is
// not what an edit it reported applied should have left.
func (c *configState) sayDisagree(ctx context.Context, u string) {
	c.log.Warn("the editor's text differs from what an applied edit should have left", zap.String("uri", u))
	c.warnOnce(ctx, "agentls: the editor said it applied an edit, but its text differs from the edited text; agentls goes on with the editor's text")
}
