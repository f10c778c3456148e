package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/worktree"
)

// Worktree tasks (agent.isolation "worktree"): the task works in a git
// worktree of its own (internal/worktree, made by assemble.Run); when it
// ends, its whole change is held as a review-mode proposal against the
// snapshot the worktree was made from, so accepting, rejecting, the
// diagnostics and the diff are review mode's (review.go, accept.go), and
// placing its hunks in the user's text as it is now is the three-way
// merge. The worktree outlives the task and the server: agentls.worktrees
// lists them (those a crashed server left too), and merge, review,
// continue and discard act on one.

// worktrees manages the worktree tasks: it decides a task's isolation,
// wires a worktree into its TaskConfig, lists the workspace's worktrees
// and merges, reviews, continues or discards one. Their proposals are the
// reviewer's.
type worktrees struct {
	ed       *editor
	docs     *openDocs // the open buffers a worktree's snapshot takes
	tasks    *taskManager
	reviewer *reviewer
	conf     *configState
	log      *zap.Logger
	stateDir string // holds the worktrees' records
	// start starts a task (the server's startRun), for a follow-up.
	start func(name string, a runArgs, mustExist bool) (any, error)
}

// worktreeSummary is res with, for a worktree task, where its change is
// and what to do with it.
func worktreeSummary(t *runningTask, res agent.Result) agent.Result {
	t.mu.Lock()
	w, notes := t.worktree, t.wtNotes
	t.mu.Unlock()
	if w != nil {
		res.Summary += fmt.Sprintf("\n\nThe task worked in its own worktree %s (branch %s); its change is proposed against your files as they are now (agentls.worktreeMerge, or review it hunk by hunk).", w.Path, w.Branch)
		for _, n := range notes {
			res.Summary += "\n- " + n
		}
	}
	return res
}

// deleted says which files the task deleted: review proposes text only,
// so the user deletes them.
func deleted(changes []worktree.Change) []string {
	var out []string
	for _, c := range changes {
		if c.Deleted {
			out = append(out, c.Rel+" was deleted in the worktree; delete it yourself if you agree")
		}
	}
	return out
}

// worktreeJSON is one worktree as agentls.worktrees lists it.
type worktreeJSON struct {
	ID      string    `json:"id"` // the session
	TaskID  string    `json:"taskId,omitempty"`
	Task    string    `json:"task"`
	State   string    `json:"state"`
	Path    string    `json:"path"`
	URI     string    `json:"uri"`
	Branch  string    `json:"branch"`
	Created time.Time `json:"created"`
	// Pending lists the files whose proposals wait (once the task ended
	// in this server or was reviewed).
	Pending []string `json:"pending"`
}

type worktreeArgs struct {
	ID string `json:"id"`
}

// worktreeMergeArgs are agentls.worktreeMerge's: markers writes the
// conflicts into the files between git's conflict markers instead of
// leaving them proposed.
type worktreeMergeArgs struct {
	ID      string `json:"id"`
	Markers bool   `json:"markers,omitempty"`
}

// mergeConflict is a hunk a merge left proposed: the user edited that
// region since the worktree was made.
type mergeConflict struct {
	URI      string         `json:"uri"`
	Hunk     string         `json:"hunk"`
	Range    protocol.Range `json:"range"`
	Proposed string         `json:"proposed"`
	// Yours and Task are the conflicting lines as the user has them and
	// as the task wrote them: both sides, never a combination.
	Yours string `json:"yours,omitempty"`
	Task  string `json:"task,omitempty"`
}

type mergeResult struct {
	ID        string          `json:"id"`
	TaskID    string          `json:"taskId"`
	Merged    int             `json:"merged"`
	Conflicts []mergeConflict `json:"conflicts"`
	Applied   bool            `json:"applied"`
	// LeftOut are protected files the user did not allow the merge to
	// change (or could not be asked about); they stay proposed.
	LeftOut []string `json:"leftOut"`
}

type worktreeContinueArgs struct {
	ID   string `json:"id"`
	Task string `json:"task"`
}

// tree is the task's worktree, if it has one.
func (t *runningTask) tree() *worktree.Tree {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.worktree
}

// worktreePath is the task's worktree directory for taskJSON ("": none).
func (t *runningTask) worktreePath() string {
	if w := t.tree(); w != nil {
		return filepath.Clean(w.Dir())
	}
	return ""
}

// propose holds a worktree task's change as its proposals.
func (r *reviewer) propose(t *runningTask, changes []worktree.Change) {
	r.review.locked(func() {
		for _, c := range changes {
			if c.Deleted {
				continue
			}
			t.changes.ProposeWhole(c.Rel, c.Base, c.Existed, c.Proposed)
		}
	})
}

