package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
)

// Review mode holds a task's changes as proposals (internal/review plans
// what accept, reject and undo do; this file and accept.go, undo.go carry
// the plans to the editor). Each file's proposal is a pair (ReviewBase,
// Proposed); its hunks are edits.Diff of the two.
// Accepting a hunk applies it to the editor's text and moves reviewBase;
// rejecting one takes it out of proposed. The user sees hunks as
// Information diagnostics with code actions, which every editor shows
// (Helix has no other menu), and the whole task as a unified diff.

const reviewCode = "agentls.review"

// reviewer is review mode and what undoes changes: proposals held per
// task, published as diagnostics, accepted (accept.go), rejected, shown
// (proposal.go); applied changes undone (undo.go), a session rewound
// (rewind.go) and diffed (diff.go). Every change it makes to the user's
// files goes through the editor's one write path.
type reviewer struct {
	guard  // its re-publishing goroutine's barrier
	review reviewState
	ed     *editor
	docs   *openDocs
	tasks  *taskManager
	diags  *diagnostics
	asker  *asker       // protected files a worktree task changed
	conf   *configState // the session store (rewind)
	log    *zap.Logger
	hooks  testHooks
	// stateDir holds the review documents (endReview).
	stateDir string
}

// reviewState serializes what changes proposals and undo records: each
// command plans under mu and commits under mu, but the client round trip
// between the two runs without it. busy marks a task whose edit the client
// has not answered yet, so a second command on that task is refused rather
// than planned against a state about to move.
type reviewState struct {
	mu   sync.Mutex
	busy map[string]string        // task id → the command waiting for the editor
	done map[string]chan struct{} // task id → closed when that command ends

	pubMu     sync.Mutex
	scheduled bool // a re-publish after user edits is on its way
}

// claim marks t as waiting on the client for name; r.mu must be held.
func (r *reviewState) claim(t *runningTask, name string) error {
	if r.busy == nil {
		r.busy = map[string]string{}
	}
	if other, ok := r.busy[t.id]; ok {
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: task %s is waiting for the editor to apply %s; try again when it answered", name, t.id, other)
	}
	r.busy[t.id] = name
	if r.done == nil {
		r.done = map[string]chan struct{}{}
	}
	r.done[t.id] = make(chan struct{})
	return nil
}

// release ends a claim; r.mu must be held.
func (r *reviewState) release(t *runningTask) {
	delete(r.busy, t.id)
	if ch, ok := r.done[t.id]; ok {
		close(ch)
		delete(r.done, t.id)
	}
}

// claimWait bounds how long a command waits for another command on the
// same task to end (its edit out and confirmed: confirmWait and a grace)
// before it is refused.
const claimWait = confirmWait + 2*confirmGrace

// claimLocked is claim under r.mu, after waiting (without r.mu, at most
// claimWait) for a command already in flight on t to end: an undo sent
// right after an accept whose text the user already sees, while the
// editor's didChange is still on its way, runs after it instead of being
// refused.
func (r *reviewState) claimLocked(t *runningTask, name string) (err error) {
	var ch chan struct{}
	r.locked(func() { ch = r.done[t.id] })
	if ch != nil {
		timer := time.NewTimer(claimWait)
		defer timer.Stop()
		select {
		case <-ch:
		case <-timer.C:
		}
	}
	r.locked(func() { err = r.claim(t, name) })
	return err
}

// locked runs f holding r.mu. Every use of r.mu goes through here, so a
// panic in f (recovered further up) cannot leave it locked.
func (r *reviewState) locked(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
}

// touched re-publishes the proposals after the user edited or closed a
// document that has some, so they follow the text. It runs on the read
// loop, so the work goes to one goroutine and bursts of typing coalesce.
func (r *reviewer) touched(ctx context.Context, u string) {
	r.diags.mu.Lock()
	has := len(r.diags.review[u]) > 0
	r.diags.mu.Unlock()
	if !has {
		return
	}
	r.review.pubMu.Lock()
	defer r.review.pubMu.Unlock()
	if r.review.scheduled {
		return
	}
	r.review.scheduled = true
	r.goSafe("re-publishing review diagnostics", func() {
		r.review.pubMu.Lock()
		r.review.scheduled = false
		r.review.pubMu.Unlock()
		r.review.locked(func() { r.publishReview(context.WithoutCancel(ctx)) })
	})
}

