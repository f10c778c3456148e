package lsp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/mcp"
)

// mcpState is the manager of the MCP servers in mcpServers, started lazily.
type mcpState struct {
	mu  sync.Mutex
	m   *mcp.Manager
	key string // the mcpServers setting m was made from
}

// mcpManager returns the manager of the MCP servers in mcpServers, or nil
// when there are none. Servers start on the first task that needs them and
// live as long as the server (or until the setting changes). Their calls
// are approved by each task's own approver (assemble.Driver binds it), so a
// later tools.deny reaches them.
func (s *Server) mcpManager(cfg config.Config, root string) *mcp.Manager {
	if len(cfg.MCPServers) == 0 {
		s.closeMCP()
		return nil
	}
	key, _ := json.Marshal(cfg.MCPServers)
	st := &s.mcp
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m != nil && st.key != string(key) {
		old := st.m
		st.m = nil
		s.goSafe("closing MCP servers", func() { _ = old.Close() })
	}
	if st.m == nil {
		st.m = assemble.MCPManager(cfg, root, s.log, func(msg string) { s.warnOnce(context.Background(), "agentls: "+msg) })
		st.key = string(key)
	}
	return st.m
}

func (s *Server) closeMCP() {
	s.mcp.mu.Lock()
	m := s.mcp.m
	s.mcp.m = nil
	s.mcp.mu.Unlock()
	if m != nil {
		_ = m.Close()
	}
}
