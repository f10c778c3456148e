package lsp

import (
	"context"
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

// Server is one LSP connection: protocol glue that decodes a message,
// calls the feature it is for and encodes the answer. The features are
// types holding exactly their collaborators, never the Server, each with
// its own narrow lock: the client and its files (ed), the open documents
// (docs), the configuration (conf) and its trust, the tasks, what is
// published (diags), the asking, review, worktrees, delegated jobs and
// the running of a task. mu guards only the connection's own state below.
// No lock is ever held across a request to the client.
type Server struct {
	guard // the panic barrier (guard.go)
	opts  Options
	log   *zap.Logger
	ed    *editor // the client, its capabilities and its files (editor.go)
	hooks testHooks
	// stateDir holds sessions, transcripts, reviews, worktrees and the
	// trust store (stateDirOf).
	stateDir string

	docs  *openDocs
	tasks *taskManager
	diags *diagnostics
	conf  *configState
	trust *trust             // the workspace's settings held back until trusted (trust.go)
	mcp   assemble.SharedMCP // the MCP servers of mcpServers, shared by the tasks

	asker     *asker     // asks the user (approve.go)
	reviewer  *reviewer  // review mode, undo, rewind (review.go)
	worktrees *worktrees // worktree tasks (worktrees.go)
	jobs      *jobs      // delegated jobs (delegate.go)
	runner    *runner    // runs the tasks (run.go)
	about     *about     // models, info, project commands (models.go)

	mu          sync.Mutex
	initialized bool
	shutdown    bool
	exited      chan struct{}
	exitOK      bool
}

// clientCaps are the client capabilities agentls acts on.
type clientCaps struct {
	workDoneProgress  bool
	applyEdit         bool
	documentChanges   bool
	createFiles       bool
	deleteFiles       bool
	renameFiles       bool
	changeAnnotations bool
	showDocument      bool
	showMessageReq    bool
	// questionTaskID: the client declared experimental.agentls.questionTaskId
	// and takes a taskId member in window/showMessageRequest (Eglot 1.9
	// refuses a request with a member it does not know).
	questionTaskID bool
}

// Serve runs the server on rwc (stdin/stdout) until the client exits or the
// stream closes. It returns the process exit code: 0 after shutdown then
// exit, 1 otherwise, as the LSP specification asks.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	s := newServer(opts)
	s.ed.conn = jsonrpc2.NewConn(newTolerantStream(jsonrpc2.NewHeaderStream(rwc), s.log), jsonrpc2.WithCodec(Codec{}))
	s.ed.client = protocol.ClientDispatcher(s.ed.conn)
	handler, canceller := jsonrpc2.CancelHandler(s.handle)
	s.ed.conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == protocol.MethodCancelRequest {
			s.cancelRequest(req, canceller)
			return nil, nil
		}
		return handler(ctx, req)
	})
	select {
	case <-s.exited:
	case <-s.ed.conn.Done():
		if err := s.ed.conn.Err(); err != nil {
			s.log.Warn("connection ended", zap.Error(err))
		}
	case <-ctx.Done():
	}
	s.tasks.cancelAll()
	s.tasks.waitAll()
	s.mcp.Close()
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
		guard:    guard{log: opts.Logger},
		opts:     opts,
		log:      opts.Logger,
		docs:     newOpenDocs(),
		exited:   make(chan struct{}),
		hooks:    readTestHooks(opts.Getenv),
		stateDir: stateDirOf(opts),
	}
	s.ed = &editor{log: s.log, docs: s.docs, enc: edits.UTF16}
	s.asker = &asker{ed: s.ed}
	s.diags = newDiagnostics(s.ed, s.docs)
	s.trust = &trust{ed: s.ed, log: s.log, stateDir: s.stateDir}
	s.conf = &configState{reported: map[string]bool{}, ed: s.ed, trust: s.trust, getenv: opts.Getenv, log: s.log,
		stateDir: s.stateDir}
	s.ed.disagree = s.conf.sayDisagree
	s.runner = &runner{guard: s.guard, ed: s.ed, docs: s.docs, diags: s.diags, conf: s.conf, trust: s.trust, asker: s.asker,
		mcp: &s.mcp, newLLM: opts.NewLLM, log: s.log, hooks: s.hooks}
	s.tasks = newTaskManager(s.guard, s.conf.config, s.runner.announceEnd, s.ed.rootDir)
	s.about = &about{conf: s.conf, ed: s.ed, version: opts.Version}
	s.reviewer = &reviewer{guard: s.guard, ed: s.ed, docs: s.docs, tasks: s.tasks, diags: s.diags, asker: s.asker,
		conf: s.conf, log: s.log, hooks: s.hooks, stateDir: s.stateDir}
	s.worktrees = &worktrees{ed: s.ed, docs: s.docs, tasks: s.tasks, reviewer: s.reviewer, conf: s.conf, log: s.log,
		stateDir: s.stateDir, start: s.runner.startRun}
	s.runner.tasks, s.runner.reviewer, s.runner.worktrees = s.tasks, s.reviewer, s.worktrees
	s.jobs = &jobs{guard: s.guard, ed: s.ed, conf: s.conf, log: s.log, stateDir: s.stateDir, exited: s.exited}
	s.mcp.Log = s.log
	conf := s.conf
	s.mcp.Warn = func(msg string) { conf.warnOnce(context.Background(), "agentls: "+msg) }
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
		return nil, s.didChange(ctx, &p)
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.docs.close(string(p.TextDocument.URI))
		s.reviewer.touched(ctx, string(p.TextDocument.URI))
	case protocol.MethodTextDocumentDidSave:
		// The buffer is unchanged by a save; nothing to do.
	case protocol.MethodWorkspaceDidChangeConfiguration:
		var p protocol.DidChangeConfigurationParams
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		s.conf.configure(ctx, agentlsSettings(p.Settings))
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