// reviewDiagnostic is one proposed change as an Information diagnostic; its
// data names the task and the hunk for the code actions.
func reviewDiagnostic(t *runningTask, fc review.File, h review.Hunk, m *edits.Mapper, size int, enc edits.Encoding) protocol.Diagnostic {
	msg := "agentls proposes: " + review.Describe(h.Change, fc.ReviewBase)
	if h.Conflict {
		msg += " (you edited this region since; accepting is refused)"
	}
	data, _ := json.Marshal(map[string]string{"taskId": t.id, "hunk": h.ID})
	return protocol.Diagnostic{
		Range:    m.OffsetsToRange(h.Cur.Start, max(h.Cur.End, min(h.Cur.Start+1, size)), enc),
		Severity: protocol.DiagnosticSeverityInformation,
		Source:   protocol.NewOptional(diagSource),
		Code:     protocol.String(reviewCode),
		Message:  protocol.String(msg),
		Data:     protocol.LSPAny(data),
	}
}

// showTimeout bounds window/showDocument, which runs before a review task
// is done: a client that never answers must not hold the task.
const showTimeout = 2 * time.Second

// stateDirOf is where agentls keeps sessions, transcripts, reviews and the
// trust store: the same directory agentls trust and agentls run use
// (session.StateDir).
func stateDirOf(opts Options) string {
	if opts.StateDir != "" {
		return opts.StateDir
	}
	d, err := session.StateDirFrom(opts.Getenv)
	if err != nil {
		// No home directory: one relative to the working directory.
		return filepath.Join(".local", "state", "agentls")
	}
	return d
}

type reviewArgs struct {
	TaskID string `json:"taskId"`
	URI    string `json:"uri,omitempty"`
	Hunk   string `json:"hunk,omitempty"`
}

func describeTarget(a reviewArgs) string {
	s := "task " + a.TaskID
	if a.URI != "" {
		s += " in " + a.URI
	}
	if a.Hunk != "" {
		s += " hunk " + a.Hunk
	}
	return s
}

// reviewFiles returns copies of the task's files with open proposals,
// optionally only the one at uri.
func (r *reviewer) reviewFiles(t *runningTask, only string) []review.File {
	var out []review.File
	for _, fc := range t.changes.Pending() {
		if only != "" && only != r.ed.fileURI(fc.Rel) {
			if d, ok := r.docs.getURI(only); !ok || d.path != filepath.Join(r.ed.rootDir(), filepath.FromSlash(fc.Rel)) {
				continue
			}
		}
		out = append(out, fc)
	}
	return out
}

// publishReview (re)publishes every task's proposals as diagnostics, each
// placed where its change is in the text as the user has it now. Callers
// hold review.mu, so what is published is never older than what another
// command just did.
func (r *reviewer) publishReview(ctx context.Context) {
	byURI := r.reviewByURI("")
	d := r.diags
	d.mu.Lock()
	touched := map[string]bool{}
	for u := range d.review {
		touched[u] = true
	}
	for u := range byURI {
		touched[u] = true
	}
	d.review = byURI
	d.mu.Unlock()
	r.diags.publish(ctx, sortedKeys(touched))
}

// reviewDiagnostics returns the proposals in the document u as
// diagnostics, placed in its text as it is now.
func (r *reviewer) reviewDiagnostics(u string) []protocol.Diagnostic {
	return r.reviewByURI(u)[u]
}

