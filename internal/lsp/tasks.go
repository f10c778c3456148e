package lsp

import (
	"github.com/agentls/agentls/internal/driver"

	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/acp"
	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/session"
)

// task is one agent task run by the server.
type task struct {
	id      string
	session string
	prompt  string
	review  bool
	verify  bool // a verify-only task (agentls.verify)
	editor  string
	created time.Time

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
	changes    changeLog
	line       strings.Builder // transcript line being streamed
}

func (t *task) setToken(tok string) {
	t.mu.Lock()
	t.token = tok
	t.mu.Unlock()
}

func (t *task) label(rel string) string {
	p := t.prompt
	if len(p) > 60 {
		p = p[:60] + "…"
	}
	return fmt.Sprintf("%s (%s)", rel, p)
}

// recordApplied notes an applied change for undo and filesChanged.
func (t *task) recordApplied(rel, old string, existed bool, next string) {
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	fc := t.changes.entry(rel, old, existed)
	if !fc.applied {
		fc.base, fc.existed = old, existed
	}
	fc.after, fc.applied = next, true
}

// proposal returns the text review mode proposes for rel, if any.
func (t *task) proposal(rel string) (string, bool) {
	if !t.review {
		return "", false
	}
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	fc, ok := t.changes.files[rel]
	if !ok || !fc.proposing {
		return "", false
	}
	return fc.proposed, true
}

// propose records a review-mode change instead of applying it: the
// transform runs on what the task proposed so far, so the model's later
// reads and edits stay coherent.
func (w *editorWorkspace) propose(rel string, transform func([]byte, bool) ([]byte, error)) error {
	t := w.t
	cur, curExists, _, _, err := w.current(rel)
	if err != nil {
		return err
	}
	t.changes.mu.Lock()
	defer t.changes.mu.Unlock()
	fc := t.changes.entry(rel, cur, curExists)
	base, exists := fc.proposed, true
	if !fc.proposing {
		base, exists = cur, curExists
	}
	nb, err := transform([]byte(base), exists)
	if err != nil {
		return err
	}
	if !fc.proposing {
		fc.reviewBase, fc.reviewExisted, fc.proposing = cur, curExists, true
	}
	fc.proposed = string(nb)
	return nil
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
}

func (t *task) snapshot(root string) taskJSON {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.result
	j := taskJSON{
		TaskID: t.id, Session: t.session, Task: t.prompt, Status: t.status, State: string(t.state),
		Verified: r.Verified, Cancelled: r.Cancelled, Usage: r.Usage, Cost: r.Cost, Steps: r.Steps,
		Reason: r.Reason, Summary: r.Summary, Error: r.Error, Review: t.review, FilesChanged: []string{},
		ReviewDoc: t.reviewDoc, Transcript: transcriptURI(t.transcript),
	}
	for _, rel := range r.FilesChanged {
		j.FilesChanged = append(j.FilesChanged, string(uri.File(filepath.Join(root, filepath.FromSlash(rel)))))
	}
	return j
}

// taskManager runs tasks in the background: one at a time per session,
// up to sessions.maxConcurrent sessions at once.
type taskManager struct {
	s        *Server
	mu       sync.Mutex
	tasks    map[string]*task
	order    []*task
	seq      int
	sessions map[string]chan struct{} // a one-slot lock per session
	slots    chan struct{}
	wg       sync.WaitGroup
}

func newTaskManager(s *Server) *taskManager {
	return &taskManager{s: s, tasks: map[string]*task{}, sessions: map[string]chan struct{}{}}
}

func (m *taskManager) get(id string) (*task, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	return t, ok
}

// newest returns the newest task that has not ended.
func (m *taskManager) newest() *task {
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

func (m *taskManager) all() []*task {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*task(nil), m.order...)
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

// hasSession reports whether a task of this server used the session.
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

// start registers a task and runs it in the background.
func (m *taskManager) start(t *task, run func(ctx context.Context, t *task)) {
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel, t.done, t.created, t.status, t.state = cancel, make(chan struct{}), time.Now(), agent.StatusQueued, agent.Idle
	cfg := m.s.config()
	m.mu.Lock()
	m.seq++
	t.id = fmt.Sprintf("t%d", m.seq)
	if t.session == "" {
		t.session = fmt.Sprintf("s%d-%d", time.Now().Unix()%100000, m.seq)
	}
	if m.slots == nil {
		m.slots = make(chan struct{}, max(1, cfg.Sessions.MaxConcurrent))
	}
	lock, ok := m.sessions[t.session]
	if !ok {
		lock = make(chan struct{}, 1)
		m.sessions[t.session] = lock
	}
	m.tasks[t.id] = t
	m.order = append(m.order, t)
	m.mu.Unlock()

	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		release := m.execute(ctx, t, lock, run)
		cancel()
		close(t.done)
		m.s.announceEnd(context.Background(), t)
		release()
	}()
}

