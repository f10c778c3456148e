package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/worktree"
)

// runningTask is one agent runningTask run by the server.
type runningTask struct {
	id      string
	session string
	prompt  string
	review  bool
	verify  bool // a verify-only task (agentls.verify)
	editor  string
	dir     string // the directory of the editor's file, for the prompt
	model   string // agentls.run's model: overrides llm.model for this task
	until   string // agentls.run's until: the task's stop condition
	// isolation is "worktree" for a task that works in a worktree of its
	// own (worktrees.go), which continueIn names for a follow-up.
	isolation  string
	continueIn *worktree.Tree
	created    time.Time

	cancel context.CancelFunc
	done   chan struct{}

	mu         sync.Mutex
	status     string
	state      agent.State
	result     agent.Result
	token      string
	endStep    int    // the step the machine ended at, for the end event
	reviewDoc  string // review mode: the task's diff, as a file URI
	transcript string // the Markdown transcript's path
	mustExist  bool   // agentls.continue: the session must exist
	changes    review.Log
	log        *render.Renderer // the task's lines in window/logMessage (render.Log)
	headed     bool             // the first agentls/event (with the prompt) was sent
	prog       *progress        // set when the task's progress began
	internal   error            // a recovered panic: the task ends "internal"
	panicked   map[string]bool  // test hooks that fired (guard.go)
	worktree   *worktree.Tree   // the task's worktree, once made
	wtNotes    []string         // what its proposal leaves out
}

func (t *runningTask) setToken(tok string) {
	t.mu.Lock()
	t.token = tok
	t.mu.Unlock()
}

func (t *runningTask) label(rel string) string {
	return fmt.Sprintf("%s (%s)", rel, shorten(t.prompt, 60))
}

// taskJSON is a task as the contract's commands return it.
type taskJSON struct {
	TaskID       string      `json:"taskId"`
	Session      string      `json:"session"`
	Task         string      `json:"task"`
	Status       string      `json:"status"`
	State        string      `json:"state"`
	Verified     bool        `json:"verified"`
	Cancelled    bool        `json:"cancelled"`
	FilesChanged []string    `json:"filesChanged"`
	Usage        agent.Usage `json:"usage"`
	Cost         float64     `json:"cost,omitempty"`
	Steps        int         `json:"steps"`
	Reason       string      `json:"reason,omitempty"`
	Review       bool        `json:"review,omitempty"`
	ReviewDoc    string      `json:"reviewDocument,omitempty"`
	Transcript   string      `json:"transcript,omitempty"`
	Summary      string      `json:"summary,omitempty"`
	Error        string      `json:"error,omitempty"`
	// Undoable: agentls.undo can revert the task now (it ended, applied
	// changes that are not undone, and is still in the undo window).
	Undoable bool `json:"undoable"`
	// Outcome: what became of a finished task's changes when its status
	// alone would mislead: "awaiting review", "undone", "rejected".
	Outcome string `json:"outcome,omitempty"`
	// Worktree is the directory of a worktree task's worktree.
	Worktree string `json:"worktree,omitempty"`
}

