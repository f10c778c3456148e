package assemble

import (
	"encoding/json"
	"sync"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/mcp"
)

// SharedMCP is a front end's MCP servers, started by the first task that
// needs them and shared by the tasks after it. Each task holds the
// manager it started with until it ends: when mcpServers changes, the
// next task gets a new manager and the old one is closed once the last
// task using it has ended, never under a running task.
type SharedMCP struct {
	Log  *zap.Logger
	Warn func(string)

	mu  sync.Mutex
	cur *mcpUse
}

// mcpUse is one manager and the tasks holding it.
type mcpUse struct {
	m       *mcp.Manager
	key     string // the mcpServers setting and root it was made from
	users   int
	retired bool // no longer handed out; closed when users reaches 0
}

// Acquire returns the manager for cfg's mcpServers (nil when there are
// none) and what releases it; call release once the task has ended.
func (p *SharedMCP) Acquire(cfg config.Config, root string) (m *mcp.Manager, release func()) {
	raw, _ := json.Marshal(cfg.MCPServers)
	key := root + "\x00" + string(raw)
	p.mu.Lock()
	var idle *mcp.Manager
	if p.cur != nil && (p.cur.key != key || len(cfg.MCPServers) == 0) {
		idle = p.retireLocked()
	}
	if len(cfg.MCPServers) > 0 && p.cur == nil {
		if mm := MCPManager(cfg, root, p.log(), p.Warn); mm != nil {
			p.cur = &mcpUse{m: mm, key: key}
		}
	}
	u := p.cur
	if u != nil {
		u.users++
	}
	p.mu.Unlock()
	if idle != nil {
		_ = idle.Close()
	}
	if u == nil {
		return nil, func() {}
	}
	var once sync.Once
	return u.m, func() { once.Do(func() { p.release(u) }) }
}

func (p *SharedMCP) release(u *mcpUse) {
	p.mu.Lock()
	u.users--
	done := u.retired && u.users == 0
	p.mu.Unlock()
	if done {
		_ = u.m.Close()
	}
}

// retireLocked stops handing out the current manager and returns it when
// no task holds it (the caller closes it, without p.mu).
func (p *SharedMCP) retireLocked() *mcp.Manager {
	u := p.cur
	p.cur = nil
	u.retired = true
	if u.users == 0 {
		return u.m
	}
	return nil
}

// Close retires the manager: it is closed now, or when the last task
// holding it releases it.
func (p *SharedMCP) Close() {
	p.mu.Lock()
	var idle *mcp.Manager
	if p.cur != nil {
		idle = p.retireLocked()
	}
	p.mu.Unlock()
	if idle != nil {
		_ = idle.Close()
	}
}

func (p *SharedMCP) log() *zap.Logger {
	if p.Log == nil {
		return zap.NewNop()
	}
	return p.Log
}