// execute waits for the session's turn and a free slot, then runs the
// task. It returns what releases them, for after the task's end is
// announced, so the next task of the session starts after that.
func (m *taskManager) execute(ctx context.Context, t *task, lock chan struct{}, run func(context.Context, *task)) (release func()) {
	queued := func() func() {
		t.end(agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled", Error: "cancelled while queued"})
		return func() {}
	}
	select {
	case lock <- struct{}{}:
	case <-ctx.Done():
		return queued()
	}
	select {
	case m.slots <- struct{}{}:
	case <-ctx.Done():
		<-lock
		return queued()
	}
	t.mu.Lock()
	t.status = agent.StatusRunning
	t.mu.Unlock()
	run(ctx, t)
	return func() { <-m.slots; <-lock }
}

// ended reports whether the task has ended.
func (t *task) ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

func (t *task) end(r agent.Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.result = r
	t.status = r.Status
	t.state = agent.Idle
}

// runAgent is the body of an agentls.run task.
func (s *Server) runAgent(ctx context.Context, t *task) {
	cfg := s.config()
	root := s.rootDir()
	prog := s.beginProgress(ctx, t, "agentls", shorten(t.prompt, 80))
	ws, err := s.newWorkspace(t)
	if err != nil {
		s.finishTask(ctx, t, prog, agent.Result{Status: agent.StatusError, Reason: "workspace", Error: err.Error()})
		return
	}
	st := s.openStore(ctx, cfg, root)
	rec := s.beginSession(ctx, st, cfg, t)
	newLLM := s.opts.NewLLM
	if newLLM == nil {
		newLLM = assemble.DefaultLLM
	}
	var gate driver.Verifier
	if g := s.gate(ctx, cfg, root, t, prog); g != nil {
		gate = g
	}
	if b := cfg.Agent.Backend.ACP; b != nil {
		// agent.backend.acp: an external ACP agent's loop instead of ours.
		res := acp.Bridge{Agent: *b, Root: root, Workspace: ws, Ask: s.askToRun, Verifier: gate, Session: rec, Log: s.log,
			OnEvent: func(ev agent.Event) { s.onEvent(ctx, t, prog, ev) },
		}.Run(ctx, driver.Task{Prompt: t.prompt, Editor: t.editor, History: rec.History()})
		s.finishTask(ctx, t, prog, res)
		s.endSession(rec, t, res)
		return
	}
	drv := assemble.Driver(ctx, assemble.Spec{
		Config:    cfg,
		Root:      root,
		Workspace: ws,
		LLM:       newLLM(cfg),
		Approver:  s.approver(cfg),
		Verifier:  gate,
		MCP:       s.mcpManager(cfg, root),
		Session:   rec,
		Recall:    recall(st),
		OnEvent:   func(ev agent.Event) { s.onEvent(ctx, t, prog, ev) },
		Warn:      func(msg string) { s.warnOnce(ctx, "agentls: "+msg) },
	})
	res := drv.Run(ctx, driver.Task{Prompt: t.prompt, Editor: t.editor, History: rec.History()})
	s.finishTask(ctx, t, prog, res)
	s.endSession(rec, t, res)
}

// eventParams is an agentls/event notification.
type eventParams struct {
	TaskID  string `json:"taskId"`
	Session string `json:"session"`
	agent.Event
}

// onEvent forwards an agent event to the client: the agentls/event
// stream, progress reports, and the transcript in window/logMessage.
func (s *Server) onEvent(ctx context.Context, t *task, prog *progress, ev agent.Event) {
	if ev.Kind == agent.KindState {
		t.mu.Lock()
		t.state = ev.To
		t.mu.Unlock()
	}
	if ev.Kind == agent.KindEnd {
		// Sent by announceEnd once the task is done (see there).
		t.mu.Lock()
		t.endStep = ev.Step
		t.mu.Unlock()
		return
	}
	s.sendEvent(ctx, t, ev)
	cfg := s.config()
	switch ev.Kind {
	case agent.KindState:
		switch ev.To {
		case agent.Executing:
			prog.report(ctx, fmt.Sprintf("calling model (step %d of %d)", ev.Step+1, cfg.Agent.MaxSteps))
		case agent.Verifying:
			prog.report(ctx, "verifying")
		case agent.Planning:
			prog.report(ctx, "planning")
		}
	case agent.KindToolCall:
		prog.report(ctx, session.CallSummary(ev.Call))
		s.transcript(ctx, t, "→ "+session.CallSummary(ev.Call))
	case agent.KindToolResult:
		status := "ok"
		if ev.IsErr {
			status = shorten(ev.Output, 200)
		}
		s.transcript(ctx, t, fmt.Sprintf("← %s: %s", ev.Call.Name, status))
	case agent.KindText:
		t.mu.Lock()
		t.line.WriteString(ev.Text)
		text := t.line.String()
		var lines []string
		if i := strings.LastIndexByte(text, '\n'); i >= 0 {
			lines = strings.Split(text[:i], "\n")
			t.line.Reset()
			t.line.WriteString(text[i+1:])
		}
		t.mu.Unlock()
		for _, l := range lines {
			s.transcript(ctx, t, l)
		}
	case agent.KindRetry, agent.KindCompaction:
		prog.report(ctx, ev.Text)
		s.transcript(ctx, t, "· "+ev.Text)
	case agent.KindVerify:
		mark := "✗"
		if ev.Verify.Passed {
			mark = "✓"
		}
		s.transcript(ctx, t, mark+" checks: "+ev.Verify.Summary)
	case agent.KindUsage:
		t.mu.Lock()
		rest := t.line.String()
		t.line.Reset()
		t.mu.Unlock()
		if rest != "" {
			s.transcript(ctx, t, rest)
		}
	}
}

func (s *Server) sendEvent(ctx context.Context, t *task, ev agent.Event) {
	if b, err := json.Marshal(eventParams{TaskID: t.id, Session: t.session, Event: ev}); err == nil {
		s.notify(ctx, "agentls/event", jsonrpc2.RawMessage(s.config().Redact(string(b))))
	}
}

func (s *Server) transcript(ctx context.Context, t *task, line string) {
	s.notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{
		Type: protocol.MessageTypeLog, Message: s.config().Redact(fmt.Sprintf("[agentls %s] %s", t.id, line)),
	})
}

