// Package lspclient drives the real agentls binary over stdio the way an editor
// does. Editor is a small but real LSP client: it keeps its own buffers,
// applies the server's workspace/applyEdit with version checks, and sends
// the resulting didChange back, like VS Code or Neovim. The end-to-end tests
// and `make demo` both use it.
package lspclient

// This file is over 400 lines because it is a whole LSP client (buffers,
// applyEdit with version checks, progress, every server-to-client method)
// that the tests and the demo share.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/lsp"
)

// Caps selects the client capabilities an Editor announces.
type Caps struct {
	Name             string
	WorkDoneProgress bool
	ApplyEdit        bool
	DocumentChanges  bool
	CreateFiles      bool
	// FileOps announces the delete and rename resource operations, which
	// the Editor applies on disk (closing or moving the buffer).
	FileOps           bool
	ChangeAnnotations bool
	ShowDocument      bool
	ShowMessageReq    bool
	Encodings         []protocol.PositionEncodingKind // offered, in preference order
}

// VSCodeCaps is a client with every capability agentls uses.
func VSCodeCaps() Caps {
	return Caps{Name: "vscode-like", WorkDoneProgress: true, ApplyEdit: true, DocumentChanges: true, CreateFiles: true,
		ChangeAnnotations: true, ShowDocument: true, ShowMessageReq: true,
		Encodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}}
}

// HelixCaps is what Helix 25.07 announces: no change annotations, no
// showDocument, no showMessageRequest; utf-8 positions offered.
func HelixCaps() Caps {
	return Caps{Name: "helix", WorkDoneProgress: true, ApplyEdit: true, DocumentChanges: true, CreateFiles: true,
		Encodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF32, protocol.PositionEncodingKindUTF16}}
}

// Notification is one message the server sent without expecting a reply.
type Notification struct {
	Method string
	Params json.RawMessage
	At     time.Time
}

// Editor is a running agentls process and the client connected to it.
type Editor struct {
	Root string
	Caps Caps
	Cmd  *exec.Cmd
	Conn jsonrpc2.Conn
	// Server is the typed dispatcher for client → server requests.
	Server protocol.Server
	Enc    edits.Encoding

	// OnApplyEdit, when set, decides each workspace/applyEdit before the
	// editor applies it: return false and a reason to reject it.
	OnApplyEdit func(p *protocol.ApplyWorkspaceEditParams) (bool, string)
	// OnShowMessageRequest answers window/showMessageRequest; nil picks
	// the first action.
	OnShowMessageRequest func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem
	// HoldApplyEdit, when it returns true for an edit, leaves that
	// workspace/applyEdit unanswered until the editor closes, like a user
	// who never closes VS Code's refactor preview, or until ReleaseHeld
	// lets the held edits apply.
	HoldApplyEdit func(p *protocol.ApplyWorkspaceEditParams) bool
	// OneChangePerEdit sends one didChange per text edit of an applied
	// edit, each a version further, as Neovim 0.10 does.
	OneChangePerEdit bool
	// SilentApply applies edits to the buffers without sending didChange,
	// as Eglot 1.9 can after eglot-confirm-server-edits.
	SilentApply bool
	// AfterApply, when set, rewrites a buffer's text right after an edit is
	// applied, and the didChange then sends that text whole: an editor whose
	// text ends up other than the edit says.
	AfterApply func(uri, text string) string

	closeOnce sync.Once
	closed    chan struct{}

	unholdOnce sync.Once
	unhold     chan struct{} // closed by ReleaseHeld

	mu      sync.Mutex
	docs    map[string]*buffer // by URI
	notes   []Notification
	edits   []protocol.ApplyWorkspaceEditParams
	changed chan struct{}
	stderr  strings.Builder
}

type buffer struct {
	version int32
	text    string
}

// StartOptions configure Start.
type StartOptions struct {
	Binary   string
	Root     string
	Env      []string // added to a clean environment (PATH, HOME kept)
	Caps     Caps
	Settings any // initializationOptions
	Args     []string
}

