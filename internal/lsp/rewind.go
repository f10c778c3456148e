package lsp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
)

// rewindArgs names a session by one of its tasks or by its ID, and a step.
type rewindArgs struct {
	TaskID  string `json:"taskId,omitempty"`
	Session string `json:"session,omitempty"`
	Step    *int   `json:"step,omitempty"`
}

type stepJSON struct {
	Step    int      `json:"step"`
	TaskID  string   `json:"taskId"`
	Prompt  string   `json:"prompt"`
	Summary string   `json:"summary"`
	Files   []string `json:"files"`
}

type checkpointsResult struct {
	Session string     `json:"session"`
	Steps   []stepJSON `json:"steps"`
	// Rewound is the step the session was last rewound to; -1: never.
	Rewound int `json:"rewound"`
}

type rewindResult struct {
	Applied   bool           `json:"applied"`
	Session   string         `json:"session,omitempty"`
	Step      int            `json:"step"`
	Files     []string       `json:"files"`
	Conflicts []conflictJSON `json:"conflicts"`
	Reason    string         `json:"reason,omitempty"`
}

func rewindRefused(format string, args ...any) rewindResult {
	return rewindResult{Files: []string{}, Conflicts: []conflictJSON{}, Reason: fmt.Sprintf(format, args...)}
}

// checkpointArgs name the session whose steps agentls.checkpoints lists.
type checkpointArgs struct {
	TaskID  string `json:"taskId,omitempty"`
	Session string `json:"session,omitempty"`
}

func checkpointsJSON(sess *session.Session) checkpointsResult {
	prompts := map[int]string{}
	for _, t := range sess.Tasks {
		prompts[t.Seq] = t.Prompt
	}
	res := checkpointsResult{Session: sess.ID, Steps: []stepJSON{}, Rewound: sess.Rewound}
	for _, cp := range sess.Steps() {
		sj := stepJSON{Step: cp.Step, TaskID: cp.Task, Prompt: prompts[cp.Seq], Summary: cp.Summary, Files: []string{}}
		for _, f := range cp.Files {
			sj.Files = append(sj.Files, f.Path)
		}
		res.Steps = append(res.Steps, sj)
	}
	return res
}

// rewindSession resolves the session a rewind command names and loads it.
func (r *reviewer) rewindSession(ctx context.Context, name string, a rewindArgs) (*session.Store, *session.Session, error) {
	id := a.Session
	if a.TaskID != "" {
		t, ok := r.tasks.get(a.TaskID)
		if !ok {
			return nil, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no task %q (agentls.status lists the tasks; name the session instead)", name, a.TaskID)
		}
		id = t.session
	}
	if id == "" {
		return nil, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: needs {taskId} or {session}", name)
	}
	if !session.ValidID(id) {
		return nil, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %q is not a session id", name, id)
	}
	st := r.conf.openStore(ctx, r.conf.config(), r.ed.rootDir())
	if st == nil {
		return nil, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: sessions are not saved here, so there are no steps", name)
	}
	sess, err := st.Load(id)
	if errors.Is(err, session.ErrNotFound) {
		return nil, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no session %q in this workspace (agentls sessions lists them)", name, id)
	}
	if err != nil {
		return nil, nil, err
	}
	return st, sess, nil
}

// cmdCheckpoints lists a session's steps, for a picker.
func (r *reviewer) cmdCheckpoints(ctx context.Context, a checkpointArgs) (any, error) {
	_, sess, err := r.rewindSession(ctx, "agentls.checkpoints", rewindArgs{TaskID: a.TaskID, Session: a.Session})
	if err != nil {
		return nil, err
	}
	return checkpointsJSON(sess), nil
}

