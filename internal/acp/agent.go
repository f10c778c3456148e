package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/mcp"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/policy/approval"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
)

// Options configure Serve.
type Options struct {
	Log     *zap.Logger // [nop]
	Version string
	// NewLLM builds the model backend [assemble.DefaultLLM].
	NewLLM func(config.Config) agent.LLM
	// Settings are the user's own settings (JSON, as an editor's
	// initializationOptions); nil: the workspace file and environment only.
	Settings []byte
}

// Serve runs agentls as an ACP agent on in/out (newline-delimited JSON-RPC)
// until the client closes its end or ctx ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	w := newWire(out)
	a := &Agent{opts: o, log: o.Log, sessions: map[string]*acpSession{}, wire: w, roots: map[string]bool{}, modelLists: map[string][]string{}}
	if wd, err := os.Getwd(); err == nil {
		a.roots[wd] = true
	}
	// Nothing is read before a.conn is set: the handlers and the wire's
	// callbacks use it (the race detector saw a session announced before).
	ready := make(chan struct{})
	conn := sdk.NewAgentSideConnection(a, w, screen(gated{in, ready}, w, o.Log, w, a.onWire))
	conn.SetLogger(slog.New(slog.NewTextHandler(zap.NewStdLog(o.Log).Writer(), nil)))
	a.conn = conn
	close(ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	// A signal, or the client gone: the running prompts are cancelled and
	// waited for, so each answers "cancelled" while the output is still
	// open and saves its session, as lsp.Serve does for its tasks.
	a.shutdown()
	w.drain(5 * time.Second)
	return nil
}

// gated holds reads of r until ready is closed.
type gated struct {
	r     io.Reader
	ready <-chan struct{}
}

func (g gated) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}

// Agent is agentls's side of one ACP connection.
type Agent struct {
	opts Options
	log  *zap.Logger
	conn *sdk.AgentSideConnection
	wire *wire

	mu      sync.Mutex
	fsRead  bool // the client offers fs/read_text_file
	fsWrite bool // and fs/write_text_file
	// elicitForm: the client takes elicitation/create in form mode, so
	// agentls's own questions are forms (ask.go).
	elicitForm bool
	sessions   map[string]*acpSession
	// roots are the workspaces this connection has seen (its working
	// directory and every session's), where session/list without a cwd
	// and session/delete look.
	roots map[string]bool
	// modelLists are the endpoints' model lists, by base URL.
	modelLists map[string][]string
	// slots: each workspace's files with a change in flight, shared by
	// the sessions' write paths (files.go).
	slots map[string]*apply.Slots
	// closing: the connection is ending; no prompt starts any more.
	closing bool
	// running counts the prompts and other work the connection's end waits
	// for (a prompt adds itself under mu, unless closing).
	running sync.WaitGroup
}

// acpSession is one ACP session: a workspace, its configuration and an
// agentls session of the same ID in the workspace's store.
type acpSession struct {
	id      string
	root    string
	cfg     config.Config
	store   *session.Store // nil: in memory
	mcp     *mcp.Manager
	allowed approval.Allowed
	// untrusted is the workspace's .agentls.json while settings in it that
	// widen power are held back; the first prompt asks about it.
	untrusted *assemble.WorkspaceSettings
	// clientServers are the MCP servers the client gave session/new.
	clientServers []sdk.McpServer
	// until is the stop condition /until set for the session's tasks ("":
	// none); guarded by mu.
	until string

	// turn is the session's turn: a prompt holds its one slot while it
	// runs. It is a channel, not a mutex, so that a prompt waiting for the
	// one before it gives up when cancelled, and no lock is held across the
	// requests a turn makes to the client (session/request_permission,
	// fs/*).
	turn chan struct{}

	mu   sync.Mutex
	mode string // modeAsk or modeApply
	// closed: session/close (or the connection's end) closed the MCP
	// servers; a trust answer arriving later must not start new ones, and
	// no prompt runs in the session any more.
	closed bool
	// cancel ends the running prompt (nil: none runs).
	cancel context.CancelFunc
	// The config options: the model and reasoning effort chosen ("": the
	// configured one) and the models offered.
	model, effort string
	modelList     []string
	// last is the workspace of the last prompt that changed files, for
	// /verify and /undo.
	last *clientWorkspace
	// title names the session (its first prompt); cost is what its tasks
	// on this connection cost so far, in USD.
	title string
	cost  float64
	// extraDirs are the session's additionalDirectories: files in them may
	// be attached by a link in a prompt (read-only; the tools stay in root).
	extraDirs []string
}

