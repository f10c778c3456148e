package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/acpclient"
	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/verify/gate"
)

// runAgent is the body of an agentls.run task: the editor's part of
// assemble.Run (how it asks, through the editor, and how it shows, as
// progress, events and review).
func (s *Server) runAgent(ctx context.Context, t *runningTask) {
	// .agentls.json is read again at each task: an edit made during the
	// session applies to the next task, and a changed file that widens
	// power is asked about again before it runs.
	s.conf.configure(ctx, nil)
	if s.trust.settleTrust(ctx) {
		s.conf.configure(ctx, nil)
	}
	cfg := s.conf.config()
	if t.model != "" {
		cfg.LLM.Model = t.model // the model the task is wired for (newLLM, the bridge)
	}
	root := s.ed.rootDir()
	prog := s.beginProgress(ctx, t, "agentls", shorten(t.prompt, 80))
	ws, err := s.ed.newWorkspace(t)
	if err != nil {
		s.finishTask(ctx, t, prog, agent.Result{Status: agent.StatusError, Reason: "workspace", Error: err.Error()})
		return
	}
	newLLM := s.opts.NewLLM
	if newLLM == nil {
		newLLM = assemble.DefaultLLM
	}
	tc := assemble.TaskConfig{
		Spec: assemble.Spec{
			Config:    cfg,
			Root:      root,
			Workspace: ws,
			LLM:       newLLM(cfg),
			Log:       s.log,
			Until:     t.until,
		},
		// The editor asks through window/showMessageRequest and shows the
		// task as progress, agentls/event and the log.
		Ask: assemble.AskFuncs{Approver: s.asker.approver(cfg), Confirm: s.asker.confirmWrite, Network: s.asker.askNetwork},
		Show: assemble.ShowFuncs{
			OnEvent: func(ev agent.Event) { s.safeEvent(ctx, t, prog, ev) },
			OnWarn:  func(msg string) { s.conf.warnOnce(ctx, "agentls: "+msg) },
			OnBegan: func(rec *session.Recorder) {
				t.mu.Lock()
				t.transcript = rec.TranscriptPath()
				t.mu.Unlock()
			},
			OnEnded: func(ctx context.Context, res agent.Result) (agent.Result, []session.Change) {
				res = worktreeSummary(t, res)
				s.finishTask(ctx, t, prog, res)
				return res, sessionChanges(&t.changes)
			},
		},
		Model:     t.model,
		Prompt:    t.prompt,
		Editor:    t.editor,
		Dir:       t.dir,
		Untrusted: s.trust.heldBack(),
		Store:     s.conf.openStore(ctx, cfg, root),
		Session:   t.session,
		MustExist: t.mustExist,
		TaskID:    t.id,
		// Steps for agentls.rewind: changes the editor applied.
		Checkpoints: !t.review,
		MCP:         &s.mcp,
		Gate:        func(g *gate.Gate) { s.wireGate(ctx, g, root, t, prog) },
	}
	s.worktrees.isolate(&tc, t)
	if b := cfg.Agent.Backend.ACP; b != nil {
		// agent.backend.acp: an external ACP agent's loop instead of ours;
		// agentls keeps the editor's side (edits, review, undo, the gate).
		tc.Hooks.Backend = func(spec assemble.Spec) (driver.Actor, func()) {
			k := acpclient.Bridge{Agent: *b, Root: root, Workspace: ws, Ask: s.asker.ask(), Session: spec.Session, Log: s.log,
				ConfirmWrite: s.asker.confirmWrite, SecretFiles: cfg.Tools.SecretFiles, MCPServers: cfg.MCPServers}.Start()
			return k, k.Close
		}
	}
	if _, err := assemble.Run(ctx, tc); err != nil {
		reason := "session"
		if errors.Is(err, assemble.ErrUntrusted) {
			reason = "untrusted"
		}
		s.finishTask(ctx, t, prog, agent.Result{Status: agent.StatusError, Reason: reason, Error: err.Error()})
	}
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

// safeEvent is onEvent behind a panic barrier: the driver calls it on its
// own goroutine, and a panic there must end this task only, as "internal".
func (s *Server) safeEvent(ctx context.Context, t *runningTask, prog *progress, ev agent.Event) {
	if err := s.catch("onEvent", func() { s.onEvent(ctx, t, prog, ev) }); err != nil {
		t.fail(err)
		t.cancel()
	}
}

// onEvent forwards an agent event to the client: the agentls/event
// stream, progress reports, and the transcript in window/logMessage.
func (s *Server) onEvent(ctx context.Context, t *runningTask, prog *progress, ev agent.Event) {
	s.hooks.maybePanic("onEvent", t)
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
	cfg := s.conf.config()
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
			s.transcript(ctx, t, l)
		}
	}
}

func (s *Server) sendEvent(ctx context.Context, t *runningTask, ev agent.Event) {
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
	if cfg := s.conf.config(); len(cfg.LLM.APIKey) >= 4 && bytes.Contains(b, []byte(cfg.LLM.APIKey)) {
		b = []byte(cfg.Redact(string(b)))
	}
	s.ed.notify(ctx, "agentls/event", jsonrpc2.RawMessage(b))
}

func (s *Server) transcript(ctx context.Context, t *runningTask, line string) {
	s.ed.notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{
		Type: protocol.MessageTypeLog, Message: s.conf.config().Redact(fmt.Sprintf("[agentls %s] %s", t.id, line)),
	})
}

func (s *Server) finishTask(ctx context.Context, t *runningTask, prog *progress, res agent.Result) {
	s.hooks.maybePanic("finishTask", t)
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
		s.reviewer.endReview(ctx, t)
		if n := len(t.changes.Pending()); n > 0 {
			res.Summary += fmt.Sprintf("\n\nChanges to %d file%s wait for your review (%s).", n, plural(n), reviewHint(s.ed.clientName()))
			res.Outcome = "awaiting review"
			t.mu.Lock()
			t.result.Summary, t.result.Outcome = res.Summary, res.Outcome
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

// announceEnd tells the editor a task ended: the end event and the
// closing message. It runs after the task is marked done, so an editor that
// reacts to either (accept, undo, status) finds the task finished, its
// result stored and its proposals published.
func (s *Server) announceEnd(ctx context.Context, t *runningTask) {
	s.hooks.maybePanic("announceEnd", t)
	t.mu.Lock()
	res, step := t.result, t.endStep
	t.mu.Unlock()
	s.sendEvent(ctx, t, agent.Event{Kind: agent.KindEnd, Step: step, Result: &res})
	typ, msg := endMessage(res)
	if res.Cancelled {
		msg = "" // "cancelled by you" says it all
	} else {
		// The answer's first line: the whole answer is in the view; and
		// what waits for review, which finishTask put last.
		msg = strings.TrimSpace(s.conf.config().Redact(msg))
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
	s.ed.showMessage(ctx, typ, "agentls %s %s%s%s%s", t.id, statusWord(res), files, msg, usage)
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