// Start launches the binary, connects and initializes.
func Start(ctx context.Context, o StartOptions) (*Editor, error) {
	args := append([]string{"serve", "--log-level", "debug"}, o.Args...)
	cmd := exec.Command(o.Binary, args...)
	cmd.Dir = o.Root
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, o.Env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	e := &Editor{Root: o.Root, Caps: o.Caps, Cmd: cmd, docs: map[string]*buffer{}, changed: make(chan struct{}), closed: make(chan struct{})}
	cmd.Stderr = &lockedWriter{mu: &e.mu, b: &e.stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	e.Conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipe{stdout, stdin}), jsonrpc2.WithCodec(lsp.Codec{}))
	// The typed client handler runs inline, so notifications are recorded
	// in the order the server sent them.
	e.Conn.Go(ctx, protocol.ClientHandler(e, e.fallback))
	e.Server = protocol.ServerDispatcher(e.Conn)
	if err := e.initialize(ctx, o.Settings); err != nil {
		e.Kill()
		return nil, fmt.Errorf("initialize: %w (stderr: %s)", err, e.Stderr())
	}
	return e, nil
}

type pipe struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipe) Close() error {
	_ = p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// Stderr returns what the server logged so far.
func (e *Editor) Stderr() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stderr.String()
}

func (e *Editor) initialize(ctx context.Context, settings any) error {
	t := true
	root := uri.File(e.Root)
	p := &protocol.InitializeParams{
		RootURI:    &root, //lint:ignore SA1019 the client imitates editors that send it
		ClientInfo: protocol.ClientInfo{Name: e.Caps.Name},
		Capabilities: protocol.ClientCapabilities{
			General:   &protocol.GeneralClientCapabilities{PositionEncodings: e.Caps.Encodings},
			Window:    &protocol.WindowClientCapabilities{},
			Workspace: &protocol.WorkspaceClientCapabilities{WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{}},
		},
	}
	p.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: root, Name: filepath.Base(e.Root)}})
	c := e.Caps
	if c.WorkDoneProgress {
		p.Capabilities.Window.WorkDoneProgress = &t
	}
	if c.ShowDocument {
		p.Capabilities.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	}
	if c.ShowMessageReq {
		p.Capabilities.Window.ShowMessage = &protocol.ShowMessageRequestClientCapabilities{}
	}
	if c.ApplyEdit {
		p.Capabilities.Workspace.ApplyEdit = &t
	}
	if c.DocumentChanges {
		p.Capabilities.Workspace.WorkspaceEdit.DocumentChanges = &t
	}
	if c.CreateFiles {
		p.Capabilities.Workspace.WorkspaceEdit.ResourceOperations = []protocol.ResourceOperationKind{protocol.ResourceOperationKindCreate}
	}
	if c.FileOps {
		p.Capabilities.Workspace.WorkspaceEdit.ResourceOperations = append(p.Capabilities.Workspace.WorkspaceEdit.ResourceOperations,
			protocol.ResourceOperationKindDelete, protocol.ResourceOperationKindRename)
	}
	if c.ChangeAnnotations {
		p.Capabilities.Workspace.WorkspaceEdit.ChangeAnnotationSupport = &protocol.ChangeAnnotationsSupportOptions{}
	}
	if settings != nil {
		b, err := json.Marshal(settings)
		if err != nil {
			return err
		}
		p.InitializationOptions = protocol.LSPAny(b)
	}
	res, err := e.Server.Initialize(ctx, p)
	if err != nil {
		return err
	}
	enc := string(res.Capabilities.PositionEncoding)
	if enc == "" {
		enc = "utf-16"
	}
	if e.Enc, err = edits.ParseEncoding(enc); err != nil {
		return err
	}
	return e.Server.Initialized(ctx, &protocol.InitializedParams{})
}

// URI returns the file URI of a workspace-relative path.
func (e *Editor) URI(rel string) string { return string(uri.File(filepath.Join(e.Root, rel))) }

