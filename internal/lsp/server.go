package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/mcp"
)

// Options configure a Server.
type Options struct {
	Logger  *zap.Logger
	Version string
	// Root is the workspace when the client names none (its cwd).
	Root string
	// Getenv reads the environment (tests substitute it).
	Getenv func(string) string
	// StateDir holds sessions, transcripts and review documents
	// ($XDG_STATE_HOME/agentls by default).
	StateDir string
	// NewLLM builds the model backend for a configuration; nil: OpenAI.
	NewLLM func(config.Config) agent.LLM
}

// Server is one LSP connection's state.
type Server struct {
	opts   Options
	log    *zap.Logger
	conn   jsonrpc2.Conn
	client protocol.Client

	docs  *overlay
	tasks *taskManager
	diags *diagnostics

	mu          sync.Mutex
	initialized bool
	shutdown    bool
	root        string
	enc         edits.Encoding
	caps        clientCaps
	initOpts    []byte // initializationOptions (agentls settings), raw
	settings    []byte // the latest workspace/didChangeConfiguration, raw
	cfg         config.Config
	reported    map[string]bool  // configuration problems already shown
	saidDisk    bool             // told the user we write to disk ourselves
	allowed     assemble.Allowed // commands the user allowed always, this session
	mirror      bool             // echo command results and errors as messages (Helix drops them)
	reviewMu    sync.Mutex       // serializes accept, reject, undo and their diagnostics
	mcp         *mcp.Manager     // MCP servers of mcpServers, started lazily
	mcpKey      string           // the mcpServers setting mcp was made from

	trustMu    sync.Mutex
	untrusted  *assemble.WorkspaceSettings // .agentls.json held back until trusted
	trustAsked map[string]bool             // contents already asked about

	exited chan struct{}
	exitOK bool
}

// clientCaps are the client capabilities agentls acts on.
type clientCaps struct {
	workDoneProgress  bool
	applyEdit         bool
	documentChanges   bool
	createFiles       bool
	deleteFiles       bool
	changeAnnotations bool
	showDocument      bool
	showMessageReq    bool
}

// Serve runs the server on rwc (stdin/stdout) until the client exits or the
// stream closes. It returns the process exit code: 0 after shutdown then
// exit, 1 otherwise, as the LSP specification asks.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	s := newServer(opts)
	s.conn = jsonrpc2.NewConn(newTolerantStream(jsonrpc2.NewHeaderStream(rwc), s.log), jsonrpc2.WithCodec(Codec{}))
	s.client = protocol.ClientDispatcher(s.conn)
	handler, canceller := jsonrpc2.CancelHandler(s.handle)
	s.conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == protocol.MethodCancelRequest {
			s.cancelRequest(req, canceller)
			return nil, nil
		}
		return handler(ctx, req)
	})
	select {
	case <-s.exited:
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil {
			s.log.Warn("connection ended", zap.Error(err))
		}
	case <-ctx.Done():
	}
	s.tasks.cancelAll()
	s.tasks.waitAll()
	s.closeMCP()
	_ = rwc.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exitOK {
		return 0
	}
	return 1
}

func newServer(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Root == "" {
		opts.Root, _ = os.Getwd()
	}
	s := &Server{
		opts:     opts,
		log:      opts.Logger,
		docs:     newOverlay(),
		diags:    newDiagnostics(),
		reported: map[string]bool{},
		exited:   make(chan struct{}),
		enc:      edits.UTF16,
	}
	s.tasks = newTaskManager(s)
	return s
}

// cancelRequest handles $/cancelRequest on the read loop, ahead of the
// request it names. A malformed one is logged, never fatal.
func (s *Server) cancelRequest(req *jsonrpc2.Request, canceller func(jsonrpc2.ID)) {
	var p protocol.CancelParams
	if err := protocol.Unmarshal(req.Params(), &p); err != nil {
		s.log.Warn("bad $/cancelRequest", zap.Error(err))
		return
	}
	switch id := p.ID.(type) {
	case protocol.Integer:
		canceller(jsonrpc2.NewNumberID(int64(id)))
	case protocol.String:
		canceller(jsonrpc2.NewStringID(string(id)))
	}
}

// inline methods run on the read loop, in wire order: text sync must apply
// in the order the client sent it. They do no I/O that waits on the client.
var inline = map[string]bool{
	protocol.MethodTextDocumentDidOpen:             true,
	protocol.MethodTextDocumentDidChange:           true,
	protocol.MethodTextDocumentDidClose:            true,
	protocol.MethodTextDocumentDidSave:             true,
	protocol.MethodInitialized:                     true,
	protocol.MethodExit:                            true,
	protocol.MethodWorkspaceDidChangeConfiguration: true,
	protocol.MethodSetTrace:                        true,
}

