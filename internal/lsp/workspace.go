package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/tools"
)

// editorWorkspace is the agent's view of files through the editor: reads
// prefer open buffers, then text we sent to files the editor had closed,
// then the disk; every write is a workspace/applyEdit, so the editor owns
// each change. Only a client without applyEdit gets files written to disk
// by agentls itself (atomically).
type editorWorkspace struct {
	s    *Server
	root string
	t    *runningTask
	disk *tools.DiskWorkspace
}

func (w *editorWorkspace) Root() string { return w.root }

// beneath refuses rel when it resolves outside the root now (see
// assemble.Beneath); every edit agentls sends or writes outside the tools
// is checked so just before it goes.
func (w *editorWorkspace) beneath(rel string) error { return assemble.Beneath(w.root, rel) }

func (w *editorWorkspace) abs(rel string) string {
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

// current returns the file's text as the user sees it now.
func (w *editorWorkspace) current(rel string) (text string, exists bool, doc document, open bool, err error) {
	abs := w.abs(rel)
	if d, ok := w.s.docs.get(abs); ok {
		return d.text, true, d, true, nil
	}
	if t, ok := w.s.docs.shadow(abs); ok {
		return t, true, document{}, false, nil
	}
	// Never a plain open: a named pipe would block until a writer comes;
	// and resolved beneath the root when read (os.Root), so a directory
	// swapped for a symlink since the tools checked the path reads nothing
	// outside the workspace.
	b, err := w.disk.ReadFile(context.Background(), rel)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, document{}, false, nil
	}
	if err != nil {
		return "", false, document{}, false, err
	}
	return string(b), true, document{}, false, nil
}

func (w *editorWorkspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	if p, ok := w.t.changes.Proposal(rel); ok {
		return []byte(p), nil
	}
	text, exists, _, _, err := w.current(rel)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("%s: %w", rel, os.ErrNotExist)
	}
	return []byte(text), nil
}

// OpenFiles lets grep see open buffers (tools.BufferLister).
func (w *editorWorkspace) OpenFiles() []string {
	var rels []string
	for _, p := range w.s.docs.openPaths() {
		if r, err := filepath.Rel(w.root, p); err == nil && filepath.IsLocal(r) {
			rels = append(rels, filepath.ToSlash(r))
		}
	}
	return rels
}

// View is what run_command sees instead of the disk (tools.Viewer): every
// buffer the editor holds, the texts sent to files it had closed, and in
// review mode the task's proposals.
func (w *editorWorkspace) View(ctx context.Context) map[string][]byte {
	view := map[string][]byte{}
	add := func(rel string) {
		if b, err := w.ReadFile(ctx, rel); err == nil {
			view[rel] = b
		}
	}
	for _, rel := range w.OpenFiles() {
		add(rel)
	}
	for _, fc := range w.t.changes.Applied() {
		add(fc.Rel)
	}
	for _, fc := range w.t.changes.Pending() {
		add(fc.Rel)
	}
	return view
}

// Wrote applies what a command wrote to a file the editor holds
// (tools.Viewer): the change from the text it saw to the text it left goes
// onto the buffer as it is now, through Edit (an applyEdit). Lines the
// user changed meanwhile that the command changed too keep the user's
// text, and the note says so.
func (w *editorWorkspace) Wrote(ctx context.Context, rel string, seen, next []byte) (string, error) {
	var note string
	err := w.Edit(ctx, rel, func(cur []byte, exists bool) ([]byte, error) {
		note = ""
		if !exists || bytes.Equal(cur, seen) {
			return next, nil
		}
		merged, conflicts := edits.Revert(string(next), string(seen), string(cur))
		if len(conflicts) > 0 {
			lines := make([]string, len(conflicts))
			for i, c := range conflicts {
				lines[i] = strconv.Itoa(c.Line)
			}
			note = "the user edited line " + strings.Join(lines, ", ") + " while the command ran; the command's change there was not applied, the user's text stays"
		}
		return []byte(merged), nil
	})
	return note, err
}