// setMCP replaces the session's MCP servers, closing the old ones; after
// the session was closed it closes the new ones instead. The running
// prompt swaps them (trust) while session/close may close them: s.mu
// orders the two.
func (s *acpSession) setMCP(m *mcp.Manager) {
	s.mu.Lock()
	old := s.mcp
	if s.closed {
		old, m = m, nil
	}
	s.mcp = m
	s.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
}

// closeMCP closes the session's MCP servers for good.
func (s *acpSession) closeMCP() {
	s.mu.Lock()
	old := s.mcp
	s.mcp, s.closed = nil, true
	s.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
}

// mcpServers is the session's MCP manager now.
func (s *acpSession) mcpServers() *mcp.Manager {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mcp
}

// Session modes: review on (every edit is asked about first) or off.
const (
	modeAsk   = "ask"
	modeApply = "apply"
)

var _ sdk.Agent = (*Agent)(nil)
var _ sdk.AgentLoader = (*Agent)(nil)

// shutdown ends the connection's work: every running prompt is cancelled
// and waited for, then the sessions' MCP servers close.
func (a *Agent) shutdown() {
	a.mu.Lock()
	a.closing = true
	sessions := make([]*acpSession, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		s.closed = true // a prompt waiting for its turn answers "cancelled"
		s.mu.Unlock()
		s.cancelRunning()
	}
	a.running.Wait()
	for _, s := range sessions {
		s.closeMCP()
	}
}

// begin counts a piece of work the connection's end must wait for; false:
// the connection is ending and the work must not start.
func (a *Agent) begin() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closing {
		return false
	}
	a.running.Add(1)
	return true
}

// cancelRunning cancels the session's running prompt, if any.
func (s *acpSession) cancelRunning() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// close ends the session: no prompt starts in it any more, the running one
// is cancelled and waited for (its turn slot comes free when it has
// answered), and its MCP servers close.
func (s *acpSession) close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancelRunning()
	select {
	case s.turn <- struct{}{}:
		<-s.turn
	case <-ctx.Done():
		return ctx.Err()
	}
	s.closeMCP()
	return nil
}

