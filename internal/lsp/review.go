package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/edits"
)

// Review mode holds a task's changes as proposals. Each file's proposal
// is a pair (reviewBase, proposed); its hunks are edits.Diff of the two.
// Accepting a hunk applies it to the editor's text and moves reviewBase;
// rejecting one takes it out of proposed. The user sees hunks as
// Information diagnostics with code actions, which every editor shows
// (Helix has no other menu), and the whole task as a unified diff.

const reviewCode = "agentls.review"

// hunk is one proposed change of a file, placed in the current text.
type hunk struct {
	id       string // "start-end" in reviewBase: stable until the base moves
	change   edits.Change
	cur      edits.Change // the same change against the current text
	conflict bool         // the user edited this region since
}

// hunks returns the file's proposed hunks mapped onto current. A hunk
// whose region the user edited since is marked as a conflict.
func hunksOf(fc *fileChange, current string) []hunk {
	cs := edits.Diff(fc.reviewBase, fc.proposed)
	user := edits.Diff(fc.reviewBase, current)
	hs := make([]hunk, 0, len(cs))
	for _, c := range cs {
		h := hunk{id: fmt.Sprintf("%d-%d", c.Start, c.End), change: c, cur: c}
		shift := 0
		for _, u := range user {
			switch {
			case u.End < c.Start || (u.End == c.Start && u.Start < u.End && c.Start < c.End):
				shift += len(u.NewText) - (u.End - u.Start)
			case u.Start > c.End || (u.Start == c.End && c.Start < c.End):
			default:
				h.conflict = true
			}
		}
		h.cur.Start, h.cur.End = c.Start+shift, c.End+shift
		if h.cur.End > len(current) || h.cur.Start < 0 {
			h.conflict = true
		}
		hs = append(hs, h)
	}
	return hs
}

// describe says in a line what a hunk does.
func describe(c edits.Change, base string) string {
	old := base[c.Start:c.End]
	first := func(s string) string {
		s = strings.TrimSpace(s)
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i] + " …"
		}
		return shorten(s, 80)
	}
	switch {
	case c.NewText == "":
		return fmt.Sprintf("delete %q", first(old))
	case old == "":
		return fmt.Sprintf("insert %q", first(c.NewText))
	default:
		return fmt.Sprintf("replace %q with %q", first(old), first(c.NewText))
	}
}

// reviewFiles returns the task's files with open proposals, optionally
// only the one at uri.
func (s *Server) reviewFiles(t *task, only string) []*fileChange {
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	var out []*fileChange
	for _, rel := range t.changes.order {
		fc := t.changes.files[rel]
		if !fc.proposing || fc.proposed == fc.reviewBase && fc.reviewExisted {
			continue
		}
		if only != "" && only != s.fileURI(rel) {
			if d, ok := s.docs.getURI(only); !ok || d.path != filepath.Join(s.rootDir(), filepath.FromSlash(rel)) {
				continue
			}
		}
		out = append(out, fc)
	}
	return out
}

// fileURI is the URI the editor knows a workspace file by.
func (s *Server) fileURI(rel string) string {
	abs := filepath.Join(s.rootDir(), filepath.FromSlash(rel))
	if d, ok := s.docs.get(abs); ok {
		return d.uri
	}
	return string(uri.File(abs))
}

// hasApplied reports whether the task has applied changes not undone.
func (t *task) hasApplied() bool {
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	for _, fc := range t.changes.files {
		if fc.applied {
			return true
		}
	}
	return false
}

// publishReview (re)publishes every task's proposals as diagnostics.
// Callers that change proposals hold reviewMu, so what is published is
// never older than what another command just did.
func (s *Server) publishReview(ctx context.Context) {
	enc := s.encoding()
	ws, err := s.newWorkspace(nil)
	if err != nil {
		s.log.Warn("publishing review diagnostics", zap.Error(err))
		return
	}
	byURI := map[string][]protocol.Diagnostic{}
	for _, t := range s.tasks.all() {
		if !t.review {
			continue
		}
		for _, fc := range s.reviewFiles(t, "") {
			cur, _, _, _, err := ws.current(fc.rel)
			if err != nil {
				continue
			}
			u := s.fileURI(fc.rel)
			m := edits.NewMapper(cur)
			for _, h := range hunksOf(fc, cur) {
				msg := "agentls proposes: " + describe(h.change, fc.reviewBase)
				if h.conflict {
					msg += " (you edited this region since; accepting is refused)"
				}
				data, _ := json.Marshal(map[string]string{"taskId": t.id, "hunk": h.id})
				byURI[u] = append(byURI[u], protocol.Diagnostic{
					Range:    m.OffsetsToRange(h.cur.Start, max(h.cur.End, min(h.cur.Start+1, len(cur))), enc),
					Severity: protocol.DiagnosticSeverityInformation,
					Source:   protocol.NewOptional(diagSource),
					Code:     protocol.String(reviewCode),
					Message:  protocol.String(msg),
					Data:     protocol.LSPAny(data),
				})
			}
		}
	}
	d := s.diags
	d.mu.Lock()
	touched := map[string]bool{}
	for u := range d.review {
		touched[u] = true
	}
	for u := range byURI {
		touched[u] = true
	}
	d.review = byURI
	d.mu.Unlock()
	s.publish(ctx, sortedKeys(touched))
}