// Edit implements agent.Workspace. The transform runs on the text as it is
// now; when the editor rejects the edit because the user typed meanwhile,
// it runs once more on the newer text.
func (w *editorWorkspace) Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error {
	if w.t.review {
		cur, exists, _, _, err := w.current(rel)
		if err != nil {
			return err
		}
		return w.t.changes.Propose(rel, cur, exists, transform)
	}
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		old, exists, doc, open, err := w.current(rel)
		if err != nil {
			return err
		}
		nb, err := transform([]byte(old), exists)
		if err != nil {
			return err
		}
		next := string(nb)
		if exists && next == old {
			return nil
		}
		applied, reason, err := w.apply(ctx, rel, old, next, exists, doc, open)
		if err != nil {
			return err
		}
		if applied {
			w.t.changes.RecordApplied(rel, old, exists, next)
			return nil
		}
		if attempt == 2 {
			return fmt.Errorf("the editor rejected the edit to %s (%s); nothing was changed — read the file again and retry", rel, reason)
		}
		w.s.log.Info("edit rejected, retrying on the newer text", zap.String("path", rel), zap.String("reason", reason))
		if open {
			wctx, cancel := context.WithTimeout(ctx, time.Second)
			w.s.docs.waitChange(wctx, w.abs(rel), doc.version)
			cancel()
		}
	}
}

// apply sends one file's change to the editor.
func (w *editorWorkspace) apply(ctx context.Context, rel, old, next string, exists bool, doc document, open bool) (bool, string, error) {
	s := w.s
	caps, enc := s.clientState()
	abs := w.abs(rel)

	if !caps.applyEdit {
		s.sayDiskOnce(ctx)
		err := w.disk.Edit(ctx, rel, func([]byte, bool) ([]byte, error) { return []byte(next), nil })
		return err == nil, "", err
	}
	var we protocol.WorkspaceEdit
	textEdits := 0
	switch {
	case open:
		v := doc.version
		tes := edits.Compute(old, next, enc)
		textEdits = len(tes)
		we = versionedEdit(doc.uri, &v, tes, caps)
	case exists:
		we = versionedEdit(string(uri.File(abs)), nil, edits.Compute(old, next, enc), caps)
	case caps.createFiles && caps.documentChanges:
		u := uri.File(abs)
		ignore := true
		we.DocumentChanges = []protocol.DocumentChange{
			&protocol.CreateFile{Kind: "create", URI: u, Options: &protocol.CreateFileOptions{IgnoreIfExists: &ignore}},
		}
		if next != "" {
			we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{
				TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}},
				Edits:        []protocol.TextDocumentEditElement{&protocol.TextEdit{NewText: next}},
			})
		}
	default:
		// The client cannot create files: a new file holds no user work,
		// so writing it ourselves loses nothing.
		s.sayDiskOnce(ctx)
		err := w.disk.Edit(ctx, rel, func([]byte, bool) ([]byte, error) { return []byte(next), nil })
		return err == nil, "", err
	}
	label := "agentls: " + w.t.label(rel)
	if open {
		s.docs.expectEdit(abs, doc.version, next, textEdits)
	}
	res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
	if open && (err != nil || !res.Applied) {
		s.docs.settle(abs, doc.version, next, false)
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, "", ctx.Err()
		}
		return false, "", fmt.Errorf("applying the edit to %s failed: %v", rel, err)
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		return false, reason, nil
	}
	if open {
		// Wait for the didChange that reflects the edit, so the next read
		// sees it (eglot, for one, sends it half a second late).
		// Without it, the edit is taken as done anyway (Eglot may never send
		// it): the client said it applied the edit, so this is the text.
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		s.docs.waitEdited(wctx, abs, doc.version, next)
		cancel()
		if s.docs.settle(abs, doc.version, next, true) {
			s.sayDisagree(ctx, doc.uri)
		}
	} else {
		s.docs.setShadow(abs, next)
	}
	return true, "", nil
}

