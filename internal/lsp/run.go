package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/acpclient"
	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/wsread"
)

// runner runs the tasks: an agent task (runAgent, through the one
// lifecycle assemble.Run) or the checks alone (runVerifyOnly), started by
// agentls.run, agentls.continue and agentls.verify. It reports what a task
// does ($/progress, agentls/event, the transcript in window/logMessage) and
// how it ended. It holds the parts a task is wired to, never the *Server.
type runner struct {
	guard     // the event sink's barrier
	ed        *editor
	docs      *openDocs
	diags     *diagnostics
	conf      *configState
	trust     *trust
	asker     *asker
	reviewer  *reviewer  // a review task's proposals
	worktrees *worktrees // a worktree task's isolation
	tasks     *taskManager
	mcp       *assemble.SharedMCP // shared by the tasks
	newLLM    func(config.Config) agent.LLM
	log       *zap.Logger
	hooks     testHooks
}

// eventParams is an agentls/event notification.
type eventParams struct {
	TaskID  string `json:"taskId"`
	Session string `json:"session"`
	// Task is the task's prompt, on its first event only: a view can head
	// a task it did not start (a code action's "Fix with agentls").
	Task string `json:"task,omitempty"`
	// Words: how the task ended (the end event), how a command ran (its
	// result), a sub-agent's step in one line (a nested event), in the
	// words every view uses (render.WordsOf).
	render.Words
	agent.Event
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
	if res.Reason == "maxSteps" || res.Reason == "budget" {
		// A graceful end at the limit: what the model summarised matters
		// more than the limit.
		typ = protocol.MessageTypeWarning
		if s := strings.TrimSpace(res.Summary); s != "" {
			msg = res.Error + ": " + s
		}
	}
	if res.Reason == "verifyFailed" {
		typ = protocol.MessageTypeWarning
	}
	return typ, msg
}

// shorten trims s and cuts it to at most n bytes and an ellipsis, at a
// character boundary: half a character is invalid UTF-8, which the client
// would show as U+FFFD.
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return textcut.Head(s, n) + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// runAgent is the body of an agentls.run task: the editor's part of
// assemble.Run (how it asks, through the editor, and how it shows, as
// progress, events and review).
func (rn *runner) runAgent(ctx context.Context, t *runningTask) {
	// .agentls.json is read again at each task: an edit made during the
	// session applies to the next task, and a changed file that widens
	// power is asked about again before it runs.
	rn.conf.configure(ctx, nil)
	if rn.trust.settleTrust(withTask(ctx, t.id)) {
		rn.conf.configure(ctx, nil)
	}
	cfg := rn.conf.config()
	if t.model != "" {
		cfg.LLM.Model = t.model // the model the task is wired for (newLLM, the bridge)
	}
	root := rn.ed.rootDir()
	prog := rn.beginProgress(ctx, t, "agentls", shorten(t.prompt, 80))
	ws, err := rn.ed.newWorkspace(t)
	if err != nil {
		rn.finishTask(ctx, t, prog, agent.Result{Status: agent.StatusError, Reason: "workspace", Error: err.Error()})
		return
	}
	newLLM := rn.newLLM
	if newLLM == nil {
		newLLM = assemble.DefaultLLM
	}
	tc := assemble.TaskConfig{
		Spec: assemble.Spec{
			Config:    cfg,
			Root:      root,
			Workspace: ws,
			LLM:       newLLM(cfg),
			Log:       rn.log,
			Until:     t.until,
		},
		// The editor asks through window/showMessageRequest and shows the
		// task as progress, agentls/event and the log.
		Ask: assemble.AskFuncs{Approver: rn.asker.approver(cfg), Confirm: rn.asker.confirmWrite, Network: rn.asker.askNetwork},
		Show: assemble.ShowFuncs{
			OnEvent: func(ev agent.Event) { rn.safeEvent(ctx, t, prog, ev) },
			OnWarn:  func(msg string) { rn.conf.warnOnce(ctx, "agentls: "+msg) },
			OnBegan: func(rec *session.Recorder) {
				t.mu.Lock()
				t.transcript = rec.TranscriptPath()
				t.mu.Unlock()
			},
			OnEnded: func(ctx context.Context, res agent.Result) (agent.Result, []session.Change) {
				res = worktreeSummary(t, res)
				rn.finishTask(ctx, t, prog, res)
				return res, sessionChanges(&t.changes)
			},
		},
		Model:     t.model,
		Prompt:    t.prompt,
		Editor:    t.editor,
		Dir:       t.dir,
		Untrusted: rn.trust.heldBack(),
		Store:     rn.conf.openStore(ctx, cfg, root),
		Session:   t.session,
		MustExist: t.mustExist,
		TaskID:    t.id,
		// Steps for agentls.rewind: changes the editor applied.
		Checkpoints: !t.review,
		MCP:         rn.mcp,
		Gate:        func(g *assemble.Gate) { rn.wireGate(ctx, g, root, t, prog) },
	}
	rn.worktrees.isolate(&tc, t)
	if b := cfg.Agent.Backend.ACP; b != nil {
		// agent.backend.acp: an external ACP agent's loop instead of ours;
		// agentls keeps the editor's side (edits, review, undo, the gate).
		tc.Hooks.Backend = func(spec assemble.Spec) (assemble.Actor, func()) {
			k := acpclient.Bridge{Agent: *b, Root: root, Workspace: ws, Ask: rn.asker.ask(), Session: spec.Session, Log: rn.log,
				ConfirmWrite: rn.asker.confirmWrite, SecretFiles: cfg.Tools.SecretFiles, MCPServers: cfg.MCPServers}.Start()
			return k, k.Close
		}
	}
	if _, err := assemble.Run(withTask(ctx, t.id), tc); err != nil {
		reason := "session"
		if errors.Is(err, assemble.ErrUntrusted) {
			reason = "untrusted"
		}
		rn.finishTask(ctx, t, prog, agent.Result{Status: agent.StatusError, Reason: reason, Error: err.Error()})
	}
}