// endReview runs when a review-mode task ends: proposals become visible
// and the whole task's diff is written and shown.
func (s *Server) endReview(ctx context.Context, t *task) {
	s.reviewMu.Lock()
	s.publishReview(ctx)
	s.reviewMu.Unlock()
	files := s.reviewFiles(t, "")
	if len(files) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# agentls task %s proposes these changes (%s)\n# accept or reject them with code actions or agentls.accept / agentls.reject\n", t.id, shorten(t.prompt, 100))
	for _, fc := range files {
		a := "a/" + fc.rel
		if !fc.reviewExisted {
			a = "/dev/null"
		}
		b.WriteString(edits.Unified(a, "b/"+fc.rel, fc.reviewBase, fc.proposed, 3))
	}
	dir := filepath.Join(s.stateDir(), "reviews")
	path := filepath.Join(dir, t.id+"-"+t.session+".diff")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return
	}
	t.mu.Lock()
	t.reviewDoc = string(uri.File(path))
	t.mu.Unlock()
	s.mu.Lock()
	show := s.caps.showDocument
	s.mu.Unlock()
	if show {
		take := false
		if _, err := s.client.ShowDocument(context.WithoutCancel(ctx), &protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: &take}); err != nil {
			s.log.Debug("showDocument failed")
		}
	}
}

// stateDir is where agentls keeps sessions, transcripts and reviews.
func (s *Server) stateDir() string {
	if s.opts.StateDir != "" {
		return s.opts.StateDir
	}
	if d := s.opts.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "agentls")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "state", "agentls")
}

type reviewArgs struct {
	TaskID string `json:"taskId"`
	URI    string `json:"uri,omitempty"`
	Hunk   string `json:"hunk,omitempty"`
}

func (s *Server) reviewTask(name string, raw json.RawMessage) (*task, reviewArgs, error) {
	var a reviewArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return nil, a, err
	}
	if a.TaskID == "" {
		for _, t := range s.tasks.all() {
			if t.review && len(s.reviewFiles(t, "")) > 0 {
				a.TaskID = t.id
			}
		}
		if a.TaskID == "" {
			return nil, a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no task has changes waiting for review", name)
		}
	}
	t, ok := s.tasks.get(a.TaskID)
	if !ok {
		return nil, a, unknownTask(a.TaskID)
	}
	if !t.review {
		return nil, a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: task %s did not run in review mode; its changes are already applied (agentls.undo reverts them)", name, t.id)
	}
	if !t.ended() {
		return nil, a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: task %s is still running; review its changes when it ends", name, t.id)
	}
	return t, a, nil
}

func (s *Server) cmdAccept(ctx context.Context, raw json.RawMessage) (any, error) {
	t, a, err := s.reviewTask("agentls.accept", raw)
	if err != nil {
		return nil, err
	}
	s.reviewMu.Lock()
	defer s.reviewMu.Unlock()
	res, err := s.accept(ctx, t, a.URI, a.Hunk)
	s.publishReview(ctx)
	return res, err
}

func (s *Server) cmdReject(ctx context.Context, raw json.RawMessage) (any, error) {
	t, a, err := s.reviewTask("agentls.reject", raw)
	if err != nil {
		return nil, err
	}
	s.reviewMu.Lock()
	defer s.reviewMu.Unlock()
	files := s.reviewFiles(t, a.URI)
	n := 0
	t.changes.mu.Lock()
	for _, fc := range files {
		keep := []edits.Change{}
		for _, c := range edits.Diff(fc.reviewBase, fc.proposed) {
			if a.Hunk != "" && fmt.Sprintf("%d-%d", c.Start, c.End) != a.Hunk {
				keep = append(keep, c)
			} else {
				n++
			}
		}
		fc.proposed = edits.ApplyChanges(fc.reviewBase, keep)
		if len(keep) == 0 {
			fc.proposing = false
		}
	}
	t.changes.mu.Unlock()
	s.publishReview(ctx)
	if n == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.reject: nothing to reject for %s", describeTarget(a))
	}
	return map[string]any{"applied": true, "rejected": n}, nil
}