func (t *runningTask) snapshot(root string) taskJSON {
	undoable := t.undoable()
	wtPath := t.worktreePath()
	outcome := ""
	if t.ended() {
		outcome = t.changes.Outcome(t.review)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.result
	j := taskJSON{
		TaskID: t.id, Session: t.session, Task: t.prompt, Status: t.status, State: string(t.state),
		Verified: r.Verified, Cancelled: r.Cancelled, Usage: r.Usage, Cost: r.Cost, Steps: r.Steps,
		Reason: r.Reason, Summary: r.Summary, Error: r.Error, Review: t.review, FilesChanged: []string{},
		ReviewDoc: t.reviewDoc, Transcript: transcriptURI(t.transcript), Undoable: undoable, Outcome: outcome,
		Worktree: wtPath,
	}
	for _, rel := range r.FilesChanged {
		j.FilesChanged = append(j.FilesChanged, string(uri.File(filepath.Join(root, filepath.FromSlash(rel)))))
	}
	return j
}

// taskManager runs tasks in the background: one at a time per session, in
// the order they were submitted, up to sessions.maxConcurrent sessions at
// once.
type taskManager struct {
	guard
	config      func() config.Config // the settings now (sessions.maxConcurrent)
	announceEnd func(ctx context.Context, t *runningTask)
	root        func() string // the workspace, for a task's paths (agentls.status)

	mu       sync.Mutex
	tasks    map[string]*runningTask
	order    []*runningTask
	seq      int
	sessions map[string]*sessionQueue
	slots    chan struct{}
	wg       sync.WaitGroup
}

func newTaskManager(g guard, cfg func() config.Config, announceEnd func(context.Context, *runningTask), root func() string) *taskManager {
	return &taskManager{guard: g, config: cfg, announceEnd: announceEnd, root: root, tasks: map[string]*runningTask{}, sessions: map[string]*sessionQueue{}}
}

// sessionQueue orders the tasks of one session. Each task waits for the
// channel of the task submitted before it and closes its own when it
// releases the session, so tasks run in submission order; a lock that
// waiting goroutines race for would let a later task overtake an earlier one.
type sessionQueue struct {
	tail chan struct{} // closed when the last task submitted releases the session; nil: none yet
}

// idle reports whether no task of the session is queued or running.
func (q *sessionQueue) idle() bool {
	if q.tail == nil {
		return true
	}
	select {
	case <-q.tail:
		return true
	default:
		return false
	}
}

func (m *taskManager) get(id string) (*runningTask, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	return t, ok
}

// newest returns the newest task that has not ended.
func (m *taskManager) newest() *runningTask {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.order) - 1; i >= 0; i-- {
		t := m.order[i]
		select {
		case <-t.done:
		default:
			return t
		}
	}
	return nil
}

func (m *taskManager) all() []*runningTask {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*runningTask(nil), m.order...)
}

func (m *taskManager) cancelToken(tok protocol.ProgressToken) {
	var want string
	switch v := tok.(type) {
	case protocol.String:
		want = string(v)
	case protocol.Integer:
		want = fmt.Sprint(int32(v))
	}
	for _, t := range m.all() {
		t.mu.Lock()
		match := t.token == want
		t.mu.Unlock()
		if match {
			t.cancel()
		}
	}
}

// hasSession reports whether a task in this server's history used the
// session.
func (m *taskManager) hasSession(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.sessions[id]
	return ok
}

func (m *taskManager) cancelAll() {
	for _, t := range m.all() {
		t.cancel()
	}
}

func (m *taskManager) waitAll() { m.wg.Wait() }

// start registers a task and runs it in the background, behind a panic
// barrier: a panic anywhere in the task ends it with reason "internal".
func (m *taskManager) start(t *runningTask, run func(ctx context.Context, t *runningTask)) {
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel, t.done, t.created, t.status, t.state = cancel, make(chan struct{}), time.Now(), agent.StatusQueued, agent.Idle
	cfg := m.config()
	m.mu.Lock()
	m.seq++
	t.id = fmt.Sprintf("t%d", m.seq)
	if t.session == "" {
		t.session = session.NewID(t.created)
	}
	if m.slots == nil {
		m.slots = make(chan struct{}, max(1, cfg.Sessions.MaxConcurrent))
	}
	q := m.sessions[t.session]
	if q == nil {
		q = &sessionQueue{}
		m.sessions[t.session] = q
	}
	turn, mine := q.tail, make(chan struct{})
	q.tail = mine
	m.tasks[t.id] = t
	m.order = append(m.order, t)
	m.mu.Unlock()

	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer m.recoverGo("task " + t.id)
		release := m.execute(ctx, t, turn, mine, run)
		cancel()
		close(t.done)
		_ = m.catch("announcing the end of "+t.id, func() { m.announceEnd(context.Background(), t) })
		release()
		m.trim()
	}()
}