// isolation decides a new task's isolation: the argument, else
// agent.isolation; "worktree" only where a worktree can be made, else the
// user is told and the task runs in the editor's tree.
func (wm *worktrees) isolation(ctx context.Context, name, asked string) (string, error) {
	iso := wm.conf.config().Agent.Isolation
	if asked != "" {
		if asked != assemble.IsolationNone && asked != assemble.IsolationWorktree {
			return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: isolation %q is not one of none, worktree", name, asked)
		}
		iso = asked
	}
	if iso != assemble.IsolationWorktree {
		return assemble.IsolationNone, nil
	}
	if wm.conf.config().Agent.Backend.ACP != nil {
		wm.ed.showMessage(ctx, protocol.MessageTypeWarning, "agentls: isolation \"worktree\" does not apply to an external agent (agent.backend.acp); the task runs in your tree")
		return assemble.IsolationNone, nil
	}
	if err := worktree.Check(ctx, wm.ed.rootDir()); err != nil {
		wm.ed.showMessage(ctx, protocol.MessageTypeWarning, "agentls: isolation \"worktree\" needs git: %v; the task runs in your tree without isolation (agent.isolation \"none\")", err)
		return assemble.IsolationNone, nil
	}
	return assemble.IsolationWorktree, nil
}

// openBuffers are the editor's texts of the workspace's open files, for a
// worktree's snapshot.
func (wm *worktrees) openBuffers() map[string][]byte {
	root := wm.ed.rootDir()
	out := map[string][]byte{}
	for _, p := range wm.docs.openPaths() {
		rel, ok := relTo(root, p)
		if !ok {
			continue
		}
		if d, ok := wm.docs.get(p); ok {
			out[rel] = []byte(d.text)
		}
	}
	return out
}

// isolate sets a worktree task's part of its TaskConfig.
func (wm *worktrees) isolate(tc *assemble.TaskConfig, t *runningTask) {
	tc.Isolation = assemble.IsolationNone
	if t.isolation != assemble.IsolationWorktree {
		return
	}
	tc.Isolation = assemble.IsolationWorktree
	tc.StateDir = wm.stateDir
	tc.Buffers = wm.openBuffers
	tc.Worktree = t.continueIn
	tc.Hooks.Isolated = func(w *worktree.Tree) {
		t.mu.Lock()
		t.worktree = w
		t.mu.Unlock()
	}
	tc.Hooks.Proposal = func(ctx context.Context, w *worktree.Tree, changes []worktree.Change, notes []string, err error) {
		if err != nil {
			notes = append(notes, "its change could not be read: "+err.Error())
		}
		wm.reviewer.propose(t, changes)
		t.mu.Lock()
		t.wtNotes = append(notes, deleted(changes)...)
		t.mu.Unlock()
	}
}

// worktreeTask is the newest task of this server that ran in worktree id.
func (wm *worktrees) worktreeTask(id string) *runningTask {
	var found *runningTask
	for _, t := range wm.tasks.all() {
		t.mu.Lock()
		w := t.worktree
		t.mu.Unlock()
		if t.isolation == assemble.IsolationWorktree && (w != nil && w.ID == id || w == nil && t.session == id) {
			found = t
		}
	}
	return found
}

func (wm *worktrees) cmdWorktrees(ctx context.Context, _ noArgs) (any, error) {
	list, err := worktree.List(wm.stateDir, wm.ed.rootDir())
	if err != nil {
		return nil, err
	}
	out := []worktreeJSON{}
	for _, w := range list {
		j := worktreeJSON{ID: w.ID, Task: w.Task, State: w.State, Path: w.Dir(), URI: string(uri.File(w.Dir())), Branch: w.Branch, Created: w.Created, Pending: []string{}}
		if t := wm.worktreeTask(w.ID); t != nil {
			j.TaskID = t.id
			if !t.ended() {
				j.State = worktree.StateRunning
			}
			for _, fc := range t.changes.Pending() {
				j.Pending = append(j.Pending, fc.Rel)
			}
		}
		out = append(out, j)
	}
	return map[string]any{"worktrees": out}, nil
}

// reviewable returns the ended task holding worktree id's proposal: this
// server's task, or one adopted from the worktree's branch (a worktree a
// previous server left, a crash included, whose work is committed now).
func (wm *worktrees) reviewable(ctx context.Context, name, id string) (*runningTask, error) {
	if id == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: id is missing (agentls.worktrees lists them)", name)
	}
	if t := wm.worktreeTask(id); t != nil {
		if !t.ended() {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: the task in worktree %s is still running", name, id)
		}
		return t, nil
	}
	w, err := wm.loadWorktree(name, id)
	if err != nil {
		return nil, err
	}
	if w.State == worktree.StateElsewhere {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: worktree %s is in use by another agentls process (pid %d)", name, id, w.PID)
	}
	changes, notes, err := w.Finish(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	_ = w.SetState(worktree.StateEnded)
	t := &runningTask{prompt: w.Task, session: w.ID, review: true, isolation: assemble.IsolationWorktree, worktree: w, wtNotes: append(notes, deleted(changes)...)}
	wm.tasks.adopt(t, agent.Result{Status: agent.StatusOK, Summary: "adopted from worktree " + w.Path})
	wm.reviewer.propose(t, changes)
	return t, nil
}

