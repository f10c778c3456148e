package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/tools"
)

// clientError says what a failed request to the client reported, without
// the JSON-RPC wrapping.
func clientError(err error) string {
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return je.Message
	}
	return err.Error()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (r *reviewer) cmdAccept(ctx context.Context, a reviewArgs) (any, error) {
	t, a, err := r.reviewTask("agentls.accept", a)
	if err != nil {
		return nil, err
	}
	if t.isolation == assemble.IsolationWorktree {
		// A worktree task's commands wrote files nobody was asked about:
		// a protected one is asked about now (acceptAsked).
		applied, n, leftOut, err := r.acceptAsked(ctx, t, a.URI, a.Hunk, nil, false)
		if err != nil {
			return nil, err
		}
		return map[string]any{"applied": applied, "accepted": n, "leftOut": append([]string{}, leftOut...)}, nil
	}
	return r.accept(ctx, t, a.URI, a.Hunk)
}

// accept applies proposals (all, a file's, or one hunk) in one
// workspace/applyEdit. Clients with change annotations get them with
// needsConfirmation, so VS Code opens its refactor preview — which can
// stay open for as long as the user likes: the plan is made under
// review.mu, the edit is sent without it, and the result is committed
// under it again, checked against the proposal it was planned from.
func (r *reviewer) accept(ctx context.Context, t *runningTask, only, hunk string) (any, error) {
	return r.acceptHunks(ctx, t, only, hunk, nil, false)
}

// acceptHunks is accept; with merge set (a worktree task's merge), every
// hunk the user has not edited over is accepted and the others are left
// proposed and added to *merge as conflicts (with markers, the asked-for
// whole merge is written instead, each conflict between git's markers).
// The plan is made by
// internal/review on the texts the write path read, and goes out over
// them only (planned again if the user typed meanwhile).
func (r *reviewer) acceptHunks(ctx context.Context, t *runningTask, only, hunk string, merge *[]mergeConflict, markers bool) (any, error) {
	files, err := r.ed.files()
	if err != nil {
		return nil, err
	}
	if err := r.review.claimLocked(t, "agentls.accept"); err != nil {
		return nil, err
	}
	defer r.review.locked(func() {
		r.review.release(t)
		r.publishReview(ctx)
	})
	var rels []string
	r.review.locked(func() {
		for _, fc := range r.reviewFiles(t, only) {
			rels = append(rels, fc.Rel)
		}
	})
	var plan []review.Accept
	var conflicts []mergeConflict
	label := "agentls: accept " + shorten(t.prompt, 60)
	_, err = files.Apply(ctx, rels, apply.Batch{Label: label, Confirm: true}, func(cur map[string]apply.Text) (cs []apply.Change, err error) {
		conflicts = nil
		r.review.locked(func() { plan, err = r.planAccept(t, cur, only, hunk, merge != nil, markers, &conflicts) })
		for _, p := range plan {
			cs = append(cs, apply.Change{Rel: p.Rel, Cur: cur[p.Rel], Next: p.Next})
		}
		return cs, err
	})
	if merge != nil {
		*merge = append(*merge, conflicts...)
	}
	var je *jsonrpc2.Error
	switch _, refused := refusedReason(err); {
	case refused:
		return map[string]any{"applied": false}, nil
	case errors.Is(err, apply.ErrMoved):
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agentls.accept: %v; nothing was applied", err)
	case errors.As(err, &je):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("agentls.accept: %v", err)
	}
	if len(plan) == 0 { // a merge whose every hunk is a conflict
		return map[string]any{"applied": false, "accepted": 0}, nil
	}

	n := 0
	var moved []string
	for _, p := range plan {
		if !t.changes.CommitAccept(p.Rel, p.Gen, p.Accepted, p.Cur, p.Existed, p.Next) {
			moved = append(moved, p.Rel)
			continue
		}
		n += len(p.Accepted)
		t.mu.Lock()
		if !contains(t.result.FilesChanged, p.Rel) {
			t.result.FilesChanged = append(t.result.FilesChanged, p.Rel)
		}
		t.mu.Unlock()
	}
	if len(moved) > 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls.accept: the proposals of %v changed while the editor applied them; check the files and review again", moved)
	}
	return map[string]any{"applied": true, "accepted": n}, nil
}

