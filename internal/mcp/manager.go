package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/tools"
)

// Options configures a Manager. Zero values take the defaults in brackets.
type Options struct {
	Logger *zap.Logger // [zap.NewNop()]
	// Env is the environment stdio servers start from [os.Environ()];
	// agentls' own API keys are removed and the server's env setting added.
	Env []string
	// Root is the working directory of stdio servers [the process's].
	Root string
	// ConnectTimeout bounds starting a server and listing its tools [10 s].
	ConnectTimeout time.Duration
	// Sandbox confines stdio servers like run_command (internal/proc); a
	// server whose "sandbox" setting is false runs outside it, and Warn is
	// told. Its zero value is the default workspace-write sandbox.
	Sandbox proc.Sandbox
	// Secrets are values (the API key in use) no server's inherited
	// environment may contain.
	Secrets []string
	// Warn tells the user something they should know [logged only].
	Warn func(msg string)
}

// Manager runs the configured MCP servers for one agentls process. It is
// safe for concurrent use.
type Manager struct {
	opts    Options
	servers []*server // sorted by name, so tool order is stable

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup // session watchers
}

// NewManager prepares the servers; none starts before Tools is called.
func NewManager(servers map[string]config.MCPServer, opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	m := &Manager{opts: opts}
	for name, cfg := range servers {
		m.servers = append(m.servers, &server{m: m, name: name, cfg: cfg, log: opts.Logger.With(zap.String("mcpServer", name))})
	}
	slices.SortFunc(m.servers, func(a, b *server) int {
		if a.name < b.name {
			return -1
		}
		if a.name > b.name {
			return 1
		}
		return 0
	})
	return m
}

// Tools starts the servers not started yet (in parallel) and returns the
// tools of every server that is up. A server that could not start or list
// its tools is left out and reported in the errors, with the end of its
// stderr; the first start of a server is not retried by later calls unless
// it failed because ctx ended.
//
// approver is asked before each call, with "mcp <server>.<tool> <arguments
// JSON>" and a context marked by tools.WithToolCall that says whether the
// server's allow list names the tool (then the approver applies tools.deny
// and asks nobody) [nil: the calls the allow list names run, others are
// refused]. It is bound to the tools returned, not to the manager,
// so each task's calls follow the policy in force when the task started (a
// manager outlives many tasks and setting changes).
func (m *Manager) Tools(ctx context.Context, approver tools.Approver) ([]agent.Tool, []error) {
	if m.isClosed() {
		return nil, []error{errClosed}
	}
	lists := make([][]*mcpTool, len(m.servers))
	errs := make([]error, len(m.servers))
	var wg sync.WaitGroup
	for i, s := range m.servers {
		wg.Go(func() { lists[i], errs[i] = s.toolsOf(ctx) })
	}
	wg.Wait()

	var out []agent.Tool
	taken := map[string]bool{}
	for _, list := range lists {
		for _, t := range list {
			name := t.name
			if taken[name] {
				name = hashedName(sanitize(t.fullName()), t.fullName())
			}
			if taken[name] {
				continue // the server listed the same tool twice
			}
			taken[name] = true
			out = append(out, t.bind(name, approver))
		}
	}
	return out, slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

// Close stops every server: stdin closed, a short grace, then the process
// group killed. Tools and calls fail afterwards.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.shutdown)
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// errClosed is returned by servers of a closed manager.
var errClosed = errors.New("mcp: manager is closed")

func (m *Manager) connectContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, m.opts.ConnectTimeout)
}

func approve(ctx context.Context, approver tools.Approver, desc string, call tools.ToolCall) error {
	if approver == nil {
		if call.ServerAllows {
			return nil
		}
		return fmt.Errorf("%s refused: no approver is configured; allow the tool in the server's \"allow\" list of mcpServers", desc)
	}
	ok, reason, err := approver.Approve(ctx, desc)
	if err != nil {
		return fmt.Errorf("approval of %s: %w", desc, err)
	}
	if !ok {
		if reason == "" {
			reason = "the user did not allow it"
		}
		return fmt.Errorf("%s refused: %s", desc, reason)
	}
	return nil
}

func (m *Manager) warn(msg string) {
	m.opts.Logger.Warn(msg)
	if m.opts.Warn != nil {
		m.opts.Warn(msg)
	}
}