// loadWorktree reads worktree id's record, as listed (with its state).
func (wm *worktrees) loadWorktree(name, id string) (*worktree.Tree, error) {
	list, err := worktree.List(wm.stateDir, wm.ed.rootDir())
	if err != nil {
		return nil, err
	}
	for _, w := range list {
		if w.ID == id {
			return w, nil
		}
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no worktree %q for this workspace (agentls.worktrees lists them)", name, id)
}

// cmdWorktreeMerge merges a worktree task's change into the user's files:
// every hunk the user has not edited over since the snapshot, in one
// applyEdit; the others stay proposed (diagnostics say so) and are listed
// as conflicts. The user's text is never overwritten.
func (wm *worktrees) cmdWorktreeMerge(ctx context.Context, a worktreeMergeArgs) (any, error) {
	t, err := wm.reviewable(ctx, "agentls.worktreeMerge", a.ID)
	if err != nil {
		return nil, err
	}
	res := mergeResult{ID: a.ID, TaskID: t.id, Conflicts: []mergeConflict{}, LeftOut: []string{}}
	pending := t.changes.Pending()
	if len(pending) == 0 {
		return res, nil
	}
	applied, merged, leftOut, err := wm.reviewer.acceptAsked(ctx, t, "", "", &res.Conflicts, a.Markers)
	if err != nil {
		return nil, err
	}
	res.Applied, res.Merged, res.LeftOut = applied, merged, append(res.LeftOut, leftOut...)
	if len(t.changes.Pending()) == 0 && res.Applied {
		if w := t.tree(); w != nil {
			if err := w.Merged(ctx); err != nil {
				wm.log.Warn("recording the merge", zap.Error(err))
			}
		}
	}
	return res, nil
}

// cmdWorktreeReview shows a worktree task's proposal for review hunk by
// hunk (diagnostics with code actions, the diff document), as a review
// task's; agentls.accept and agentls.reject with its taskId act on it.
func (wm *worktrees) cmdWorktreeReview(ctx context.Context, a worktreeArgs) (any, error) {
	t, err := wm.reviewable(ctx, "agentls.worktreeReview", a.ID)
	if err != nil {
		return nil, err
	}
	wm.reviewer.endReview(ctx, t)
	return t.snapshot(wm.ed.rootDir()), nil
}

// cmdWorktreeDiscard removes a worktree and its branch: a task still
// running in it is cancelled and waited for first, so nothing of it is
// left running, and its proposals are withdrawn.
func (wm *worktrees) cmdWorktreeDiscard(ctx context.Context, a worktreeArgs) (any, error) {
	w, err := wm.loadWorktree("agentls.worktreeDiscard", a.ID)
	if err != nil {
		return nil, err
	}
	if w.State == worktree.StateElsewhere {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.worktreeDiscard: worktree %s is in use by another agentls process (pid %d)", a.ID, w.PID)
	}
	for _, t := range wm.tasks.all() {
		if t.session != a.ID || t.isolation != assemble.IsolationWorktree {
			continue
		}
		t.cancel()
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		wm.reviewer.review.locked(func() {
			for _, fc := range t.changes.Pending() {
				t.changes.Reject(fc.Rel, "")
			}
		})
	}
	wm.reviewer.review.locked(func() { wm.reviewer.publishReview(ctx) })
	if err := w.Discard(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("agentls.worktreeDiscard: %v", err)
	}
	wm.log.Info("worktree discarded", zap.String("id", a.ID))
	return map[string]any{"discarded": true, "id": a.ID}, nil
}

// cmdWorktreeContinue runs a follow-up in the same worktree and session:
// its proposal, when it ends, is the worktree's whole change since the
// snapshot, and replaces the one before.
func (wm *worktrees) cmdWorktreeContinue(ctx context.Context, a worktreeContinueArgs) (any, error) {
	if t := wm.worktreeTask(a.ID); t != nil && !t.ended() {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.worktreeContinue: the task in worktree %s is still running", a.ID)
	}
	w, err := wm.loadWorktree("agentls.worktreeContinue", a.ID)
	if err != nil {
		return nil, err
	}
	if w.State == worktree.StateElsewhere {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.worktreeContinue: worktree %s is in use by another agentls process", a.ID)
	}
	if prev := wm.worktreeTask(a.ID); prev != nil {
		wm.reviewer.review.locked(func() {
			for _, fc := range prev.changes.Pending() {
				prev.changes.Reject(fc.Rel, "")
			}
			wm.reviewer.publishReview(ctx)
		})
	}
	return wm.start("agentls.worktreeContinue", runArgs{Task: a.Task, Session: a.ID, Isolation: assemble.IsolationWorktree, continueIn: w}, false)
}

// worktreeOf returns the worktree whose ID is id, if a worktree of this workspace
// (agentls.continue of it continues in the worktree).
func (wm *worktrees) worktreeOf(id string) *worktree.Tree {
	if id == "" || strings.ContainsAny(id, `/\`) {
		return nil
	}
	w, err := wm.loadWorktree("", id)
	if err != nil {
		return nil
	}
	return w
}