// planAccept plans the accept (review.PlanAccept, or PlanMerge for a
// merge, whose conflicts go to *conflicts) over the texts read; review.mu
// is held.
func (r *reviewer) planAccept(t *runningTask, cur map[string]apply.Text, only, hunk string, merge, markers bool, conflicts *[]mergeConflict) ([]review.Accept, error) {
	_, enc := r.ed.clientState()
	var plan []review.Accept
	for _, fc := range r.reviewFiles(t, only) {
		c, read := cur[fc.Rel]
		if !read {
			continue // proposed since the accept began: the next one
		}
		var p review.Accept
		var ok bool
		var err error
		if merge {
			var left []review.Hunk
			p, ok, left = review.PlanMerge(fc, c.Data, c.Exists)
			m := edits.NewMapper(c.Data)
			for _, h := range left {
				mc := mergeConflict{URI: r.ed.fileURI(fc.Rel), Hunk: h.ID,
					Range: m.OffsetsToRange(h.Cur.Start, max(h.Cur.End, min(h.Cur.Start+1, len(c.Data))), enc), Proposed: h.Change.NewText}
				mc.Yours, mc.Task, _, _ = review.Sides(fc, c.Data, h)
				*conflicts = append(*conflicts, mc)
			}
			if markers && len(left) > 0 {
				m := edits.Merge3Markers(fc.ReviewBase, c.Data, fc.Proposed, edits.Markers{Ours: "yours", Theirs: "task " + t.id})
				p = review.Accept{Rel: fc.Rel, Gen: fc.Gen, Cur: c.Data, Existed: c.Exists, Next: m.Text,
					Accepted: edits.Diff(fc.ReviewBase, fc.Proposed)}
				ok = true
			}
		} else {
			p, ok, err = review.PlanAccept(fc, c.Data, c.Exists, hunk)
		}
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.accept: %v", err)
		}
		if ok {
			plan = append(plan, p)
		}
	}
	if len(plan) == 0 && !merge {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.accept: nothing to accept for %s", describeTarget(reviewArgs{TaskID: t.id, URI: only, Hunk: hunk}))
	}
	return plan, nil
}

// acceptAsked accepts a worktree task's proposals (only: one file's URI,
// or "" for all; hunk: one hunk of it) as acceptHunks does, after asking
// about each protected file among them (a protected name at any depth,
// .gitattributes, or where a protected symlink leads) as any write to it
// is asked about: nobody asked about them when a command of the task
// made them. One the user does not allow stays proposed and is returned
// in leftOut.
func (r *reviewer) acceptAsked(ctx context.Context, t *runningTask, only, hunk string, merge *[]mergeConflict, markers bool) (applied bool, merged int, leftOut []string, err error) {
	var uris []string
	for _, fc := range r.reviewFiles(t, only) {
		if ok, why := tools.ProtectedWrite(r.ed.rootDir(), fc.Rel, ""); ok {
			if yes, err := r.asker.confirmWrite(ctx, fc.Rel, why); err != nil || !yes {
				leftOut = append(leftOut, fc.Rel)
				continue
			}
		}
		uris = append(uris, r.ed.fileURI(fc.Rel))
	}
	if len(leftOut) == 0 {
		uris = []string{only} // as asked, in one applyEdit
	}
	for _, uri := range uris {
		out, err := r.acceptHunks(ctx, t, uri, hunk, merge, markers)
		if err != nil {
			return applied, merged, leftOut, err
		}
		if m, ok := out.(map[string]any); ok {
			a, _ := m["applied"].(bool)
			n, _ := m["accepted"].(int)
			applied = applied || a
			merged += n
		}
	}
	return applied, merged, leftOut, nil
}
