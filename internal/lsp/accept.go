package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/review"
)

func (s *Server) cmdAccept(ctx context.Context, a reviewArgs) (any, error) {
	t, a, err := s.reviewTask("agentls.accept", a)
	if err != nil {
		return nil, err
	}
	return s.accept(ctx, t, a.URI, a.Hunk)
}

// accept applies proposals (all, a file's, or one hunk) in one
// workspace/applyEdit. Clients with change annotations get them with
// needsConfirmation, so VS Code opens its refactor preview — which can
// stay open for as long as the user likes: the plan is made under
// review.mu, the edit is sent without it, and the result is committed
// under it again, checked against the proposal it was planned from.
func (s *Server) accept(ctx context.Context, t *runningTask, only, hunk string) (any, error) {
	return s.acceptHunks(ctx, t, only, hunk, nil)
}

// acceptHunks is accept; with merge set (a worktree task's merge), every
// hunk the user has not edited over is accepted and the others are left
// proposed and added to *merge as conflicts.
func (s *Server) acceptHunks(ctx context.Context, t *runningTask, only, hunk string, merge *[]mergeConflict) (any, error) {
	caps, enc := s.clientState()
	ws, err := s.newWorkspace(t)
	if err != nil {
		return nil, err
	}
	if err := s.review.claimLocked(t, "agentls.accept"); err != nil {
		return nil, err
	}
	defer s.review.locked(func() {
		s.review.release(t)
		s.publishReview(ctx)
	})
	var (
		plan []review.Accept
		we   protocol.WorkspaceEdit
	)
	s.review.locked(func() { plan, we, err = s.planAccept(t, ws, only, hunk, caps, enc, merge) })
	if err != nil {
		return nil, err
	}
	if len(plan) == 0 { // a merge whose every hunk is a conflict
		return map[string]any{"applied": false, "accepted": 0}, nil
	}

	// The paths are checked now, when the edit goes out: a command the
	// task ran may have swapped a directory for a symlink out of the
	// workspace since the change was proposed.
	for _, p := range plan {
		if err := ws.beneath(p.Rel); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agentls.accept: %v; nothing was applied", err)
		}
	}
	if !caps.applyEdit {
		for _, p := range plan {
			next := p.Next
			if err := ws.disk.Edit(ctx, p.Rel, func([]byte, bool) ([]byte, error) { return []byte(next), nil }); err != nil {
				return nil, err
			}
		}
	} else {
		label := "agentls: accept " + shorten(t.prompt, 60)
		res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
		if err != nil {
			return nil, fmt.Errorf("agentls.accept: the editor could not apply the change: %s", clientError(err))
		}
		if !res.Applied {
			return map[string]any{"applied": false}, nil
		}
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

// planAccept plans the accept (review.PlanAccept) over the editor's text
// and makes it a workspace edit; review.mu is held.
func (s *Server) planAccept(t *runningTask, ws *editorWorkspace, only, hunk string, caps clientCaps, enc edits.Encoding, merge *[]mergeConflict) ([]review.Accept, protocol.WorkspaceEdit, error) {
	var plan []review.Accept
	var we protocol.WorkspaceEdit
	annotation := protocol.ChangeAnnotationIdentifier("agentls.review")
	for _, fc := range s.reviewFiles(t, only) {
		cur, exists, doc, open, err := ws.current(fc.Rel)
		if err != nil {
			return nil, we, err
		}
		var p review.Accept
		var ok bool
		if merge != nil {
			var conflicts []review.Hunk
			p, ok, conflicts = review.PlanMerge(fc, cur, exists)
			m := edits.NewMapper(cur)
			for _, h := range conflicts {
				mc := mergeConflict{URI: s.fileURI(fc.Rel), Hunk: h.ID,
					Range: m.OffsetsToRange(h.Cur.Start, max(h.Cur.End, min(h.Cur.Start+1, len(cur))), enc), Proposed: h.Change.NewText}
				mc.Yours, mc.Task, _, _ = review.Sides(fc, cur, h)
				*merge = append(*merge, mc)
			}
		} else {
			p, ok, err = review.PlanAccept(fc, cur, exists, hunk)
		}
		if err != nil {
			return nil, we, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.accept: %v", err)
		}
		if !ok {
			continue
		}
		u := s.fileURI(fc.Rel)
		tes := edits.TextEdits(cur, p.CurChanges, enc)
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
	if len(plan) == 0 && merge != nil {
		return nil, we, nil
	}
	if len(plan) == 0 {
		return nil, we, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.accept: nothing to accept for %s", describeTarget(reviewArgs{TaskID: t.id, URI: only, Hunk: hunk}))
	}
	if caps.changeAnnotations {
		yes := true
		desc := t.prompt
		we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			annotation: {Label: "agentls: " + shorten(t.prompt, 60), NeedsConfirmation: &yes, Description: &desc},
		}
	}
	return plan, we, nil
}

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