// Open opens a workspace file from disk, or with the given text.
func (e *Editor) Open(ctx context.Context, rel string, text ...string) error {
	var body string
	if len(text) > 0 {
		body = text[0]
	} else {
		b, err := os.ReadFile(filepath.Join(e.Root, rel))
		if err != nil {
			return err
		}
		body = string(b)
	}
	return e.openURI(ctx, e.URI(rel), body)
}

func (e *Editor) openURI(ctx context.Context, u, text string) error {
	e.mu.Lock()
	e.docs[u] = &buffer{version: 1, text: text}
	e.mu.Unlock()
	return e.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.URI(u), LanguageID: "plaintext", Version: 1, Text: text}})
}

// Type replaces [start,end) byte offsets of the buffer with text, as a user
// typing, and tells the server.
func (e *Editor) Type(ctx context.Context, rel string, start, end int, text string) error {
	u := e.URI(rel)
	e.mu.Lock()
	b, ok := e.docs[u]
	if !ok {
		e.mu.Unlock()
		return fmt.Errorf("%s is not open", rel)
	}
	m := edits.NewMapper(b.text)
	r := m.OffsetsToRange(start, end, e.Enc)
	b.text = b.text[:start] + text + b.text[end:]
	b.version++
	v := b.version
	// Send while holding the lock so didChange goes out in version order.
	err := e.Server.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: r, Text: text}},
	})
	e.mu.Unlock()
	return err
}

// Text returns an open buffer's text.
func (e *Editor) Text(rel string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.docs[e.URI(rel)]
	if !ok {
		return "", false
	}
	return b.text, true
}

// Notes returns the notifications of a method received so far ("" for all).
func (e *Editor) Notes(method string) []Notification {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Notification
	for _, n := range e.notes {
		if method == "" || n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

// Edits returns every workspace/applyEdit received.
func (e *Editor) Edits() []protocol.ApplyWorkspaceEditParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.ApplyWorkspaceEditParams(nil), e.edits...)
}

// Event is an agentls/event notification, decoded loosely.
type Event map[string]any

// Events returns the agentls/event notifications of a task ("" for all).
func (e *Editor) Events(taskID string) []Event {
	var out []Event
	for _, n := range e.Notes("agentls/event") {
		var ev Event
		if json.Unmarshal(n.Params, &ev) == nil && (taskID == "" || ev["taskId"] == taskID) {
			out = append(out, ev)
		}
	}
	return out
}

// WaitFor polls cond until it holds or the timeout passes.
func (e *Editor) WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		select {
		case <-ch:
		case <-time.After(min(left, 50*time.Millisecond)):
		}
	}
}

func (e *Editor) record(method string, params any) {
	// protocol.Marshal, not encoding/json: the protocol types carry
	// unions and optionals only their own codec renders.
	b, _ := protocol.Marshal(params)
	if raw, ok := params.(json.RawMessage); ok {
		b = raw
	}
	e.mu.Lock()
	e.notes = append(e.notes, Notification{Method: method, Params: b, At: time.Now()})
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// Command runs workspace/executeCommand with one argument object and
// decodes the result into out (may be nil).
func (e *Editor) Command(ctx context.Context, name string, args any, out any) error {
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	res, err := e.Server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: name, Arguments: []protocol.LSPAny{protocol.LSPAny(b)}})
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(res, out)
	}
	return nil
}

// TaskResult is a task as agentls.status and agentls.wait return it.
type TaskResult struct {
	TaskID       string   `json:"taskId"`
	Session      string   `json:"session"`
	Status       string   `json:"status"`
	State        string   `json:"state"`
	Verified     bool     `json:"verified"`
	Cancelled    bool     `json:"cancelled"`
	FilesChanged []string `json:"filesChanged"`
	Usage        struct {
		InputTokens  int `json:"inputTokens"`
		OutputTokens int `json:"outputTokens"`
	} `json:"usage"`
	Summary string `json:"summary"`
	Error   string `json:"error"`
	Reason  string `json:"reason"`
}

