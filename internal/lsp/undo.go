package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/review"
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

// undoPlan is what an undo will do, planned against the current text.
type undoPlan struct {
	changes   []apply.Change
	conflicts []conflictJSON
}

// restore carries a plan of undo or rewind through the write path: plan
// runs on the texts read (and again on newer ones when the user typed
// meanwhile). why says the editor refused; what names the act in that
// sentence.
func (r *reviewer) restore(ctx context.Context, rels []string, what, label string, plan apply.Plan) (why string, err error) {
	files, err := r.ed.files()
	if err != nil {
		return "", err
	}
	_, err = files.Apply(ctx, rels, apply.Batch{Label: label}, plan)
	if reason, ok := refusedReason(err); ok {
		return "the editor did not apply the " + what + ": " + reason, nil
	}
	switch {
	case errors.Is(err, apply.ErrMoved):
		return err.Error(), nil
	case err != nil && ctx.Err() == nil && !errors.Is(err, apply.ErrStale):
		return "the editor could not apply the " + what + ": " + err.Error(), nil
	}
	return "", err
}

// cmdUndo reverts every change a task applied, across files, as one
// workspace/applyEdit computed against the current text: regions the user
// changed since are left alone and reported. Like accept, it plans under
// review.mu and sends the edit without it.
func (r *reviewer) cmdUndo(ctx context.Context, a taskIDArgs) (any, error) {
	if a.TaskID == "" {
		// The newest task with changes to undo (Helix key bindings cannot
		// name a task).
		for _, t := range r.tasks.all() {
			if t.undoable() {
				a.TaskID = t.id
			}
		}
		if a.TaskID == "" {
			return refused("no task has changes to undo"), nil
		}
	}
	t, ok := r.tasks.get(a.TaskID)
	switch {
	case !ok:
		return refused("no task %q (agentls.status lists the tasks; only the newest %d keep what undo needs)", a.TaskID, undoKeep), nil
	case !t.ended():
		return refused("task %s is still running; cancel it first", t.id), nil
	}
	caps, _ := r.ed.clientState()
	if err := r.review.claimLocked(t, "agentls.undo"); err != nil {
		return refused("%s", strings.TrimPrefix(err.Error(), "agentls.undo: ")), nil
	}
	defer r.review.locked(func() { r.review.release(t) })
	files := t.changes.Applied()
	if len(files) == 0 {
		if t.changes.Forgotten() {
			return refused("task %s is too old to undo (only the newest %d tasks keep what undo needs)", t.id, undoKeep), nil
		}
		return refused("task %s changed no files (or was undone already)", t.id), nil
	}
	var rels []string
	for _, fc := range files {
		rels = append(rels, fc.Rel)
	}
	var p undoPlan
	why, err := r.restore(ctx, rels, "undo", "agentls: undo "+shorten(t.prompt, 60), func(cur map[string]apply.Text) ([]apply.Change, error) {
		p = r.planUndo(files, cur, caps)
		return p.changes, nil
	})
	if err != nil {
		return nil, err
	}
	conflicts := p.conflicts
	res := undoResult{Applied: true, Conflicts: conflicts}
	if why != "" {
		res.Applied, res.Reason = false, why+"; nothing was undone"
	}
	if res.Applied {
		for _, c := range p.changes {
			t.changes.CommitUndo(c.Rel)
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
		r.ed.showMessage(ctx, protocol.MessageTypeWarning, "agentls: undid task %s except where you edited since: %s", t.id, strings.Join(where, ", "))
	}
	return res, nil
}

// planUndo plans reverting the task's applied changes to files over the
// texts read.
func (r *reviewer) planUndo(files []review.File, cur map[string]apply.Text, caps clientCaps) (p undoPlan) {
	p.conflicts = []conflictJSON{}
	for _, fc := range files {
		c := cur[fc.Rel]
		u := r.ed.fileURI(fc.Rel)
		plan := review.PlanUndo(fc, c.Data, c.Exists)
		for _, cf := range plan.Conflicts {
			p.conflicts = append(p.conflicts, conflictJSON{URI: u, Line: cf.Line, Reason: cf.Reason})
		}
		switch {
		case plan.Delete && caps.applyEdit && !(caps.deleteFiles && caps.documentChanges):
			p.conflicts = append(p.conflicts, conflictJSON{URI: u, Line: 1, Reason: "the task created this file; this editor cannot delete files through LSP, delete it by hand"})
		case plan.Delete:
			p.changes = append(p.changes, apply.Change{Rel: fc.Rel, Cur: c, Delete: true})
		case plan.Restore: // a file the task's command deleted
			p.changes = append(p.changes, apply.Change{Rel: fc.Rel, Cur: c, Next: plan.Next, Mode: plan.Mode})
		case len(plan.Changes) > 0:
			p.changes = append(p.changes, apply.Change{Rel: fc.Rel, Cur: c, Next: plan.Next})
		}
	}
	return p
}
