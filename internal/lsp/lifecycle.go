//lint:file-ignore SA1019 clients that predate workspaceFolders send only rootUri, the oldest only rootPath

package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/edits"
)

func (s *Server) initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	root := s.opts.Root
	if folders, ok := p.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		root = uriPath(string(folders[0].URI), root)
	} else if p.RootURI != nil && *p.RootURI != "" {
		root = uriPath(string(*p.RootURI), root)
	} else if rp, ok := p.RootPath.Get(); ok && rp != "" {
		root = rp
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}

	var offered []protocol.PositionEncodingKind
	if g := p.Capabilities.General; g != nil {
		offered = g.PositionEncodings
	}
	enc := edits.Negotiate(offered)

	var c clientCaps
	if w := p.Capabilities.Window; w != nil {
		c.workDoneProgress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
		c.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
		c.showMessageReq = w.ShowMessage != nil
	}
	if x := p.Capabilities.Experimental; len(x) > 0 {
		var ex struct {
			Agentls struct {
				QuestionTaskID bool `json:"questionTaskId"`
			} `json:"agentls"`
		}
		if json.Unmarshal(x, &ex) == nil {
			c.questionTaskID = ex.Agentls.QuestionTaskID
		}
	}
	if w := p.Capabilities.Workspace; w != nil {
		c.applyEdit = w.ApplyEdit != nil && *w.ApplyEdit
		if we := w.WorkspaceEdit; we != nil {
			c.documentChanges = we.DocumentChanges != nil && *we.DocumentChanges
			for _, k := range we.ResourceOperations {
				switch k {
				case protocol.ResourceOperationKindCreate:
					c.createFiles = true
				case protocol.ResourceOperationKindDelete:
					c.deleteFiles = true
				case protocol.ResourceOperationKindRename:
					c.renameFiles = true
				}
			}
			c.changeAnnotations = we.ChangeAnnotationSupport != nil
		}
	}

	s.ed.mu.Lock()
	// Helix shows neither command results nor their errors, only its log.
	s.ed.mirror = strings.Contains(strings.ToLower(p.ClientInfo.Name), "helix")
	s.ed.clientInfoName = p.ClientInfo.Name
	s.ed.root = root
	s.ed.enc = enc
	s.ed.caps = c
	s.ed.mu.Unlock()
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
	s.log.Info("initialize", zap.String("root", root), zap.String("client", p.ClientInfo.Name),
		zap.String("positionEncoding", enc.String()), zap.Any("caps", c))
	s.conf.mu.Lock()
	s.conf.initOpts = agentlsSettings(p.InitializationOptions)
	s.conf.mu.Unlock()
	s.conf.configure(ctx, nil)

	openClose, change := true, protocol.TextDocumentSyncKindIncremental
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: enc.Kind(),
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &openClose,
				Change:    &change,
				Save:      protocol.Boolean(true),
			},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: s.commandNames()},
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, codeActionKindReview},
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "agentls", Version: protocol.NewOptional(s.opts.Version)},
	}
	return res, nil
}

// uriPath turns a file: URI into a path; other schemes, and anything
// that does not parse, give def.
func uriPath(u, def string) (p string) {
	defer func() {
		if recover() != nil {
			p = def
		}
	}()
	if !strings.HasPrefix(u, "file:") {
		return def
	}
	parsed, err := uri.Parse(u)
	if err != nil {
		return def
	}
	if p = parsed.FsPath(); p == "" {
		return def
	}
	return filepath.Clean(p)
}