// Run starts a task and returns its ID.
func (e *Editor) Run(ctx context.Context, args map[string]any) (string, error) {
	var r struct {
		TaskID string `json:"taskId"`
	}
	if err := e.Command(ctx, "agentls.run", args, &r); err != nil {
		return "", err
	}
	return r.TaskID, nil
}

// Wait waits for a task to end.
func (e *Editor) Wait(ctx context.Context, taskID string, timeout time.Duration) (TaskResult, error) {
	var r TaskResult
	err := e.Command(ctx, "agentls.wait", map[string]any{"taskId": taskID, "timeoutMs": timeout.Milliseconds()}, &r)
	if err == nil && r.Status == "timeout" {
		err = fmt.Errorf("task %s did not end within %s", taskID, timeout)
	}
	return r, err
}

// Close shuts the server down politely and waits for it to exit.
func (e *Editor) Close(ctx context.Context) error {
	defer e.Conn.Close()
	e.release()
	if err := e.Server.Shutdown(ctx); err != nil {
		e.Kill()
		return err
	}
	_ = e.Server.Exit(ctx)
	done := make(chan error, 1)
	go func() { done <- e.Cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		e.Kill()
		return fmt.Errorf("server did not exit after shutdown/exit")
	}
}

// Kill stops the server process.
func (e *Editor) Kill() {
	e.release()
	if e.Cmd.Process != nil {
		_ = e.Cmd.Process.Kill()
	}
}

// Configure changes the editor's behaviour (HoldApplyEdit, SilentApply,
// AfterApply) while it runs, without racing its handlers.
func (e *Editor) Configure(f func(e *Editor)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f(e)
}

// ReleaseHeld lets every applyEdit held by HoldApplyEdit, and every later
// one, apply as if it had not been held.
func (e *Editor) ReleaseHeld() { e.unholdOnce.Do(func() { close(e.unholdCh()) }) }

func (e *Editor) unholdCh() chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.unhold == nil {
		e.unhold = make(chan struct{})
	}
	return e.unhold
}

// release answers every held applyEdit.
func (e *Editor) release() { e.closeOnce.Do(func() { close(e.closed) }) }

// --- protocol.Client: what the server may ask of the editor ---

func (e *Editor) fallback(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		e.record(strings.Clone(req.Method()), json.RawMessage(append([]byte(nil), req.Params()...)))
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "test editor does not handle %s", req.Method())
}

func (e *Editor) Progress(ctx context.Context, p *protocol.ProgressParams) error {
	e.record(protocol.MethodProgress, p)
	return nil
}
func (e *Editor) LogTrace(ctx context.Context, p *protocol.LogTraceParams) error { return nil }
func (e *Editor) RegisterCapability(ctx context.Context, p *protocol.RegistrationParams) error {
	return nil
}
func (e *Editor) UnregisterCapability(ctx context.Context, p *protocol.UnregistrationParams) error {
	return nil
}
func (e *Editor) ShowMessage(ctx context.Context, p *protocol.ShowMessageParams) error {
	e.record(protocol.MethodWindowShowMessage, p)
	return nil
}
func (e *Editor) ShowMessageRequest(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	e.record(protocol.MethodWindowShowMessageRequest, p)
	if e.OnShowMessageRequest != nil {
		return e.OnShowMessageRequest(p), nil
	}
	if len(p.Actions) == 0 {
		return nil, nil
	}
	return &p.Actions[0], nil
}
func (e *Editor) LogMessage(ctx context.Context, p *protocol.LogMessageParams) error {
	e.record(protocol.MethodWindowLogMessage, p)
	return nil
}
func (e *Editor) ShowDocument(ctx context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	e.record(protocol.MethodWindowShowDocument, p)
	return &protocol.ShowDocumentResult{Success: e.Caps.ShowDocument}, nil
}
func (e *Editor) WorkDoneProgressCreate(ctx context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	e.record(protocol.MethodWindowWorkDoneProgressCreate, p)
	if !e.Caps.WorkDoneProgress {
		return jsonrpc2.NewError(jsonrpc2.MethodNotFound, "no progress")
	}
	return nil
}
func (e *Editor) Telemetry(ctx context.Context, p protocol.LSPAny) error { return nil }
func (e *Editor) PublishDiagnostics(ctx context.Context, p *protocol.PublishDiagnosticsParams) error {
	e.record(protocol.MethodTextDocumentPublishDiagnostics, p)
	return nil
}
func (e *Editor) Configuration(ctx context.Context, p *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	return nil, nil
}
func (e *Editor) WorkspaceFolders(ctx context.Context) ([]protocol.WorkspaceFolder, error) {
	return []protocol.WorkspaceFolder{{URI: uri.File(e.Root), Name: filepath.Base(e.Root)}}, nil
}
func (e *Editor) CodeLensRefresh(ctx context.Context) error       { return nil }
func (e *Editor) FoldingRangeRefresh(ctx context.Context) error   { return nil }
func (e *Editor) SemanticTokensRefresh(ctx context.Context) error { return nil }
func (e *Editor) InlineValueRefresh(ctx context.Context) error    { return nil }
func (e *Editor) InlayHintRefresh(ctx context.Context) error      { return nil }
func (e *Editor) DiagnosticRefresh(ctx context.Context) error     { return nil }
func (e *Editor) TextDocumentContentRefresh(ctx context.Context, p *protocol.TextDocumentContentRefreshParams) error {
	return nil
}