func versionedEdit(u string, version *int32, tes []protocol.TextEdit, caps clientCaps) protocol.WorkspaceEdit {
	if !caps.documentChanges && version == nil {
		return protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{uri.URI(u): tes}}
	}
	els := make([]protocol.TextDocumentEditElement, len(tes))
	for i := range tes {
		els[i] = &tes[i]
	}
	return protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(u)},
			Version:                version,
		},
		Edits: els,
	}}}
}

func (s *Server) sayDiskOnce(ctx context.Context) {
	s.mu.Lock()
	said := s.saidDisk
	s.saidDisk = true
	s.mu.Unlock()
	if !said {
		s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: this editor cannot apply or create files through LSP, so agentls writes these files to disk itself (atomically).")
	}
}

// newWorkspace is the editor-backed workspace of a task (t may be nil for
// reads outside a task).
func (s *Server) newWorkspace(t *runningTask) (*editorWorkspace, error) {
	root := s.rootDir()
	disk, err := tools.NewDiskWorkspace(root)
	if err != nil {
		return nil, err
	}
	return &editorWorkspace{s: s, root: root, t: t, disk: disk}, nil
}

// forgetShadow drops what we sent to a closed file that is now deleted or
// moved away.
func (o *openDocs) forgetShadow(path string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.shadows[filepath.Clean(path)]
	delete(o.shadows, filepath.Clean(path))
	return t, ok
}

// Delete implements tools.FileOps: a DeleteFile resource operation the
// editor applies (it closes the buffer and can undo it), or a delete on
// disk for a client that has no resource operations.
func (w *editorWorkspace) Delete(ctx context.Context, rel string) error {
	if w.t != nil && w.t.review {
		return fmt.Errorf("review mode proposes text changes only; deleting %s needs the user: ask them to delete it, or say it should go in your summary", rel)
	}
	caps, _ := w.s.clientState()
	abs := w.abs(rel)
	if !caps.applyEdit || !caps.documentChanges || !caps.deleteFiles {
		w.s.sayDiskOnce(ctx)
		if err := w.disk.Delete(ctx, rel); err != nil {
			return err
		}
		w.s.docs.forgetShadow(abs)
		return nil
	}
	we := protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.DeleteFile{Kind: "delete", URI: uri.File(abs)}}}
	if err := w.applyResource(ctx, "delete "+rel, we); err != nil {
		return err
	}
	w.s.docs.forgetShadow(abs)
	return nil
}

// Move implements tools.FileOps with a RenameFile resource operation, or
// on disk for a client that has none.
func (w *editorWorkspace) Move(ctx context.Context, from, to string) error {
	if w.t != nil && w.t.review {
		return fmt.Errorf("review mode proposes text changes only; moving %s needs the user: ask them to move it, or say it should go in your summary", from)
	}
	caps, _ := w.s.clientState()
	af, at := w.abs(from), w.abs(to)
	if !caps.applyEdit || !caps.documentChanges || !caps.renameFiles {
		w.s.sayDiskOnce(ctx)
		if err := w.disk.Move(ctx, from, to); err != nil {
			return err
		}
	} else {
		no := false
		we := protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.RenameFile{Kind: "rename", OldURI: uri.File(af), NewURI: uri.File(at),
			Options: &protocol.RenameFileOptions{Overwrite: &no, IgnoreIfExists: &no}}}}
		if err := w.applyResource(ctx, "move "+from+" to "+to, we); err != nil {
			return err
		}
	}
	if t, ok := w.s.docs.forgetShadow(af); ok {
		w.s.docs.setShadow(at, t)
	}
	return nil
}

func (w *editorWorkspace) applyResource(ctx context.Context, what string, we protocol.WorkspaceEdit) error {
	label := "agentls: " + what
	res, err := w.s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the editor could not %s: %v", what, err)
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		return fmt.Errorf("the editor did not %s (%s)", what, reason)
	}
	return nil
}

var _ tools.Viewer = (*editorWorkspace)(nil)