// Initialize implements sdk.Agent.
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.fsRead, a.fsWrite = p.ClientCapabilities.Fs.ReadTextFile, p.ClientCapabilities.Fs.WriteTextFile
	a.elicitForm = p.ClientCapabilities.Elicitation != nil && p.ClientCapabilities.Elicitation.Form != nil
	a.mu.Unlock()
	v := a.opts.Version
	if v == "" {
		v = "dev"
	}
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "agentls", Version: v},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession: true,
			// Advertised, or a conforming client never calls them;
			// session/delete is added on the wire (onWire).
			SessionCapabilities: sdk.SessionCapabilities{
				List: &sdk.SessionListCapabilities{}, Resume: &sdk.SessionResumeCapabilities{}, Close: &sdk.SessionCloseCapabilities{},
				Fork: &sdk.SessionForkCapabilities{},
				// Files in them can be attached by a link; the tools
				// stay in cwd.
				AdditionalDirectories: &sdk.SessionAdditionalDirectoriesCapabilities{},
			},
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: a.imagesAdvertised()},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
		},
		// No auth method and no logout (agentCapabilities.auth): agentls
		// holds no credential of its own to sign in or out of. The model's
		// key is read from the environment or the settings at each
		// session, and the user changes it there.
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate implements sdk.Agent: agentls needs none (the model's key
// comes from the configuration).
func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession implements sdk.Agent.
func (a *Agent) NewSession(_ context.Context, p sdk.NewSessionRequest) (_ sdk.NewSessionResponse, err error) {
	defer barrier(a.log, "session/new", &err)
	s, err := a.openSession(p.Cwd, p.McpServers, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := s.setExtraDirs(p.AdditionalDirectories); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.id), Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

// openSession sets a session up in cwd; id "" is a new session.
func (a *Agent) openSession(cwd string, servers []sdk.McpServer, id string) (*acpSession, error) {
	if !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, got %q", cwd)})
	}
	disk, err := tools.NewDiskWorkspace(cwd)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	root := disk.Root()
	s := &acpSession{id: id, root: root, mode: modeApply, clientServers: servers, turn: make(chan struct{}, 1)}
	cfg := a.loadConfig(s)
	cfg.MCPServers = mergeMCP(cfg.MCPServers, servers)
	s.cfg = cfg
	if cfg.Agent.Review {
		s.mode = modeAsk
	}
	s.model, s.modelList = cfg.LLM.Model, a.models(cfg)
	st, err := session.Open(root, session.Options{Memory: cfg.Agent.Memory, Redact: cfg.Redact,
		Warn: func(msg string) { a.log.Warn(msg) }})
	if err != nil {
		a.log.Warn("sessions are not saved", zap.Error(err))
	} else {
		s.store = st
	}
	switch {
	case id != "": // a stored session, loaded or resumed
	case st != nil:
		s.id = st.NewID()
		// On file from the start, so that a client can resume it in
		// another process before its first prompt.
		if err := st.Create(s.id); err != nil {
			a.log.Warn("the session is not on file until its first prompt", zap.Error(err))
		}
	default:
		s.id = newID()
	}
	s.mcp = assemble.MCPManager(cfg, root, a.log, func(msg string) { a.log.Warn(msg) })
	a.mu.Lock()
	old := a.sessions[s.id]
	a.sessions[s.id] = s
	a.roots[root] = true
	if old != nil && !a.closing {
		// Loaded again: the old session's prompt ends and its MCP servers
		// close, on a goroutine the connection's end waits for.
		a.running.Add(1)
		go func() {
			defer a.running.Done()
			defer recoverLog(a.log, "closing a replaced session")
			_ = old.close(context.Background())
		}()
	}
	a.mu.Unlock()
	return s, nil
}

// mergeMCP adds the client's MCP servers to the configured ones; a client
// server of the same name wins, as it is what the user set up in the
// editor for this session.
func mergeMCP(ours map[string]config.MCPServer, theirs []sdk.McpServer) map[string]config.MCPServer {
	if len(theirs) == 0 {
		return ours
	}
	out := map[string]config.MCPServer{}
	for k, v := range ours {
		out[k] = v
	}
	for _, s := range theirs {
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, e := range s.Stdio.Env {
				env[e.Name] = e.Value
			}
			out[s.Stdio.Name] = config.MCPServer{Command: s.Stdio.Command, Args: s.Stdio.Args, Env: env}
		case s.Http != nil:
			out[s.Http.Name] = config.MCPServer{URL: s.Http.Url}
		}
	}
	return out
}

func (s *acpSession) modes() *sdk.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	ask, apply := "Each edit is shown as a diff and asked about before it is written (review on)", "Edits are written as the agent makes them (review off)"
	return &sdk.SessionModeState{
		CurrentModeId: sdk.SessionModeId(s.mode),
		AvailableModes: []sdk.SessionMode{
			{Id: modeAsk, Name: "Ask before edits", Description: &ask},
			{Id: modeApply, Name: "Apply edits", Description: &apply},
		},
	}
}

func (a *Agent) session(id sdk.SessionId) (*acpSession, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q on this connection (session/new or session/load first)", id)})
	}
	return s, nil
}