func describeTarget(a reviewArgs) string {
	s := "task " + a.TaskID
	if a.URI != "" {
		s += " in " + a.URI
	}
	if a.Hunk != "" {
		s += " hunk " + a.Hunk
	}
	return s
}

// accept applies proposals (all, a file's, or one hunk) in one
// workspace/applyEdit. Clients with change annotations get them with
// needsConfirmation, so VS Code opens its refactor preview.
func (s *Server) accept(ctx context.Context, t *task, only, hunkID string) (any, error) {
	s.mu.Lock()
	caps, enc := s.caps, s.enc
	s.mu.Unlock()
	ws, err := s.newWorkspace(t)
	if err != nil {
		return nil, err
	}
	type planned struct {
		fc       *fileChange
		cur      string
		existed  bool
		next     string
		accepted []edits.Change // against reviewBase
	}
	var plan []planned
	var we protocol.WorkspaceEdit
	annotation := protocol.ChangeAnnotationIdentifier("agentls.review")
	for _, fc := range s.reviewFiles(t, only) {
		cur, exists, doc, open, err := ws.current(fc.rel)
		if err != nil {
			return nil, err
		}
		p := planned{fc: fc, cur: cur, existed: exists}
		var curChanges []edits.Change
		for _, h := range hunksOf(fc, cur) {
			if hunkID != "" && h.id != hunkID {
				continue
			}
			if h.conflict {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.accept: you edited %s where the change was proposed; reject it or edit by hand", fc.rel)
			}
			p.accepted = append(p.accepted, h.change)
			curChanges = append(curChanges, h.cur)
		}
		if len(curChanges) == 0 {
			continue
		}
		p.next = edits.ApplyChanges(cur, curChanges)
		u := s.fileURI(fc.rel)
		tes := edits.TextEdits(cur, curChanges, enc)
		els := make([]protocol.TextDocumentEditElement, len(tes))
		for i := range tes {
			if caps.changeAnnotations {
				els[i] = &protocol.AnnotatedTextEdit{TextEdit: tes[i], AnnotationID: annotation}
			} else {
				els[i] = &tes[i]
			}
		}
		var version *int32
		if open {
			v := doc.version
			version = &v
		}
		if !exists {
			ignore := true
			we.DocumentChanges = append(we.DocumentChanges, &protocol.CreateFile{Kind: "create", URI: uri.URI(u), Options: &protocol.CreateFileOptions{IgnoreIfExists: &ignore}})
		}
		we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Version: version},
			Edits:        els,
		})
		plan = append(plan, p)
	}
	if len(plan) == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.accept: nothing to accept for %s", describeTarget(reviewArgs{TaskID: t.id, URI: only, Hunk: hunkID}))
	}
	if caps.changeAnnotations {
		yes := true
		desc := t.prompt
		we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			annotation: {Label: "agentls: " + shorten(t.prompt, 60), NeedsConfirmation: &yes, Description: &desc},
		}
	}
	if !caps.applyEdit {
		for _, p := range plan {
			next := p.next
			if err := ws.disk.Edit(ctx, p.fc.rel, func([]byte, bool) ([]byte, error) { return []byte(next), nil }); err != nil {
				return nil, err
			}
		}
	} else {
		label := "agentls: accept " + shorten(t.prompt, 60)
		res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
		if err != nil {
			return nil, fmt.Errorf("agentls.accept: applying failed: %v", err)
		}
		if !res.Applied {
			return map[string]any{"applied": false}, nil
		}
	}
	accepted := 0
	t.changes.mu.Lock()
	for _, p := range plan {
		fc := p.fc
		fc.reviewBase = edits.ApplyChanges(fc.reviewBase, p.accepted)
		fc.reviewExisted = true
		if fc.reviewBase == fc.proposed {
			fc.proposing = false
		}
		if !fc.applied {
			fc.base, fc.existed = p.cur, p.existed
		}
		fc.after, fc.applied = p.next, true
		accepted += len(p.accepted)
	}
	t.changes.mu.Unlock()
	t.mu.Lock()
	for _, p := range plan {
		if !contains(t.result.FilesChanged, p.fc.rel) {
			t.result.FilesChanged = append(t.result.FilesChanged, p.fc.rel)
		}
	}
	t.mu.Unlock()
	return map[string]any{"applied": true, "accepted": accepted}, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// conflictJSON is one region undo left alone.