// reviewByURI maps every review task's proposals (only those in the
// document only, if given) to diagnostics by URI.
func (r *reviewer) reviewByURI(only string) map[string][]protocol.Diagnostic {
	byURI := map[string][]protocol.Diagnostic{}
	// Most servers have no review task: a code action or a publish then
	// costs a walk of the task list, not a stat of the root.
	var reviewing []*runningTask
	for _, t := range r.tasks.all() {
		if t.review {
			reviewing = append(reviewing, t)
		}
	}
	if len(reviewing) == 0 {
		return byURI
	}
	enc := r.ed.encoding()
	ws, err := r.ed.newWorkspace(nil)
	if err != nil {
		r.log.Warn("placing review diagnostics", zap.Error(err))
		return byURI
	}
	for _, t := range reviewing {
		r.hooks.maybePanic("publishReview", t)
		for _, fc := range r.reviewFiles(t, only) {
			cur, _, err := ws.current(fc.Rel)
			if err != nil {
				continue
			}
			u := r.ed.fileURI(fc.Rel)
			m := edits.NewMapper(cur)
			for _, h := range review.Hunks(fc, cur) {
				byURI[u] = append(byURI[u], reviewDiagnostic(t, fc, h, m, len(cur), enc))
			}
		}
	}
	return byURI
}

// endReview runs when a review-mode task ends: proposals become visible
// and the whole task's diff is written and shown.
func (r *reviewer) endReview(ctx context.Context, t *runningTask) {
	r.review.locked(func() { r.publishReview(ctx) })
	files := r.reviewFiles(t, "")
	if len(files) == 0 {
		return
	}
	var b strings.Builder
	// The editor's own words (:AgentAccept in Neovim), not the server's
	// command names.
	fmt.Fprintf(&b, "# agentls task %s proposes these changes (%s)\n# accept or reject them with %s\n", t.id, shorten(t.prompt, 100), reviewHint(r.ed.clientName()))
	for _, fc := range files {
		a := "a/" + fc.Rel
		if !fc.ReviewExisted {
			a = "/dev/null"
		}
		b.WriteString(edits.Unified(a, "b/"+fc.Rel, fc.ReviewBase, fc.Proposed, 3))
	}
	dir := filepath.Join(r.stateDir, "reviews")
	path := filepath.Join(dir, t.id+"-"+t.session+".diff")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return
	}
	t.mu.Lock()
	t.reviewDoc = string(uri.File(path))
	t.mu.Unlock()
	if caps, _ := r.ed.clientState(); caps.showDocument {
		take := false
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), showTimeout)
		defer cancel()
		if _, err := r.ed.client.ShowDocument(sctx, &protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: &take}); err != nil {
			r.log.Debug("showDocument failed", zap.Error(err))
		}
	}
}

// reviewTask finds the task a review command is about: the one named, or
// the newest with proposals left.
func (r *reviewer) reviewTask(name string, a reviewArgs) (*runningTask, reviewArgs, error) {
	if a.TaskID == "" {
		for _, t := range r.tasks.all() {
			if t.review && len(t.changes.Pending()) > 0 {
				a.TaskID = t.id
			}
		}
		if a.TaskID == "" {
			return nil, a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no task has changes waiting for review", name)
		}
	}
	t, ok := r.tasks.get(a.TaskID)
	if !ok {
		return nil, a, unknownTask(a.TaskID)
	}
	if !t.review {
		return nil, a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: task %s did not run in review mode; its changes are already applied (agentls.undo reverts them)", name, t.id)
	}
	if !t.ended() {
		return nil, a, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: task %s is still running; review its changes when it ends", name, t.id)
	}
	return t, a, nil
}

func (r *reviewer) cmdReject(ctx context.Context, a reviewArgs) (any, error) {
	t, a, err := r.reviewTask("agentls.reject", a)
	if err != nil {
		return nil, err
	}
	n := 0
	r.review.locked(func() {
		if err = r.review.claim(t, "agentls.reject"); err != nil {
			return
		}
		r.review.release(t)
		for _, fc := range r.reviewFiles(t, a.URI) {
			n += t.changes.Reject(fc.Rel, a.Hunk)
		}
		r.publishReview(ctx)
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.reject: nothing to reject for %s", describeTarget(a))
	}
	return map[string]any{"applied": true, "rejected": n}, nil
}