// cmdRewind puts the files a session's tasks changed back as they were at
// a step, as one workspace/applyEdit computed three-way against the
// current text (what the user typed since stays, regions both changed are
// left alone and reported), and cuts the session's conversation there, so
// that agentls.continue goes on from that step.
func (r *reviewer) cmdRewind(ctx context.Context, a rewindArgs) (any, error) {
	if a.Step == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "agentls.rewind: needs {taskId or session, step}")
	}
	st, sess, err := r.rewindSession(ctx, "agentls.rewind", a)
	if err != nil {
		return nil, err
	}
	// The session's tasks this server ran: none may be running, and the
	// newest is claimed against a concurrent accept or undo.
	var newest *runningTask
	for _, t := range r.tasks.all() {
		if t.session != sess.ID {
			continue
		}
		if !t.ended() {
			return rewindRefused("task %s of session %s is still running; cancel it first", t.id, sess.ID), nil
		}
		newest = t
	}
	plan, err := sess.PlanRewind(*a.Step)
	if err != nil {
		return rewindRefused("%v", err), nil
	}
	if newest == nil {
		newest = &runningTask{id: "rewind", session: sess.ID, done: make(chan struct{})}
	}
	if err := r.review.claimLocked(newest, "agentls.rewind"); err != nil {
		return rewindRefused("%s", strings.TrimPrefix(err.Error(), "agentls.rewind: ")), nil
	}
	defer r.review.locked(func() { r.review.release(newest) })

	caps, _ := r.ed.clientState()
	var rels []string
	for _, f := range plan.Files {
		rels = append(rels, f.Path)
	}
	var (
		changes   []apply.Change
		conflicts []conflictJSON
	)
	why, err := r.restore(ctx, rels, "rewind", fmt.Sprintf("agentls: rewind to step %d", plan.Step), func(cur map[string]apply.Text) ([]apply.Change, error) {
		changes, conflicts = nil, []conflictJSON{}
		for _, f := range plan.Files {
			c := cur[f.Path]
			u := r.ed.fileURI(f.Path)
			p := review.PlanRewind(f.Path, f.From.Exists, f.From.Text, f.To.Exists, f.To.Text, c.Data, c.Exists)
			for _, cf := range p.Conflicts {
				conflicts = append(conflicts, conflictJSON{URI: u, Line: cf.Line, Reason: cf.Reason})
			}
			switch {
			case p.Delete && caps.applyEdit && !(caps.deleteFiles && caps.documentChanges):
				conflicts = append(conflicts, conflictJSON{URI: u, Line: 1, Reason: "the file did not exist at this step; this editor cannot delete files through LSP, delete it by hand"})
			case p.Delete:
				changes = append(changes, apply.Change{Rel: f.Path, Cur: c, Delete: true})
			case p.Restore: // a file a command deleted
				changes = append(changes, apply.Change{Rel: f.Path, Cur: c, Next: p.Next, Mode: f.To.Mode})
			case len(p.Changes) > 0:
				changes = append(changes, apply.Change{Rel: f.Path, Cur: c, Next: p.Next})
			}
		}
		return changes, nil
	})
	if err != nil {
		return nil, err
	}
	if why != "" {
		return rewindRefused("%s; nothing was rewound", why), nil
	}
	res := rewindResult{Applied: true, Session: sess.ID, Step: plan.Step, Files: []string{}, Conflicts: conflicts}
	// Undo of the newest task goes on reverting its changes only: what
	// the rewind did counts as its change.
	for _, c := range changes {
		res.Files = append(res.Files, c.Rel)
		if !c.Delete {
			newest.changes.RecordApplied(c.Rel, c.Cur.Data, true, c.Next)
		} else {
			newest.changes.CommitUndo(c.Rel)
		}
	}
	if err := st.Rewound(plan); err != nil {
		return nil, err
	}
	sort.Slice(res.Conflicts, func(i, j int) bool {
		return res.Conflicts[i].URI < res.Conflicts[j].URI || res.Conflicts[i].URI == res.Conflicts[j].URI && res.Conflicts[i].Line < res.Conflicts[j].Line
	})
	if len(res.Conflicts) > 0 {
		r.ed.showMessage(ctx, protocol.MessageTypeWarning, "agentls: rewound session %s to step %d except where you edited since (%d places)", sess.ID, plan.Step, len(res.Conflicts))
	}
	return res, nil
}