// SetSessionMode implements sdk.Agent.
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if p.ModeId != modeAsk && p.ModeId != modeApply {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q (ask, apply)", p.ModeId)})
	}
	if _, err := s.setOption(optMode, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	a.optionsChanged(s, false) // the review option's picker follows
	return sdk.SetSessionModeResponse{}, nil
}

// Cancel implements sdk.Agent. The connection has already cancelled the
// running prompt's context; the driver ends the task and the prompt answers
// "cancelled".
func (a *Agent) Cancel(context.Context, sdk.CancelNotification) error { return nil }

// CloseSession implements sdk.Agent: the session's running prompt is
// cancelled and has answered before the close does (ACP v1: "session/close
// cancels any ongoing work").
func (a *Agent) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (_ sdk.CloseSessionResponse, err error) {
	defer barrier(a.log, "session/close", &err)
	a.mu.Lock()
	s := a.sessions[string(p.SessionId)]
	delete(a.sessions, string(p.SessionId))
	a.mu.Unlock()
	if s != nil {
		if err := s.close(ctx); err != nil {
			return sdk.CloseSessionResponse{}, err
		}
	}
	return sdk.CloseSessionResponse{}, nil
}

// ResumeSession implements sdk.Agent: like session/load, without the replay.
func (a *Agent) ResumeSession(_ context.Context, p sdk.ResumeSessionRequest) (_ sdk.ResumeSessionResponse, err error) {
	defer barrier(a.log, "session/resume", &err)
	s, err := a.loadStored(p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	if err := s.setExtraDirs(p.AdditionalDirectories); err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	return sdk.ResumeSessionResponse{Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

func recoverLog(log *zap.Logger, what string) {
	if p := recover(); p != nil {
		log.Error("panic", zap.String("in", what), zap.Any("panic", p), zap.Stack("stack"))
	}
}

// barrier is the panic barrier of a method the SDK calls on a goroutine of
// its own (a goroutine per request, one for the notifications): the panic
// is logged and answered as an internal error, and the connection goes on
// serving. Without it a panic in a prompt, or in the language server's
// workspace under a bridge, ends the whole process.
func barrier(log *zap.Logger, method string, err *error) {
	if p := recover(); p != nil {
		log.Error("panic", zap.String("in", method), zap.Any("panic", p), zap.Stack("stack"))
		*err = sdk.NewInternalError(map[string]any{"error": fmt.Sprintf("internal error in %s: %v", method, p)})
	}
}

// loadConfig resolves a session's settings: the client's (--settings),
// the workspace's .agentls.json with what widens power held back until the
// user trusts it (the session's first prompt asks), the environment.
func (a *Agent) loadConfig(s *acpSession) config.Config {
	editor, probs := config.FromJSON("client settings", a.opts.Settings)
	ws := assemble.ReadWorkspaceSettings(s.root, trustStore())
	if len(ws.Untrusted) > 0 {
		s.untrusted = &ws
		a.log.Warn("workspace settings held back until trusted", zap.Strings("keys", ws.Untrusted))
	} else {
		s.untrusted = nil
	}
	cfg, p2 := config.Resolve(editor, ws.Source, config.FromEnv(os.Getenv))
	for _, pr := range append(append(probs, ws.Problems...), p2...) {
		a.log.Warn(pr.String())
	}
	return cfg
}

// trustStore is the store of trusted workspace files, in the state
// directory; nil (nothing trusted) when there is none.
func trustStore() *policy.TrustStore {
	dir, err := session.StateDir()
	if err != nil {
		return nil
	}
	return assemble.TrustStore(dir)
}

// setExtraDirs takes a session's additionalDirectories: absolute paths of
// directories, kept with their links resolved.
func (s *acpSession) setExtraDirs(dirs []string) error {
	var out []string
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("additionalDirectories: %q is not an absolute path", d)})
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("additionalDirectories: %v", err)})
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("additionalDirectories: %s is not a directory", d)})
		}
		out = append(out, real)
	}
	s.mu.Lock()
	s.extraDirs = out
	s.mu.Unlock()
	return nil
}
