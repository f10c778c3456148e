package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
)

// crashGrace is how long a failed call waits to see whether the session
// ended: the SDK hands the call its error just before it closes the
// connection, so "dead" shows a moment after the error.
const crashGrace = 2 * time.Second

// server is one configured MCP server and its current session.
type server struct {
	m    *Manager
	name string
	cfg  config.MCPServer
	log  *zap.Logger

	mu        sync.Mutex
	sess      *session
	listed    bool
	tools     []*mcpTool
	startErr  error // a first start that failed for good
	restarted bool  // the one restart this server gets is used
	disabled  error // set after the second crash or on Close
}

// toolsOf starts the server if needed and returns its tools.
func (s *server) toolsOf(ctx context.Context) ([]*mcpTool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.disabled != nil:
		return nil, s.disabled
	case s.startErr != nil:
		return nil, s.startErr
	case s.listed:
		return s.tools, nil
	}
	cctx, cancel := s.m.connectContext(ctx)
	defer cancel()
	sess, err := s.start(cctx)
	if err == nil {
		var list []*sdk.Tool
		list, err = listTools(cctx, sess)
		if err != nil {
			sess.close()
			err = fmt.Errorf("mcp server %q: list tools: %w%s", s.name, err, sess.stderr.suffix())
		} else {
			s.sess, s.listed = sess, true
			for _, t := range list {
				s.tools = append(s.tools, newTool(s, t))
			}
			s.log.Info("mcp server started", zap.Int("tools", len(s.tools)))
			return s.tools, nil
		}
	}
	if ctx.Err() == nil { // a cancelled caller may try again later
		s.startErr = err
	}
	return nil, err
}

// listTools follows pagination to the end.
func listTools(ctx context.Context, sess *session) ([]*sdk.Tool, error) {
	var list []*sdk.Tool
	for t, err := range sess.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		list = append(list, t)
	}
	return list, nil
}

// call runs one tools/call. When the session dies under it or before it,
// the server is restarted (once in its life) and the call retried once.
func (s *server) call(ctx context.Context, tool string, args any) (*sdk.CallToolResult, error) {
	for range 3 { // live() restarts at most once, so the third pass always returns
		sess, err := s.live(ctx)
		if err != nil {
			return nil, err
		}
		res, err := sess.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil || isProtocolError(err) || !sess.diedWithin(crashGrace) {
			return nil, fmt.Errorf("mcp server %q: %s: %w", s.name, tool, err)
		}
		s.log.Warn("mcp server died during a call", zap.String("tool", tool), zap.Error(err))
	}
	return nil, fmt.Errorf("mcp server %q keeps crashing", s.name)
}

// live returns a running session: the current one, or a restart when the
// current one died and the server has its restart left.
func (s *server) live(ctx context.Context) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disabled != nil {
		return nil, s.disabled
	}
	if s.sess != nil && !s.sess.dead() {
		return s.sess, nil
	}
	if s.sess != nil {
		old := s.sess
		s.sess = nil
		old.close()
		tail := old.stderr.suffix()
		if s.restarted {
			s.disabled = fmt.Errorf("MCP server %q crashed twice; disabled for this session%s", s.name, tail)
			s.log.Warn("mcp server disabled after a second crash")
			return nil, s.disabled
		}
		s.restarted = true
		s.log.Warn("mcp server crashed; restarting it once", zap.String("stderr", old.stderr.String()))
	}
	cctx, cancel := s.m.connectContext(ctx)
	defer cancel()
	sess, err := s.start(cctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		s.disabled = fmt.Errorf("MCP server %q crashed and did not restart; disabled for this session: %w", s.name, err)
		return nil, s.disabled
	}
	s.sess = sess
	return sess, nil
}

// shutdown stops the server for good.
func (s *server) shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disabled = errClosed
	if s.sess != nil {
		s.sess.close()
		s.sess = nil
	}
}

// start connects a new session. Called with s.mu held.
func (s *server) start(ctx context.Context) (*session, error) {
	if s.m.isClosed() {
		return nil, errClosed
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agentls", Version: version()}, nil)
	if root := s.m.opts.Root; root != "" {
		//lint:ignore SA1019 roots still work within the deprecation window, and servers that predate it read them
		client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: root}).String(), Name: "workspace"})
	}
	if s.cfg.URL != "" {
		return s.startURL(ctx, client)
	}
	return s.startCommand(ctx, client)
}

