package lsp

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/tools"
)

// editor is the client on the other end of the connection, as the
// features see it: the means to talk to it (notifications, messages,
// requests), what it said at initialize (the root, the position encoding,
// its capabilities), and its files: the one write path
// (internal/apply) over its applyEdit-or-disk transport (files.go). The
// feature types hold it instead of the *Server; mu guards only the state
// below it and is never held across a request to the client.
type editor struct {
	conn   jsonrpc2.Conn
	client protocol.Client
	log    *zap.Logger
	docs   *openDocs
	// disagree tells the user an applied edit left another text (the
	// configuration's sayDisagree: a warning shown once).
	disagree func(ctx context.Context, uri string)

	mu             sync.Mutex
	root           string
	enc            edits.Encoding
	caps           clientCaps
	mirror         bool   // echo command results and errors as messages (Helix drops them)
	clientInfoName string // clientInfo.name, for hints in the editor's words (hints.go)
	saidDisk       bool   // told the user we write to disk ourselves
	applier        *apply.Applier
	applierRoot    string // the root applier writes beneath
}

// notify sends a notification, never failing the caller: a closed
// connection just means nobody is listening any more.
func (e *editor) notify(ctx context.Context, method string, params any) {
	if err := e.conn.Notify(context.WithoutCancel(ctx), method, params); err != nil {
		e.log.Debug("notify failed", zap.String("method", method), zap.Error(err))
	}
}

func (e *editor) showMessage(ctx context.Context, typ protocol.MessageType, format string, args ...any) {
	e.notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: fmt.Sprintf(format, args...)})
}

// clientState returns what the client announced.
func (e *editor) clientState() (clientCaps, edits.Encoding) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.caps, e.enc
}

func (e *editor) encoding() edits.Encoding {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enc
}

func (e *editor) rootDir() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.root
}

func (e *editor) clientName() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.clientInfoName
}

// fileURI is the URI the editor knows a workspace file by.
func (e *editor) fileURI(rel string) string {
	abs := filepath.Join(e.rootDir(), filepath.FromSlash(rel))
	if d, ok := e.docs.get(abs); ok {
		return d.uri
	}
	return string(uri.File(abs))
}

// uriDir is the workspace-relative directory of the file u names, "" for
// none or one outside the workspace.
func (e *editor) uriDir(u string) string {
	if u == "" {
		return ""
	}
	rel, ok := relTo(e.rootDir(), uri.URI(u).FsPath())
	if !ok {
		return ""
	}
	if d := path.Dir(filepath.ToSlash(rel)); d != "." {
		return d
	}
	return ""
}

func (e *editor) sayDiskOnce(ctx context.Context) {
	e.mu.Lock()
	said := e.saidDisk
	e.saidDisk = true
	e.mu.Unlock()
	if !said {
		e.showMessage(ctx, protocol.MessageTypeInfo, "agentls: this editor cannot apply or create files through LSP, so agentls writes these files to disk itself (atomically).")
	}
}

// files is the server's write path: one Applier for the workspace, so
// that every task, accept, undo, rewind and merge takes its turn per file.
func (e *editor) files() (*apply.Applier, error) {
	root := e.rootDir()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.applier != nil && e.applierRoot == root {
		return e.applier, nil
	}
	disk, err := apply.NewDisk(root)
	if err != nil {
		return nil, err
	}
	e.applier = apply.New(&editorFiles{
		root: root, disk: disk, docs: e.docs, client: e.client, state: e.clientState, log: e.log,
		onDisk: e.sayDiskOnce, disagree: e.disagree,
	})
	e.applierRoot = root
	return e.applier, nil
}

// newWorkspace is the editor-backed workspace of a task (t may be nil for
// reads outside a task).
func (e *editor) newWorkspace(t *runningTask) (*editorWorkspace, error) {
	root := e.rootDir()
	disk, err := tools.NewDiskWorkspace(root)
	if err != nil {
		return nil, err
	}
	return &editorWorkspace{root: root, t: t, disk: disk,
		files: e.files, docs: e.docs, client: e.client, caps: e.clientState, sayDisk: e.sayDiskOnce}, nil
}

func (e *editor) canAsk() bool {
	caps, _ := e.clientState()
	return caps.showMessageReq
}
