package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/tools"
)

// editorWorkspace is the agent's view of files through the editor: reads
// prefer open buffers, then text we sent to files the editor had closed,
// then the disk; every write is a workspace/applyEdit, so the editor owns
// each change. Only a client without applyEdit gets files written to disk
// by agentls itself (atomically).
type editorWorkspace struct {
	root string
	t    *runningTask
	disk *tools.DiskWorkspace

	// The server's parts it works with.
	files   func() (*apply.Applier, error) // the write path
	docs    *openDocs
	client  protocol.Client                     // workspace/applyEdit of a move
	caps    func() (clientCaps, edits.Encoding) // what the client can apply
	sayDisk func(ctx context.Context)           // once: agentls writes to disk itself
}

func (w *editorWorkspace) Root() string { return w.root }

func (w *editorWorkspace) abs(rel string) string {
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

// current returns the file's text as the user sees it now (the write
// path's view: the buffer, what agentls sent to a closed file, the disk).
func (w *editorWorkspace) current(rel string) (text string, exists bool, err error) {
	files, err := w.files()
	if err != nil {
		return "", false, err
	}
	t, err := files.Transport().Read(context.Background(), rel)
	return t.Data, t.Exists, err
}

func (w *editorWorkspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	if p, ok := w.t.changes.Proposal(rel); ok {
		return []byte(p), nil
	}
	text, exists, err := w.current(rel)
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
	for _, p := range w.docs.openPaths() {
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
	// What agentls sent to files the editor has not opened is part of its
	// view of the workspace too.
	for abs := range w.docs.shadowed() {
		if rel, ok := relTo(w.root, abs); ok {
			add(rel)
		}
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

// Edit implements agent.Workspace through the server's write path: the
// transform runs on the text as it is now and the result goes out over
// that text only; when the user typed meanwhile, or the editor dropped
// the edit, it runs again on the newer text.
func (w *editorWorkspace) Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error {
	if w.t.review {
		cur, exists, err := w.current(rel)
		if err != nil {
			return err
		}
		return w.t.changes.Propose(rel, cur, exists, transform)
	}
	files, err := w.files()
	if err != nil {
		return err
	}
	c, err := files.Edit(ctx, rel, "agentls: "+w.t.label(rel), func(cur apply.Text) (string, error) {
		nb, err := transform([]byte(cur.Data), cur.Exists)
		return string(nb), err
	})
	if reason, ok := refusedReason(err); ok {
		return fmt.Errorf("the editor rejected the edit to %s (%s); nothing was changed — read the file again and retry", rel, reason)
	}
	if err != nil {
		return err
	}
	if !c.Noop() {
		w.t.changes.RecordApplied(rel, c.Cur.Data, c.Cur.Exists, c.Next)
	}
	return nil
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

// Delete implements tools.FileOps through the write path: a DeleteFile
// resource operation the editor applies (it closes the buffer and can
// undo it), or a delete on disk for a client that has no resource
// operations; either only while the file is the text the task last read.
func (w *editorWorkspace) Delete(ctx context.Context, rel string) error {
	if w.t != nil && w.t.review {
		return fmt.Errorf("review mode proposes text changes only; deleting %s needs the user: ask them to delete it, or say it should go in your summary", rel)
	}
	files, err := w.files()
	if err != nil {
		return err
	}
	_, err = files.Apply(ctx, []string{rel}, apply.Batch{Label: "agentls: delete " + rel}, func(cur map[string]apply.Text) ([]apply.Change, error) {
		if !cur[rel].Exists {
			return nil, fmt.Errorf("%s: %w", rel, os.ErrNotExist)
		}
		return []apply.Change{{Rel: rel, Cur: cur[rel], Delete: true}}, nil
	})
	if reason, ok := refusedReason(err); ok {
		return fmt.Errorf("the editor did not delete %s (%s)", rel, reason)
	}
	return err
}

// Move implements tools.FileOps with a RenameFile resource operation, or
// on disk for a client that has none.
func (w *editorWorkspace) Move(ctx context.Context, from, to string) error {
	if w.t != nil && w.t.review {
		return fmt.Errorf("review mode proposes text changes only; moving %s needs the user: ask them to move it, or say it should go in your summary", from)
	}
	caps, _ := w.caps()
	af, at := w.abs(from), w.abs(to)
	if !caps.applyEdit || !caps.documentChanges || !caps.renameFiles {
		w.sayDisk(ctx)
		if err := w.disk.Move(ctx, from, to); err != nil {
			return err
		}
	} else {
		// Checked now, when the rename goes out (the editor renames by
		// name): both paths beneath the root, as the write path checks
		// its changes (a command may have swapped a directory for a
		// symlink out since the tool checked them).
		for _, rel := range []string{from, to} {
			if err := tools.Beneath(w.root, rel); err != nil {
				return fmt.Errorf("%w: %v", apply.ErrMoved, err)
			}
		}
		no := false
		we := protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.RenameFile{Kind: "rename", OldURI: uri.File(af), NewURI: uri.File(at),
			Options: &protocol.RenameFileOptions{Overwrite: &no, IgnoreIfExists: &no}}}}
		if err := w.applyResource(ctx, "move "+from+" to "+to, we); err != nil {
			return err
		}
	}
	if t, ok := w.docs.forgetShadow(af); ok {
		w.docs.setShadow(at, t)
	}
	return nil
}

func (w *editorWorkspace) applyResource(ctx context.Context, what string, we protocol.WorkspaceEdit) error {
	label := "agentls: " + what
	res, err := w.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
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

// Carried records a file a command's view wrote into the tree itself (one
// the editor does not hold) in the task's change log, so undo and rewind
// cover what commands wrote (tools.Carrier).
func (w *editorWorkspace) Carried(rel string, old []byte, existed bool, next []byte) {
	if w.t == nil || w.t.review {
		return
	}
	w.t.changes.RecordApplied(rel, string(old), existed, string(next))
}

// CarriedDelete records a file a command's view deleted in the task's
// change log, so undo makes it again (tools.Carrier).
func (w *editorWorkspace) CarriedDelete(rel string, old []byte, mode fs.FileMode) {
	if w.t == nil || w.t.review {
		return
	}
	w.t.changes.RecordDeleted(rel, string(old), mode)
}

// CarryFile writes a file the editor does not hold that a command's view
// carried in (tools.CarryWriter): through the write path, read as it reads
// and written by its disk transport (carriedFiles), taking its turn with
// the editor's changes, over old only. In
// review mode it becomes a proposal instead; a deletion is left to the
// user there (proposals are text).
func (w *editorWorkspace) CarryFile(ctx context.Context, rel string, old []byte, existed bool, next []byte, del bool) error {
	if w.ProposesCarry() {
		if del {
			return errors.New("deleted by the command; review mode proposes text only, so it is left for you to delete")
		}
		return w.Edit(ctx, rel, func(cur []byte, exists bool) ([]byte, error) {
			if exists != existed || !bytes.Equal(cur, old) {
				return nil, apply.ErrChangedMeanwhile
			}
			return next, nil
		})
	}
	files, err := w.files()
	if err != nil {
		return err
	}
	ef, ok := files.Transport().(*editorFiles)
	if !ok {
		return fmt.Errorf("no write path for %s", rel)
	}
	return apply.Carry(ctx, files.Over(carriedFiles{ef}), rel, old, existed, next, del)
}

// ProposesCarry: in review mode a command's writes are proposals
// (tools.CarryProposer).
func (w *editorWorkspace) ProposesCarry() bool { return w.t != nil && w.t.review }

var (
	_ tools.Viewer        = (*editorWorkspace)(nil)
	_ tools.Carrier       = (*editorWorkspace)(nil)
	_ tools.CarryProposer = (*editorWorkspace)(nil)
)