// safeEvent is onEvent behind a panic barrier: the driver calls it on its
// own goroutine, and a panic there must end this task only, as "internal".
func (rn *runner) safeEvent(ctx context.Context, t *runningTask, prog *progress, ev agent.Event) {
	if err := rn.catch("onEvent", func() { rn.onEvent(ctx, t, prog, ev) }); err != nil {
		t.fail(err)
		t.cancel()
	}
}

// onEvent forwards an agent event to the client: the agentls/event
// stream, progress reports, and the transcript in window/logMessage.
func (rn *runner) onEvent(ctx context.Context, t *runningTask, prog *progress, ev agent.Event) {
	rn.hooks.maybePanic("onEvent", t)
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
	rn.sendEvent(ctx, t, ev)
	cfg := rn.conf.config()
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
		prog.report(ctx, render.CallSummary(ev.Call))
	case agent.KindNested:
		if line := render.NestedLine(ev); line != "" {
			prog.report(ctx, shorten(line, 120))
		}
	case agent.KindRetry, agent.KindCompaction, agent.KindBudget, agent.KindNotice:
		prog.report(ctx, ev.Text)
	case agent.KindPlan:
		if ev.Plan == nil {
			break
		}
		msg := fmt.Sprintf("plan %d/%d", ev.Plan.Done(), len(ev.Plan.Steps))
		if cur := ev.Plan.Current(); cur != "" {
			msg += ": " + cur
		}
		prog.report(ctx, shorten(msg, 120))
	}
	t.mu.Lock()
	if t.log == nil {
		t.log = render.New(render.Log)
	}
	lines := t.log.Event(ev)
	t.mu.Unlock()
	if lines != "" {
		for _, l := range strings.Split(strings.TrimSuffix(lines, "\n"), "\n") {
			rn.transcript(ctx, t, l)
		}
	}
}

func (rn *runner) sendEvent(ctx context.Context, t *runningTask, ev agent.Event) {
	p := eventParams{TaskID: t.id, Session: t.session, Words: render.WordsOf(ev), Event: ev}
	t.mu.Lock()
	if !t.headed {
		t.headed = true
		p.Task = t.prompt
	}
	t.mu.Unlock()
	b, err := json.Marshal(p)
	if err != nil {
		return
	}
	// The key is seldom in an event: copy the text only when it is.
	if cfg := rn.conf.config(); len(cfg.LLM.APIKey) >= 4 && bytes.Contains(b, []byte(cfg.LLM.APIKey)) {
		b = []byte(cfg.Redact(string(b)))
	}
	rn.ed.notify(ctx, "agentls/event", jsonrpc2.RawMessage(b))
}

func (rn *runner) transcript(ctx context.Context, t *runningTask, line string) {
	rn.ed.notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{
		Type: protocol.MessageTypeLog, Message: rn.conf.config().Redact(fmt.Sprintf("[agentls %s] %s", t.id, line)),
	})
}

func (rn *runner) finishTask(ctx context.Context, t *runningTask, prog *progress, res agent.Result) {
	rn.hooks.maybePanic("finishTask", t)
	t.mu.Lock()
	failed := t.internal != nil
	t.mu.Unlock()
	if failed {
		res = internalResult(t)
	}
	if t.review {
		// Nothing is applied until the user accepts it.
		res.FilesChanged = nil
	}
	t.end(res)
	if t.review {
		rn.reviewer.endReview(ctx, t)
		if n := len(t.changes.Pending()); n > 0 {
			res.Summary += fmt.Sprintf("\n\nChanges to %d file%s wait for your review (%s).", n, plural(n), reviewHint(rn.ed.clientName()))
			res.Outcome = "awaiting review"
			t.mu.Lock()
			t.result.Summary, t.result.Outcome = res.Summary, res.Outcome
			t.mu.Unlock()
		}
	}
	_, msg := endMessage(res)
	prog.end(ctx, shorten(msg, 120))
	rn.log.Info("task ended", zap.String("task", t.id), zap.String("status", res.Status), zap.String("reason", res.Reason))
}

