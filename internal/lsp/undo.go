package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
)

// conflictJSON is one region undo left alone.
type conflictJSON struct {
	URI    string `json:"uri"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// undoResult is agentls.undo's answer. Undo that cannot happen is an
// answer with a reason, never a JSON-RPC error: editors show those raw.
type undoResult struct {
	Applied   bool           `json:"applied"`
	Conflicts []conflictJSON `json:"conflicts"`
	Reason    string         `json:"reason,omitempty"`
}

func refused(format string, args ...any) undoResult {
	return undoResult{Conflicts: []conflictJSON{}, Reason: fmt.Sprintf(format, args...)}
}

// undoable reports whether agentls.undo can revert the task now.
func (t *runningTask) undoable() bool {
	return t.ended() && t.changes.HasApplied()
}

// restore sends the edit that takes the files in done back to their
// states (undo, rewind; a state without Exists is a deletion), or where
// the client cannot apply edits writes their texts to disk, then removes
// toDelete beneath the root. why says the editor
// refused; what names the act in that sentence.
func (s *Server) restore(ctx context.Context, ws *editorWorkspace, caps clientCaps, what, label string, we protocol.WorkspaceEdit, done []session.FileState, toDelete []string) (why string, err error) {
	if len(we.DocumentChanges) > 0 {
		if caps.applyEdit {
			r, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
			switch {
			case err != nil:
				return "the editor could not apply the " + what + ": " + clientError(err), nil
			case !r.Applied:
				why := "the editor did not apply the " + what
				if r.FailureReason != nil {
					why += ": " + *r.FailureReason
				}
				return why, nil
			}
		} else {
			for _, d := range done {
				if d.Exists {
					next := d.Text
					if err := ws.disk.Edit(ctx, d.Path, func([]byte, bool) ([]byte, error) { return []byte(next), nil }); err != nil {
						return "", err
					}
				}
			}
		}
	}
	for _, rel := range toDelete {
		if err := assemble.RemoveBeneath(ws.root, rel); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	}
	return "", nil
}

// cmdUndo reverts every change a task applied, across files, as one
// workspace/applyEdit computed against the current text: regions the user
// changed since are left alone and reported. Like accept, it plans under
// review.mu and sends the edit without it.
func (s *Server) cmdUndo(ctx context.Context, a taskIDArgs) (any, error) {
	if a.TaskID == "" {
		// The newest task with changes to undo (Helix key bindings cannot
		// name a task).
		for _, t := range s.tasks.all() {
			if t.undoable() {
				a.TaskID = t.id
			}
		}
		if a.TaskID == "" {
			return refused("no task has changes to undo"), nil
		}
	}
	t, ok := s.tasks.get(a.TaskID)
	switch {
	case !ok:
		return refused("no task %q (agentls.status lists the tasks; only the newest %d keep what undo needs)", a.TaskID, undoKeep), nil
	case !t.ended():
		return refused("task %s is still running; cancel it first", t.id), nil
	}
	caps, enc := s.clientState()
	ws, err := s.newWorkspace(t)
	if err != nil {
		return nil, err
	}

	if err := s.review.claimLocked(t, "agentls.undo"); err != nil {
		return refused("%s", strings.TrimPrefix(err.Error(), "agentls.undo: ")), nil
	}
	defer s.review.locked(func() { s.review.release(t) })
	var (
		p   undoPlan
		why string
	)
	s.review.locked(func() { p, why, err = s.planUndo(t, ws, caps, enc) })
	switch {
	case err != nil:
		return nil, err
	case why != "":
		return refused("%s", why), nil
	}
	we, conflicts, done, toDelete := p.edit, p.conflicts, p.done, p.toDelete
	// Checked when the edit goes out, as for accept.
	for _, d := range done {
		if err := ws.beneath(d.Path); err != nil {
			return refused("%v; nothing was undone", err), nil
		}
	}
	res := undoResult{Applied: true, Conflicts: conflicts}
	why, err = s.restore(ctx, ws, caps, "undo", "agentls: undo "+shorten(t.prompt, 60), we, done, toDelete)
	if err != nil {
		return nil, err
	}
	if why != "" {
		res.Applied, res.Reason = false, why
	}
	if res.Applied {
		for _, d := range done {
			t.changes.CommitUndo(d.Path)
		}
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
	return res, nil
}

// undoPlan is what an undo will do, planned against the current text.
type undoPlan struct {
	edit      protocol.WorkspaceEdit
	conflicts []conflictJSON
	done      []session.FileState
	toDelete  []string // files the task created, deleted from disk (no applyEdit)
}

// planUndo plans reverting the task's applied changes; review.mu is held.
// why is set when there is nothing to undo.
func (s *Server) planUndo(t *runningTask, ws *editorWorkspace, caps clientCaps, enc edits.Encoding) (p undoPlan, why string, err error) {
	files := t.changes.Applied()
	if len(files) == 0 {
		if t.changes.Forgotten() {
			return p, fmt.Sprintf("task %s is too old to undo (only the newest %d tasks keep what undo needs)", t.id, undoKeep), nil
		}
		return p, fmt.Sprintf("task %s changed no files (or was undone already)", t.id), nil
	}
	p.conflicts = []conflictJSON{}
	for _, fc := range files {
		cur, exists, doc, open, err := ws.current(fc.Rel)
		if err != nil {
			return p, "", err
		}
		u := s.fileURI(fc.Rel)
		plan := review.PlanUndo(fc, cur, exists)
		for _, c := range plan.Conflicts {
			p.conflicts = append(p.conflicts, conflictJSON{URI: u, Line: c.Line, Reason: c.Reason})
		}
		switch {
		case plan.Delete && caps.applyEdit && caps.deleteFiles:
			p.edit.DocumentChanges = append(p.edit.DocumentChanges, &protocol.DeleteFile{Kind: "delete", URI: uri.URI(u)})
			p.done = append(p.done, session.FileState{Path: fc.Rel})
		case plan.Delete && !caps.applyEdit:
			p.toDelete = append(p.toDelete, fc.Rel)
			p.done = append(p.done, session.FileState{Path: fc.Rel})
		case plan.Delete:
			p.conflicts = append(p.conflicts, conflictJSON{URI: u, Line: 1, Reason: "the task created this file; this editor cannot delete files through LSP, delete it by hand"})
		case len(plan.Changes) > 0:
			var version *int32
			if open {
				v := doc.version
				version = &v
			}
			p.edit.DocumentChanges = append(p.edit.DocumentChanges, versionedEdit(u, version, edits.TextEdits(cur, plan.Changes, enc), clientCaps{documentChanges: true}).DocumentChanges...)
			p.done = append(p.done, session.FileState{Path: fc.Rel, Exists: true, Text: plan.Next})
		}
	}
	return p, "", nil
}