// ApplyEdit applies a workspace edit the way an editor does: versioned
// document edits must match the buffer's version; files that are not open
// are opened first; the resulting didChange goes to the server before the
// reply.
func (e *Editor) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	e.mu.Lock()
	e.edits = append(e.edits, *p)
	e.mu.Unlock()
	e.record(protocol.MethodWorkspaceApplyEdit, p)
	if !e.Caps.ApplyEdit {
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "applyEdit not supported")
	}
	e.mu.Lock()
	hold := e.HoldApplyEdit
	e.mu.Unlock()
	if hold != nil && hold(p) {
		// Off the read loop, so everything else goes on meanwhile.
		jsonrpc2.Async(ctx)
		select {
		case <-e.closed:
			return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "editor closed")
		case <-e.unholdCh():
		}
	}
	if e.OnApplyEdit != nil {
		if ok, reason := e.OnApplyEdit(p); !ok {
			return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
		}
	}
	if err := e.applyWorkspaceEdit(ctx, p.Edit); err != nil {
		reason := err.Error()
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

func (e *Editor) applyWorkspaceEdit(ctx context.Context, we protocol.WorkspaceEdit) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	type change struct {
		u       string
		version *int32
		edits   []protocol.TextEdit
		create  bool
		del     bool
		// renameTo is the new URI of a RenameFile.
		renameTo string
	}
	var changes []change
	for _, dc := range we.DocumentChanges {
		switch dc := dc.(type) {
		case *protocol.TextDocumentEdit:
			c := change{u: string(dc.TextDocument.URI), version: dc.TextDocument.Version}
			for _, el := range dc.Edits {
				switch te := el.(type) {
				case *protocol.TextEdit:
					c.edits = append(c.edits, *te)
				case *protocol.AnnotatedTextEdit:
					c.edits = append(c.edits, te.TextEdit)
				}
			}
			changes = append(changes, c)
		case *protocol.CreateFile:
			changes = append(changes, change{u: string(dc.URI), create: true})
		case *protocol.DeleteFile:
			changes = append(changes, change{u: string(dc.URI), del: true})
		case *protocol.RenameFile:
			changes = append(changes, change{u: string(dc.OldURI), renameTo: string(dc.NewURI)})
		default:
			return fmt.Errorf("unsupported document change %T", dc)
		}
	}
	us := make([]string, 0, len(we.Changes))
	for u := range we.Changes {
		us = append(us, string(u))
	}
	sort.Strings(us)
	for _, u := range us {
		changes = append(changes, change{u: u, edits: we.Changes[uri.URI(u)]})
	}
	// Check everything first: an editor applies a workspace edit whole or
	// not at all.
	for _, c := range changes {
		b, open := e.docs[c.u]
		if c.version != nil && (!open || b.version != *c.version) {
			have := int32(-1)
			if open {
				have = b.version
			}
			return fmt.Errorf("version mismatch for %s: edit is for v%d, buffer is v%d", c.u, *c.version, have)
		}
	}
	for _, c := range changes {
		b, open := e.docs[c.u]
		if c.del || c.renameTo != "" {
			if err := e.resourceOp(ctx, c.u, c.renameTo, b, open); err != nil {
				return err
			}
			continue
		}
		if c.create {
			if !open {
				e.docs[c.u] = &buffer{version: 1}
				if err := e.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri.URI(c.u), LanguageID: "plaintext", Version: 1}}); err != nil {
					return err
				}
			}
			continue
		}
		if !open {
			path := uri.URI(c.u).FsPath()
			data, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("open %s: %w", path, err)
			}
			b = &buffer{version: 1, text: string(data)}
			e.docs[c.u] = b
			if err := e.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri.URI(c.u), LanguageID: "plaintext", Version: 1, Text: b.text}}); err != nil {
				return err
			}
		}
		next, err := edits.ApplyTextEdits(b.text, c.edits, e.Enc)
		if err != nil {
			return err
		}
		// Send the edits as sequential changes, last first, so each range
		// is still valid when the server applies it.
		sorted := append([]protocol.TextEdit(nil), c.edits...)
		sort.SliceStable(sorted, func(i, j int) bool { return lessPos(sorted[j].Range.Start, sorted[i].Range.Start) })
		var events []protocol.TextDocumentContentChangeEvent
		for i := range sorted {
			events = append(events, &protocol.TextDocumentContentChangePartial{Range: sorted[i].Range, Text: sorted[i].NewText})
		}
		b.text = next
		b.version++
		if e.SilentApply {
			continue
		}
		if e.AfterApply != nil {
			b.text = e.AfterApply(c.u, next)
			events = []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: b.text}}
		}
		if e.OneChangePerEdit && len(events) > 1 {
			b.version--
			for _, ev := range events {
				b.version++
				if err := e.Server.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
					TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(c.u)}, Version: b.version},
					ContentChanges: []protocol.TextDocumentContentChangeEvent{ev},
				}); err != nil {
					return err
				}
			}
			continue
		}
		if err := e.Server.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(c.u)}, Version: b.version},
			ContentChanges: events,
		}); err != nil {
			return err
		}
	}
	return nil
}

