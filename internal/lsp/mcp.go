package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/mcp"
)

// mcpTools returns the tools of the MCP servers in mcpServers. Servers
// start on the first task that needs them and live as long as the server
// (or until the setting changes); their calls go through the same approval
// as run_command unless the server's allow list names the tool.
func (s *Server) mcpTools(ctx context.Context, cfg config.Config, root string) []agent.Tool {
	if len(cfg.MCPServers) == 0 {
		s.closeMCP()
		return nil
	}
	key, _ := json.Marshal(cfg.MCPServers)
	s.mu.Lock()
	if s.mcp != nil && s.mcpKey != string(key) {
		old := s.mcp
		s.mcp = nil
		defer func() { _ = old.Close() }()
	}
	if s.mcp == nil {
		s.mcp = mcp.NewManager(cfg.MCPServers, mcp.Options{Approver: s.approver(cfg), Logger: s.log, Root: root})
		s.mcpKey = string(key)
	}
	m := s.mcp
	s.mu.Unlock()
	tools, errs := m.Tools(ctx)
	for _, err := range errs {
		s.warnOnce(ctx, fmt.Sprintf("agentls: MCP: %v", err))
	}
	return tools
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