func (s *server) startCommand(ctx context.Context, client *sdk.Client) (*session, error) {
	// Through the process package: its own session (no terminal to prompt
	// on, one tree to kill, so helpers it spawns — npx → node — die with
	// it), the sandbox, and an inherited environment without credentials.
	sb := s.m.opts.Sandbox
	if s.cfg.Sandbox != nil && !*s.cfg.Sandbox && sb.Mode != proc.ModeOff {
		sb.Mode = proc.ModeOff
		s.m.warn(fmt.Sprintf("MCP server %q runs outside the sandbox: its \"sandbox\" setting is false", s.name))
	}
	cmd, err := proc.Command(context.Background(), proc.Spec{
		Argv:    append([]string{s.cfg.Command}, s.cfg.Args...),
		Dir:     s.m.opts.Root,
		Env:     serverEnv(s.m.opts.Env, nil),
		Secrets: s.m.opts.Secrets,
		Sandbox: sb,
	})
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: %w", s.name, err)
	}
	// The server's own env setting is the user's: it may name a token the
	// server needs, so it is added after the inherited environment was
	// cleaned.
	cmd.Env = append(cmd.Env, serverEnv([]string{}, s.cfg.Env)...)
	stderr := newTail(s.log)
	cmd.Stderr = stderr
	t := &trackedTransport{Transport: &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}}
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		// Connect may fail after the process started; closing the
		// connection reaps it (the SDK's Close is idempotent).
		if t.conn != nil {
			_ = t.conn.Close()
		}
		killGroup(cmd)
		return nil, fmt.Errorf("mcp server %q: start %s: %w%s", s.name, s.cfg.Command, err, stderr.suffix())
	}
	return s.m.watch(cs, cmd, stderr), nil
}

func (s *server) startURL(ctx context.Context, client *sdk.Client) (*session, error) {
	// The SSE transport keeps the context of Connect for its event stream,
	// so the connection gets one that outlives ctx; ctx only bounds the
	// handshake.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	cs, err := client.Connect(life, &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, DisableStandaloneSSE: true}, nil)
	if err != nil && ctx.Err() == nil {
		// Servers that predate streamable HTTP speak the 2024-11-05 SSE
		// transport on the same URL.
		var sseErr error
		if cs, sseErr = client.Connect(life, &sdk.SSEClientTransport{Endpoint: s.cfg.URL}, nil); sseErr == nil {
			err = nil
		} else {
			err = fmt.Errorf("%w (SSE fallback: %v)", err, sseErr)
		}
	}
	if !stop() && err == nil { // ctx ended as Connect returned: life is cancelled
		_ = cs.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("mcp server %q: connect %s: %w", s.name, s.cfg.URL, err)
	}
	sess := s.m.watch(cs, nil, nil)
	sess.cancel = cancel
	return sess, nil
}

// trackedTransport remembers the connection its transport made, so a
// Connect that fails after starting the process can still be cleaned up.
type trackedTransport struct {
	sdk.Transport
	conn sdk.Connection
}

func (t *trackedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	t.conn = c
	return c, err
}

// session is one connection to a server: one process for stdio servers.
type session struct {
	cs     *sdk.ClientSession
	cmd    *exec.Cmd // nil for URL servers
	stderr *tail     // nil-safe
	cancel func()    // ends what the connection keeps running; may be nil
	done   chan struct{}
}

// watch wraps cs in a session whose done channel closes when the
// connection ends, for whatever reason.
func (m *Manager) watch(cs *sdk.ClientSession, cmd *exec.Cmd, stderr *tail) *session {
	sess := &session{cs: cs, cmd: cmd, stderr: stderr, done: make(chan struct{})}
	m.wg.Go(func() {
		_ = cs.Wait()
		close(sess.done)
	})
	return sess
}

func (s *session) dead() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *session) diedWithin(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

// close ends the session: stdin closed and a grace period (inside the SDK),
// then the whole process group killed.
func (s *session) close() {
	_ = s.cs.Close()
	if s.cancel != nil {
		s.cancel()
	}
	if s.cmd != nil {
		killGroup(s.cmd)
	}
}

func killGroup(cmd *exec.Cmd) { proc.KillTree(cmd) }

// isProtocolError reports whether the server answered with a JSON-RPC
// error (unknown tool, bad arguments): the session is fine.
func isProtocolError(err error) bool {
	var werr *jsonrpc.Error
	return errors.As(err, &werr)
}

// serverEnv is base (or this process's environment) without agentls' own
// API keys, with the server's env setting on top.
func serverEnv(base []string, extra map[string]string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := extra[name]; over || name == "AGENTLS_API_KEY" || name == "OPENAI_API_KEY" {
			continue
		}
		env = append(env, kv)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