func lessPos(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// CopyTree copies the directory src into dst and returns the files' texts
// by slash-separated relative path.
func CopyTree(src, dst string) (map[string]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(data)
		return os.WriteFile(target, data, 0o644)
	})
	return files, err
}

// resourceOp deletes the file u (to == "") or renames it to to, as an
// editor does: on disk, closing the buffer of a deleted file and moving
// the buffer of a renamed one (didClose, then didOpen under the new name).
// Called with e.mu held.
func (e *Editor) resourceOp(ctx context.Context, u, to string, b *buffer, open bool) error {
	from := uri.URI(u).FsPath()
	if to == "" {
		if err := os.Remove(from); err != nil && !(open && os.IsNotExist(err)) {
			return err
		}
	} else {
		dst := uri.URI(to).FsPath()
		if _, err := os.Stat(dst); err == nil {
			return fmt.Errorf("%s exists", dst)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Rename(from, dst); err != nil {
			return err
		}
	}
	if !open {
		return nil
	}
	delete(e.docs, u)
	if err := e.Server.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(u)}}); err != nil {
		return err
	}
	if to == "" {
		return nil
	}
	e.docs[to] = &buffer{version: 1, text: b.text}
	return e.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri.URI(to), LanguageID: "plaintext", Version: 1, Text: b.text}})
}