// handle is the one entry point for incoming messages. Everything that may
// call back into the client runs released from the read loop (Async), or
// the reply it waits for could never be read. A panic becomes an error
// reply; a notification's error is logged, because jsonrpc2 would
// otherwise close the connection over it.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
	method := strings.Clone(req.Method())
	isCall := req.IsCall()
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panicked", zap.String("method", method), zap.Any("panic", p), zap.Stack("stack"))
			res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls: internal error in %s: %v", method, p)
		}
		if err != nil {
			s.log.Info("request failed", zap.String("method", method), zap.Error(err))
		}
		if !isCall {
			res, err = nil, nil
		}
	}()
	if !inline[method] {
		jsonrpc2.Async(ctx)
	}

	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	switch {
	case method == protocol.MethodInitialize:
		if initialized {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize sent twice")
		}
	case method == protocol.MethodExit:
		s.exit()
		return nil, nil
	case !initialized:
		if isCall {
			return nil, jsonrpc2.NewError(-32002, "server not initialized")
		}
		return nil, nil
	case shutdown:
		if isCall {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is shutting down")
		}
		return nil, nil
	}

	params := req.Params()
	switch method {
	case protocol.MethodInitialize:
		var p protocol.InitializeParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.initialize(ctx, &p)
	case protocol.MethodInitialized:
	case protocol.MethodShutdown:
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		s.tasks.cancelAll()
		return nil, nil
	case protocol.MethodTextDocumentDidOpen:
		var p protocol.DidOpenTextDocumentParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.docs.open(string(p.TextDocument.URI), p.TextDocument.Version, p.TextDocument.Text)
	case protocol.MethodTextDocumentDidChange:
		var p protocol.DidChangeTextDocumentParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return nil, s.docs.change(string(p.TextDocument.URI), p.TextDocument.Version, p.ContentChanges, s.encoding())
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.docs.close(string(p.TextDocument.URI))
	case protocol.MethodTextDocumentDidSave:
		// The buffer is unchanged by a save; nothing to do.
	case protocol.MethodWorkspaceDidChangeConfiguration:
		var p protocol.DidChangeConfigurationParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.configure(ctx, agentlsSettings(p.Settings))
	case protocol.MethodWorkspaceExecuteCommand:
		var p protocol.ExecuteCommandParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.executeCommand(ctx, &p)
	case protocol.MethodTextDocumentCodeAction:
		var p protocol.CodeActionParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return s.codeAction(ctx, &p)
	case protocol.MethodWindowWorkDoneProgressCancel:
		var p protocol.WorkDoneProgressCancelParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.tasks.cancelToken(p.Token)
	case protocol.MethodSetTrace:
	default:
		if isCall {
			return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "agentls does not handle %q", method)
		}
	}
	return nil, nil
}

func decode(params jsonrpc2.RawMessage, v any) error {
	if len(params) == 0 {
		params = jsonrpc2.RawMessage("{}")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

func (s *Server) exit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
	default:
		s.exitOK = s.shutdown
		close(s.exited)
	}
}

func (s *Server) encoding() edits.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

func (s *Server) config() config.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
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

// configure re-resolves the configuration and reports each new problem
// once, naming its key. Settings from workspace/didChangeConfiguration win
// over initializationOptions key by key, so a client that sends an empty
// settings object (eglot does, right after initialized) loses nothing.
func (s *Server) configure(ctx context.Context, settings []byte) {
	s.mu.Lock()
	if settings != nil {
		s.settings = settings
	}
	root := s.root
	changed, p1 := config.FromJSON("editor settings", s.settings)
	initial, p0 := config.FromJSON("editor settings", s.initOpts)
	file, p2 := s.workspaceSettings(root)
	cfg, p3 := config.Resolve(changed, initial, file, config.FromEnv(s.opts.Getenv))
	s.cfg = cfg
	var fresh []string
	for _, p := range append(append(append(p0, p1...), p2...), p3...) {
		msg := p.String()
		if !s.reported[msg] {
			s.reported[msg] = true
			fresh = append(fresh, msg)
		}
	}
	s.mu.Unlock()
	for _, m := range fresh {
		s.log.Warn("configuration problem", zap.String("problem", m))
		s.notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: m})
	}
}

// notify sends a notification, never failing the caller: a closed
// connection just means nobody is listening any more.
func (s *Server) notify(ctx context.Context, method string, params any) {
	if err := s.conn.Notify(context.WithoutCancel(ctx), method, params); err != nil {
		s.log.Debug("notify failed", zap.String("method", method), zap.Error(err))
	}
}

func (s *Server) showMessage(ctx context.Context, typ protocol.MessageType, format string, args ...any) {
	s.notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: fmt.Sprintf(format, args...)})
}

// recoverGo is the panic barrier of a goroutine the server starts for
// housekeeping: the panic and its stack go to the log, and the server keeps
// serving. Deferred first thing in the goroutine.
func (s *Server) recoverGo(what string) {
	if p := recover(); p != nil {
		s.log.Error("goroutine panicked", zap.String("in", what), zap.Any("panic", p), zap.Stack("stack"))
	}
}
