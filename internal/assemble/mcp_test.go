package assemble

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/mcp"
	"github.com/agentls/agentls/internal/proc"
)

func mcpConfig(name string) config.Config {
	cfg := config.Defaults()
	cfg.Sandbox.Mode = proc.ModeOff
	cfg.MCPServers = map[string]config.MCPServer{name: {Command: "/nonexistent/" + name}}
	return cfg
}

// closed reports whether m was closed (its Tools say so).
func closed(m *mcp.Manager) bool {
	_, errs := m.Tools(context.Background(), nil)
	return len(errs) == 1 && strings.Contains(errs[0].Error(), "manager is closed")
}

// A manager is shared while mcpServers stays the same, and a change
// retires it: closed when the last task holding it releases it, never
// before.
func TestSharedMCPClosesWhenTheLastHolderReleases(t *testing.T) {
	var p SharedMCP
	root := t.TempDir()
	a1, rel1 := p.Acquire(mcpConfig("a"), root)
	a2, rel2 := p.Acquire(mcpConfig("a"), root)
	if a1 == nil || a1 != a2 {
		t.Fatalf("same setting, managers %p and %p", a1, a2)
	}
	b, relB := p.Acquire(mcpConfig("b"), root)
	if b == a1 {
		t.Fatal("a changed setting got the old manager")
	}
	rel1()
	rel1() // a second release does nothing
	if closed(a1) {
		t.Fatal("closed while a task still holds it")
	}
	rel2()
	if !closed(a1) {
		t.Fatal("not closed after its last holder released it")
	}
	none, relNone := p.Acquire(config.Defaults(), root)
	if none != nil {
		t.Fatal("a manager without mcpServers")
	}
	relNone()
	if closed(b) {
		t.Fatal("b closed while held")
	}
	relB()
	if !closed(b) {
		t.Fatal("b not closed once released after the setting dropped it")
	}
	c, relC := p.Acquire(mcpConfig("c"), root)
	p.Close()
	if closed(c) {
		t.Fatal("Close closed a manager a task holds")
	}
	relC()
	if !closed(c) {
		t.Fatal("c not closed after Close and its release")
	}
}