// adopt lists a task that ran before this server (a worktree's, found
// on disk) as ended with res, so review commands can act on it.
func (m *taskManager) adopt(t *runningTask, res agent.Result) {
	t.cancel, t.done, t.created = func() {}, make(chan struct{}), time.Now()
	close(t.done)
	t.end(res)
	m.mu.Lock()
	m.seq++
	t.id = fmt.Sprintf("t%d", m.seq)
	m.tasks[t.id] = t
	m.order = append(m.order, t)
	m.mu.Unlock()
}

// execute waits for the session's turn (turn closes when the task before
// it releases the session; nil: it is the first) and a free slot, then runs
// the task. It returns what releases them (mine lets the next task of the
// session go), for after the task's end is announced, so the next task
// starts after that.
func (m *taskManager) execute(ctx context.Context, t *runningTask, turn, mine chan struct{}, run func(context.Context, *runningTask)) (release func()) {
	cancelled := func() func() {
		t.end(agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled", Error: "cancelled while queued"})
		return func() {}
	}
	if turn != nil {
		select {
		case <-turn:
		case <-ctx.Done():
			// The next task must still wait for the ones before this one.
			m.goSafe("passing on the turn of "+t.id, func() {
				<-turn
				close(mine)
			})
			return cancelled()
		}
	}
	select {
	case m.slots <- struct{}{}:
	case <-ctx.Done():
		close(mine)
		return cancelled()
	}
	t.mu.Lock()
	t.status = agent.StatusRunning
	t.mu.Unlock()
	if err := m.catch("task "+t.id, func() { run(ctx, t) }); err != nil {
		t.fail(err)
		t.end(internalResult(t))
		t.mu.Lock()
		prog := t.prog
		t.mu.Unlock()
		if prog != nil {
			_ = m.catch("ending progress", func() { prog.end(ctx, "agentls: internal error") })
		}
	}
	return func() { <-m.slots; close(mine) }
}

// fail records the task's first internal error (a recovered panic).
func (t *runningTask) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.internal == nil {
		t.internal = err
	}
}

// internalResult is how a task that panicked ends.
func internalResult(t *runningTask) agent.Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.result
	r.Status, r.Reason, r.Cancelled = agent.StatusError, "internal", false
	r.Error = fmt.Sprintf("agentls: %v (the server log has the details; the server keeps running)", t.internal)
	return r
}

// The task history is bounded: the newest historyKeep tasks stay listed
// (agentls.status), and of those the newest undoKeep finished ones keep
// the texts undo and review need. Older finished tasks drop their texts,
// then leave the list.
const (
	historyKeep = 100
	undoKeep    = 20
)

// trim applies the history bound.
func (m *taskManager) trim() {
	m.mu.Lock()
	var forget []*runningTask
	finished := 0
	keep := m.order[:0]
	for i := len(m.order) - 1; i >= 0; i-- {
		t := m.order[i]
		if !t.ended() {
			continue
		}
		finished++
		if finished > undoKeep {
			forget = append(forget, t)
		}
	}
	drop := len(m.order) - historyKeep
	for _, t := range m.order {
		if drop > 0 && t.ended() {
			drop--
			delete(m.tasks, t.id)
			continue
		}
		keep = append(keep, t)
	}
	for i := len(keep); i < len(m.order); i++ {
		m.order[i] = nil
	}
	m.order = keep
	used := map[string]bool{}
	for _, t := range m.order {
		used[t.session] = true
	}
	for id, q := range m.sessions {
		if !used[id] && q.idle() {
			delete(m.sessions, id)
		}
	}
	m.mu.Unlock()
	for _, t := range forget {
		t.changes.Forget()
		t.mu.Lock()
		t.log = nil
		t.mu.Unlock()
	}
}

// ended reports whether the task has ended.
func (t *runningTask) ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

func (t *runningTask) end(r agent.Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.result = r
	t.status = r.Status
	t.state = agent.Idle
}