// announceEnd tells the editor a task ended: the end event and the
// closing message. It runs after the task is marked done, so an editor that
// reacts to either (accept, undo, status) finds the task finished, its
// result stored and its proposals published.
func (rn *runner) announceEnd(ctx context.Context, t *runningTask) {
	rn.hooks.maybePanic("announceEnd", t)
	t.mu.Lock()
	res, step := t.result, t.endStep
	t.mu.Unlock()
	rn.sendEvent(ctx, t, agent.Event{Kind: agent.KindEnd, Step: step, Result: &res})
	typ, msg := endMessage(res)
	if res.Cancelled {
		msg = "" // "cancelled by you" says it all
	} else {
		// The answer's first line: the whole answer is in the view; and
		// what waits for review, which finishTask put last.
		msg = strings.TrimSpace(rn.conf.config().Redact(msg))
		line := render.FirstLine(msg, 200)
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 && res.Outcome == "awaiting review" {
			line += " " + msg[i+1:]
		}
		msg = ": " + line
	}
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
	rn.ed.showMessage(ctx, typ, "agentls %s %s%s%s%s", t.id, statusWord(res), files, msg, usage)
}

func (rn *runner) cmdRun(ctx context.Context, a runArgs) (any, error) {
	return rn.startRun("agentls.run", a, false)
}

// startRun starts an agent task for agentls.run or agentls.continue.
func (rn *runner) startRun(name string, a runArgs, mustExist bool) (any, error) {
	if strings.TrimSpace(a.Task) == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: task is empty; say what the agent should do", name)
	}
	if a.Path != "" && a.URI == "" {
		root := rn.ed.rootDir()
		abs := a.Path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, abs)
		}
		rel, ok := relTo(root, abs)
		if !ok {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s is outside the workspace %s", name, a.Path, root)
		}
		a.URI = rn.ed.fileURI(rel)
	}
	editor, err := rn.editorContext(a.URI, a.Range)
	if err != nil {
		return nil, err
	}
	// .agentls.json as it is now: agent.review and agent.isolation are
	// decided here, before the task reads it again (runAgent).
	rn.conf.configure(context.Background(), nil)
	review := rn.conf.config().Agent.Review
	if a.Review != nil {
		review = *a.Review
	}
	if a.continueIn == nil && a.Session != "" && a.Isolation != assemble.IsolationNone {
		// A follow-up of a worktree task's session continues in its worktree.
		if w := rn.worktrees.worktreeOf(a.Session); w != nil {
			a.continueIn, a.Isolation = w, assemble.IsolationWorktree
		}
	}
	iso := assemble.IsolationWorktree
	if a.continueIn == nil {
		var err error
		if iso, err = rn.worktrees.isolation(context.Background(), name, a.Isolation); err != nil {
			return nil, err
		}
	}
	if iso == assemble.IsolationWorktree {
		// Its change comes back as a proposal, whatever agent.review says.
		review = true
	}
	a.Task = expandProjectCommand(rn.ed.rootDir(), a.Task, rn.conf.config().Tools.SecretFiles)
	t := &runningTask{prompt: a.Task, session: a.Session, review: review, editor: editor, mustExist: mustExist, model: a.Model, dir: rn.ed.uriDir(a.URI),
		isolation: iso, continueIn: a.continueIn, until: strings.TrimSpace(a.Until)}
	rn.tasks.start(t, rn.runAgent)
	return runResult{TaskID: t.id, Session: t.session}, nil
}

// editorContext renders the current file and selection for the model.
func (rn *runner) editorContext(u string, r *protocol.Range) (string, error) {
	if u == "" {
		return "", nil
	}
	root := rn.ed.rootDir()
	_, enc := rn.ed.clientState()
	d, open := rn.docs.getURI(u)
	path := d.path
	if !open {
		path = uriPath(u, "")
	}
	if path == "" {
		return fmt.Sprintf("The user's current document is %s (not a file in the workspace).", u), nil
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.run: %s is outside the workspace %s", u, root)
	}
	rel = filepath.ToSlash(rel)
	text := d.text
	if !open {
		// The one reader of workspace text for the model: a named pipe
		// must not block the request, and a secret file (or a link to
		// one) is not read.
		f, err := wsread.New(root, rn.conf.config().Tools.SecretFiles).Read(rel, tools.MaxFileSize)
		if err != nil || f.More {
			return fmt.Sprintf("The user's current file is %s.", rel), nil
		}
		text = string(f.Data)
	}
	if r == nil || r.Start == r.End {
		if r != nil {
			return fmt.Sprintf("The user's current file is %s, cursor at line %d.", rel, r.Start.Line+1), nil
		}
		return fmt.Sprintf("The user's current file is %s.", rel), nil
	}
	m := edits.NewMapper(text)
	start, end, err := m.RangeToOffsets(*r, enc)
	if err != nil {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.run: bad range: %v", err)
	}
	sel := text[start:end]
	if len(sel) > 16<<10 {
		sel = textcut.Head(sel, 16<<10) + "\n[selection truncated]"
	}
	return fmt.Sprintf("The user's current file is %s; selected lines %d–%d:\n```\n%s\n```", rel, r.Start.Line+1, r.End.Line+1, sel), nil
}
