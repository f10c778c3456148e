package lsp

import (
	"context"
	"sort"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/review"
)

// agentls.proposal returns a review task's proposal for one file as the
// whole text it would make of the file's current text, so an editor can
// show it in its own diff view (VS Code's vscode.diff, Neovim's :diffthis)
// beside the buffer. Hunks the user has edited over since are left out:
// accepting them is refused anyway.

type proposalArgs struct {
	TaskID string `json:"taskId"`
	URI    string `json:"uri"`
}

type proposalResult struct {
	TaskID   string `json:"taskId"`
	URI      string `json:"uri"`
	Proposed string `json:"proposed"`
	Hunks    int    `json:"hunks"`
	Conflict int    `json:"conflicts"`
}

// proposalList is agentls.proposal without a uri: the files with proposals.
type proposalList struct {
	TaskID string   `json:"taskId"`
	URIs   []string `json:"uris"`
}

func (r *reviewer) cmdProposal(ctx context.Context, a proposalArgs) (any, error) {
	if a.TaskID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.proposal: taskId is missing")
	}
	t, ok := r.tasks.get(a.TaskID)
	if !ok {
		return nil, unknownTask(a.TaskID)
	}
	if !t.review {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.proposal: task %s did not run in review mode", t.id)
	}
	var (
		res any
		err error
	)
	r.review.locked(func() { res, err = r.proposal(t, a) })
	return res, err
}

// proposal answers agentls.proposal; review.mu is held.
func (r *reviewer) proposal(t *runningTask, a proposalArgs) (any, error) {
	if a.URI == "" {
		out := proposalList{TaskID: t.id, URIs: []string{}}
		for _, fc := range r.reviewFiles(t, "") {
			out.URIs = append(out.URIs, r.ed.fileURI(fc.Rel))
		}
		sort.Strings(out.URIs)
		return out, nil
	}
	files := r.reviewFiles(t, a.URI)
	if len(files) == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.proposal: task %s proposes nothing for %s", t.id, a.URI)
	}
	ws, err := r.ed.newWorkspace(nil)
	if err != nil {
		return nil, err
	}
	fc := files[0]
	cur, _, err := ws.current(fc.Rel)
	if err != nil {
		return nil, err
	}
	res := proposalResult{TaskID: t.id, URI: a.URI}
	res.Proposed, res.Hunks, res.Conflict = review.Proposed(fc, cur)
	return res, nil
}
