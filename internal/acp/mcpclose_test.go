package acp

import (
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/mcp"
)

// A trust answer swaps a session's MCP servers on the prompt's goroutine
// while session/close may close them on another: go test -race sees the
// two apart, and a swap after the close starts nothing that stays.
func TestSessionMCPSwapAndClose(t *testing.T) {
	newMgr := func() *mcp.Manager {
		return mcp.NewManager(map[string]config.MCPServer{}, mcp.Options{Root: t.TempDir()})
	}
	s := &acpSession{id: "s1", mcp: newMgr()}
	var wg sync.WaitGroup
	wg.Go(func() { s.setMCP(newMgr()) })
	wg.Go(func() { s.closeMCP() })
	wg.Wait()
	s.setMCP(newMgr()) // after the close
	if m := s.mcpServers(); m != nil {
		t.Errorf("a closed session kept MCP servers: %v", m)
	}
}