func (s *Server) finishTask(ctx context.Context, t *task, prog *progress, res agent.Result) {
	if t.review {
		// Nothing is applied until the user accepts it.
		res.FilesChanged = nil
	}
	t.end(res)
	if t.review {
		s.endReview(ctx, t)
		if n := len(s.reviewFiles(t, "")); n > 0 {
			res.Summary += fmt.Sprintf("\n\nChanges to %d file%s wait for your review (code actions, or agentls.accept / agentls.reject).", n, plural(n))
			t.mu.Lock()
			t.result.Summary = res.Summary
			t.mu.Unlock()
		}
	}
	_, msg := endMessage(res)
	prog.end(ctx, shorten(msg, 120))
	s.log.Info("task ended", zap.String("task", t.id), zap.String("status", res.Status), zap.String("reason", res.Reason))
}

// endMessage is what the user is told when a task ends.
func endMessage(res agent.Result) (protocol.MessageType, string) {
	msg := res.Summary
	typ := protocol.MessageTypeInfo
	switch res.Status {
	case agent.StatusCancelled:
		msg = "cancelled"
	case agent.StatusError:
		typ, msg = protocol.MessageTypeError, res.Error
	}
	if res.Reason == "verifyFailed" {
		typ = protocol.MessageTypeWarning
	}
	return typ, msg
}

// announceEnd tells the editor a task ended: the end event and the
// closing message. It runs after the task is marked done, so an editor that
// reacts to either (accept, undo, status) finds the task finished, its
// result stored and its proposals published.
func (s *Server) announceEnd(ctx context.Context, t *task) {
	t.mu.Lock()
	res, step := t.result, t.endStep
	t.mu.Unlock()
	s.sendEvent(ctx, t, agent.Event{Kind: agent.KindEnd, Step: step, Result: &res})
	typ, msg := endMessage(res)
	files := ""
	if n := len(res.FilesChanged); n > 0 {
		files = fmt.Sprintf(" (%d file%s changed)", n, plural(n))
	}
	usage := ""
	if u := res.Usage; u.InputTokens+u.OutputTokens > 0 {
		est := ""
		if u.Estimated {
			est = " (estimated)"
		}
		usage = fmt.Sprintf(" [%d in / %d out tokens%s", u.InputTokens, u.OutputTokens, est)
		if res.Cost > 0 {
			usage += fmt.Sprintf(", $%.4f", res.Cost)
		}
		usage += "]"
	}
	s.showMessage(ctx, typ, "agentls %s %s%s: %s%s", t.id, res.Status, files, s.config().Redact(shorten(msg, 400)), usage)
}

func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
