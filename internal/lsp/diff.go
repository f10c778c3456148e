package lsp

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/internal/edits"
)

// diffResult is agentls.diff's answer: what a task applied, as the unified
// diff `agentls sessions show --diff` prints, for an editor's diff view.
type diffResult struct {
	TaskID string   `json:"taskId"`
	Diff   string   `json:"diff"`             // "" when nothing applied is left
	Files  []string `json:"files"`            // workspace-relative, in the order changed
	Reason string   `json:"reason,omitempty"` // why Diff is empty
}

// cmdDiff answers with what the task (default: the newest that changed
// files) applied and did not undo: from the text before its first change
// to the text after its last, per file.
func (r *reviewer) cmdDiff(ctx context.Context, a taskIDArgs) (any, error) {
	if a.TaskID == "" {
		for _, t := range r.tasks.all() {
			if t.changes.HasApplied() {
				a.TaskID = t.id
			}
		}
		if a.TaskID == "" {
			return diffResult{Files: []string{}, Reason: "no task has applied changes"}, nil
		}
	}
	t, ok := r.tasks.get(a.TaskID)
	if !ok {
		return diffResult{TaskID: a.TaskID, Files: []string{}, Reason: fmt.Sprintf("no task %q (agentls.status lists the tasks)", a.TaskID)}, nil
	}
	res := diffResult{TaskID: t.id, Files: []string{}}
	forgotten := t.changes.Forgotten()
	for _, fc := range t.changes.Applied() {
		pa, pb := "a/"+fc.Rel, "b/"+fc.Rel
		if !fc.Existed {
			pa = "/dev/null"
		}
		res.Diff += edits.Unified(pa, pb, fc.Base, fc.After, -1)
		res.Files = append(res.Files, fc.Rel)
	}
	switch {
	case res.Diff != "":
	case forgotten:
		res.Reason = fmt.Sprintf("task %s is too old: its texts were dropped", t.id)
	case t.review && !t.ended():
		res.Reason = fmt.Sprintf("task %s is still running", t.id)
	case t.review:
		res.Reason = fmt.Sprintf("review task %s: nothing accepted (its proposals are in agentls.proposal)", t.id)
	default:
		res.Reason = fmt.Sprintf("task %s changed no file, or its changes were undone", t.id)
	}
	return res, nil
}
