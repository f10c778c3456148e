package lsp

import (
	"context"
	"github.com/agentls/agentls/internal/assemble"

	"encoding/json"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/mcp"
)

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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mcp != nil && s.mcpKey != string(key) {
		old := s.mcp
		s.mcp = nil
		go func() {
			defer s.recoverGo("closing MCP servers")
			_ = old.Close()
		}()
	}
	if s.mcp == nil {
		s.mcp = assemble.MCPManager(cfg, root, s.log, func(msg string) { s.warnOnce(context.Background(), "agentls: "+msg) })
		s.mcpKey = string(key)
	}
	return s.mcp
}

func (s *Server) closeMCP() {
	s.mu.Lock()
	m := s.mcp
	s.mcp = nil
	s.mu.Unlock()
	if m != nil {
		_ = m.Close()
	}
}