type conflictJSON struct {
	URI    string `json:"uri"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// cmdUndo reverts every change a task applied, across files, as one
// workspace/applyEdit computed against the current text: regions the user
// changed since are left alone and reported.
func (s *Server) cmdUndo(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct {
		TaskID string `json:"taskId,omitempty"`
	}
	if err := decodeArgs("agentls.undo", raw, &a); err != nil {
		return nil, err
	}
	if a.TaskID == "" {
		// The newest task with changes to undo (Helix key bindings cannot
		// name a task).
		for _, t := range s.tasks.all() {
			if t.hasApplied() {
				a.TaskID = t.id
			}
		}
		if a.TaskID == "" {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "agentls.undo: no task has changes to undo")
		}
	}
	t, ok := s.tasks.get(a.TaskID)
	if !ok {
		return nil, unknownTask(a.TaskID)
	}
	if !t.ended() {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.undo: task %s is still running; cancel it first", t.id)
	}
	s.reviewMu.Lock()
	defer s.reviewMu.Unlock()
	s.mu.Lock()
	caps, enc := s.caps, s.enc
	s.mu.Unlock()
	ws, err := s.newWorkspace(t)
	if err != nil {
		return nil, err
	}
	var we protocol.WorkspaceEdit
	conflicts := []conflictJSON{}
	type undone struct {
		fc   *fileChange
		next string
	}
	var done []undone
	var toDelete []string
	t.changes.mu.Lock()
	var files []*fileChange
	for _, rel := range t.changes.order {
		if fc := t.changes.files[rel]; fc.applied {
			files = append(files, fc)
		}
	}
	t.changes.mu.Unlock()
	if len(files) == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.undo: task %s changed no files (or was undone already)", t.id)
	}
	for _, fc := range files {
		cur, exists, doc, open, err := ws.current(fc.rel)
		if err != nil {
			return nil, err
		}
		u := s.fileURI(fc.rel)
		if !fc.existed {
			switch {
			case !exists:
			case cur != fc.after:
				conflicts = append(conflicts, conflictJSON{URI: u, Line: 1, Reason: "the task created this file and it changed since; kept"})
			case caps.applyEdit && caps.deleteFiles:
				we.DocumentChanges = append(we.DocumentChanges, &protocol.DeleteFile{Kind: "delete", URI: uri.URI(u)})
				done = append(done, undone{fc: fc})
			case !caps.applyEdit:
				toDelete = append(toDelete, fc.rel)
				done = append(done, undone{fc: fc})
			default:
				conflicts = append(conflicts, conflictJSON{URI: u, Line: 1, Reason: "the task created this file; this editor cannot delete files through LSP, delete it by hand"})
			}
			continue
		}
		cs, cfs := edits.RevertChanges(fc.base, fc.after, cur)
		for _, c := range cfs {
			conflicts = append(conflicts, conflictJSON{URI: u, Line: c.Line, Reason: c.Reason})
		}
		if len(cs) == 0 {
			continue
		}
		next := edits.ApplyChanges(cur, cs)
		var version *int32
		if open {
			v := doc.version
			version = &v
		}
		we.DocumentChanges = append(we.DocumentChanges, versionedEdit(u, version, edits.TextEdits(cur, cs, enc), clientCaps{documentChanges: true}).DocumentChanges...)
		done = append(done, undone{fc: fc, next: next})
	}
	applied := true
	if len(we.DocumentChanges) > 0 {
		if caps.applyEdit {
			label := "agentls: undo " + shorten(t.prompt, 60)
			res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
			if err != nil {
				return nil, fmt.Errorf("agentls.undo: applying failed: %v", err)
			}
			applied = res.Applied
		} else {
			for _, d := range done {
				if d.fc.existed {
					next := d.next
					if err := ws.disk.Edit(ctx, d.fc.rel, func([]byte, bool) ([]byte, error) { return []byte(next), nil }); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	for _, rel := range toDelete {
		if err := os.Remove(ws.abs(rel)); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	if applied {
		t.changes.mu.Lock()
		for _, d := range done {
			d.fc.applied = false
		}
		t.changes.mu.Unlock()
	}
	sort.Slice(conflicts, func(i, j int) bool {
		return conflicts[i].URI < conflicts[j].URI || conflicts[i].URI == conflicts[j].URI && conflicts[i].Line < conflicts[j].Line
	})
	if len(conflicts) > 0 {
		var where []string
		for _, c := range conflicts {
			where = append(where, fmt.Sprintf("%s:%d", filepath.Base(uriPath(c.URI, c.URI)), c.Line))
		}
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: undid task %s except where you edited since: %s", t.id, strings.Join(where, ", "))
	}
	return map[string]any{"applied": applied, "conflicts": conflicts}, nil
}
