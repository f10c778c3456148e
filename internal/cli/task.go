package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/llm/record"
	"github.com/agentls/agentls/internal/logging"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/worktree"
)

// run is one `agentls run`: load (the workspace, the settings, the
// replay), build (the terminal's renderer and questions, the model, the
// session store), run (assemble.Run, the one lifecycle), report (the
// result file, the exit status, where the session is).
func (c *cliRun) run(ctx context.Context) int {
	l, code := c.load()
	if l == nil {
		return code
	}
	t, code := c.build(ctx, l)
	if t == nil {
		return code
	}
	defer t.close()
	res, err := assemble.Run(ctx, t.taskConfig())
	return c.report(ctx, t, res, err)
}

// loaded is what a run found before anything is shown.
type loaded struct {
	root      string
	disk      *tools.DiskWorkspace
	cfg       config.Config
	probs     []config.Problem
	untrusted []string
	review    bool
	replay    *record.Replayer
}

// load finds the workspace and its settings, checks the task names a
// project command that exists, and opens the replay; a nil loaded ends
// the run with code.
func (c *cliRun) load() (*loaded, int) {
	o := c.o
	root, err := workspaceRoot(o.workspace)
	if err != nil {
		return nil, c.usage("current directory: %v", err)
	}
	disk, err := tools.NewDiskWorkspace(root)
	if err != nil {
		return nil, c.usage("%v", err)
	}
	l := &loaded{root: disk.Root(), disk: disk}
	if code, stop := c.checkWorkspace(l.root); stop {
		return nil, code
	}
	// Expanded here, not by assemble.Run, so that a mistyped command is a
	// usage error before anything runs; the default secret files, since
	// the settings are read after.
	task, warn, err := assemble.ExpandCommand(l.root, o.task, nil)
	if err != nil {
		return nil, c.usage("%v", err)
	}
	if warn != nil {
		c.early = append(c.early, warn.Error())
	}
	c.o.task = task
	if l.cfg, l.probs, l.untrusted, err = c.loadConfig(l.root); err != nil {
		return nil, c.usage("%v", err)
	}
	if o.baseURL != "" || o.replay != "" {
		// --base-url names the endpoint for this run, and --replay uses
		// none: the file's is moot.
		l.untrusted = slices.DeleteFunc(l.untrusted, func(k string) bool { return k == "llm.baseURL" })
	}
	l.cfg = o.apply(l.cfg)
	if l.review, err = o.reviewMode(l.cfg, isTerminal(c.stdin) && isTerminal(c.stderr)); err != nil {
		return nil, c.usage("%v", err)
	}
	if o.replay != "" {
		f, err := os.Open(o.replay)
		if err != nil {
			return nil, c.usage("--replay: %v", err)
		}
		l.replay, err = record.NewReplayer(f)
		f.Close()
		if err != nil {
			return nil, c.usage("--replay %s: %v", o.replay, err)
		}
		if m := l.replay.Model(); m != "" {
			// The model that answers is the recorded one, and what it was
			// offered (its tools, its prompt) follows its name.
			l.cfg.LLM.Model = m
		}
	} else if err := checkEndpoint(l.cfg); err != nil {
		return nil, c.usage("%v", err)
	}
	return l, 0
}

// cliTask is a run built: what it shows on, asks with and records to.
type cliTask struct {
	*loaded
	c       *cliRun
	log     *zap.Logger
	ren     renderer
	text    *textRenderer // nil with --json
	out     *resultFile   // --result
	llm     agent.LLM
	rec     *record.Recorder
	store   *session.Store
	ws      *cliWorkspace
	mcp     *assemble.SharedMCP
	ask     *cliAsk
	closers []func()

	// Set as the task runs.
	mu       sync.Mutex
	refused  []string // commands refused because nobody could be asked
	heldEnd  *agent.Event
	st       *session.Recorder
	isolated *worktree.Tree
	waiting  []worktree.Change
}

func (t *cliTask) close() {
	for i := len(t.closers) - 1; i >= 0; i-- {
		t.closers[i]()
	}
}

// build makes the run's renderer, logger, model, session store and
// questions; a nil task ends the run with code.
func (c *cliRun) build(ctx context.Context, l *loaded) (_ *cliTask, code int) {
	o, cfg := c.o, l.cfg
	t := &cliTask{loaded: l, c: c, log: zap.NewNop()}
	defer func() {
		if code != 0 {
			t.close()
		}
	}()
	if o.logFile != "" {
		lg, closeLog, err := logging.New(o.logFile, "debug", c.stderr)
		if err != nil {
			return nil, c.usage("%v", err)
		}
		t.closers = append(t.closers, closeLog)
		t.log = lg
	}
	if o.json {
		t.ren = &jsonRenderer{w: c.stderr, redact: cfg.Redact}
	} else {
		t.text = newTextRenderer(c.stderr, cfg.Redact, isTerminal(c.stderr), cfg.Agent.MaxSteps)
		t.ren = t.text
	}
	t.closers = append(t.closers, t.ren.close)
	if o.result != "" {
		t.out = newResultFile(ctx, l.root, cfg.Redact)
		t.ren = teeRenderer{t.ren, t.out.events}
	}
	for _, p := range l.probs {
		t.ren.warn(fmt.Sprintf("setting %q from %s: %s", p.Key, p.Source, p.Msg))
	}
	for _, w := range c.early {
		t.ren.warn(w)
	}
	t.llm = agent.LLM(l.replay)
	if l.replay == nil {
		t.llm = assemble.DefaultLLM(cfg)
	}
	if o.record != "" {
		f, err := os.OpenFile(o.record, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, c.usage("--record: %v", err)
		}
		t.closers = append(t.closers, func() { f.Close() })
		t.rec = record.NewRecorder(t.llm, f, cfg.Redact)
		t.llm = t.rec
	}
	// The session store: a failure there is reported and the task goes on
	// in memory.
	store, err := session.Open(l.root, session.Options{Memory: cfg.Agent.Memory, Redact: cfg.Redact, Warn: t.ren.warn})
	if err != nil {
		t.ren.warn(fmt.Sprintf("%v; the task runs without a session", err))
		if o.session != "" {
			t.ren.warn("session " + o.session + " could not be read: the task starts without its history")
		}
		store = nil
	}
	t.store = store
	t.ws = newCLIWorkspace(l.disk, o.dryRun || l.review)
	t.ask = c.asker(t)
	t.mcp = &assemble.SharedMCP{Log: t.log, Warn: t.ren.warn}
	t.closers = append(t.closers, t.mcp.Close)
	return t, 0
}

// taskConfig is the task as assemble.Run takes it.
func (t *cliTask) taskConfig() assemble.TaskConfig {
	o := t.c.o
	return assemble.TaskConfig{
		Spec: assemble.Spec{
			Config:    t.cfg,
			Root:      t.root,
			Workspace: t.ws,
			LLM:       t.llm,
			Log:       t.log,
			Until:     o.until,
		},
		Ask:       t.ask,
		Show:      (*cliShow)(t),
		Prompt:    o.task,
		Isolation: o.isolation,
		Dir:       cwdIn(t.root),
		Untrusted: t.untrusted,
		Store:     t.store,
		Session:   o.session,
		MustExist: true,
		// Steps for `agentls sessions rewind`: changes written to disk.
		Checkpoints: !o.dryRun && !t.review,
		MCP:         t.mcp,
		Gate: func(g *assemble.Gate) {
			g.OnStart = func(cmd string) { t.ren.note("· running " + cmd) }
			g.Unsaved = func([]string) map[string][]byte { return t.ws.proposed() }
		},
		Hooks: assemble.Hooks{
			Proposal: func(_ context.Context, w *worktree.Tree, changes []worktree.Change, notes []string, err error) {
				t.isolated, t.waiting = w, changes
				showWorktreeChange(t.c.stdout, t.ren, w, changes, notes, err)
			},
		},
	}
}

// cliShow is how a run shows its task: on the terminal (or as JSON lines),
// with the end held until what landed is known.
type cliShow cliTask

func (s *cliShow) Warn(msg string) { s.ren.warn(msg) }

// Event shows ev; the end waits for Ended: under --review what was
// accepted, and whether a command was refused for want of an answer.
func (s *cliShow) Event(ev agent.Event) {
	if ev.Kind == agent.KindEnd {
		s.heldEnd = &ev
		return
	}
	s.ren.event(ev)
}

func (s *cliShow) Began(rec *session.Recorder) {
	s.st = rec
	o := s.c.o
	s.log.Info("task", zap.String("workspace", s.root), zap.String("session", rec.Session()), zap.String("model", s.cfg.LLM.Model), zap.Bool("dryRun", o.dryRun), zap.Bool("review", s.review))
	s.ren.start(startInfo{Session: rec.Session(), TaskID: rec.ID(), Workspace: s.root, Model: s.cfg.LLM.Model,
		Transcript: rec.TranscriptPath(), DryRun: o.dryRun, Replay: s.replay != nil, NoProject: s.c.noProject})
}

func (s *cliShow) Ended(ctx context.Context, res agent.Result) (agent.Result, []session.Change) {
	s.log.Info("task ended", zap.String("status", res.Status), zap.String("reason", res.Reason))
	if s.isolated != nil {
		// Nothing landed in the workspace: the change waits in the worktree.
		res.FilesChanged = nil
		res.Outcome = worktreeOutcome(s.isolated, s.waiting)
	}
	written := s.c.land(ctx, s.cfg, s.root, s.ws, s.review, s.text, s.ren, &res, s.st)
	s.mu.Lock()
	res = refusedEnd(res, s.refused)
	s.mu.Unlock()
	if s.heldEnd != nil {
		s.heldEnd.Result = &res
		s.ren.event(*s.heldEnd)
	}
	return res, s.ws.sessionChanges(written)
}

// cliAsk is how a run asks: on the terminal when there is one; without
// one, a command that needs a question is refused and recorded (the run
// then cannot end "ok"), and a protected write cannot be asked about.
type cliAsk struct {
	tools.Approver
	yesNo func(ctx context.Context, question string) (bool, error) // nil: no terminal
	t     *cliTask
}

func (c *cliRun) asker(t *cliTask) *cliAsk {
	a := &cliAsk{t: t}
	var ask approval.Ask
	if isTerminal(c.stdin) && isTerminal(c.stderr) {
		var hold func() func()
		if t.text != nil {
			hold = t.text.hold
		}
		in := c.in
		ask = terminalAsk(in, c.stderr, hold)
		a.yesNo = terminalYesNo(in, c.stderr, hold)
	}
	a.Approver = approval.Reporting(t.cfg, nil, ask, a.refuse)
	return a
}

func (a *cliAsk) refuse(command, why string) {
	a.t.mu.Lock()
	defer a.t.mu.Unlock()
	a.t.refused = append(a.t.refused, fmt.Sprintf("%s (%s)", command, why))
}

func (a *cliAsk) ConfirmWrite(ctx context.Context, rel, why string) (bool, error) {
	if a.yesNo == nil {
		return false, tools.ErrCannotAsk
	}
	return a.yesNo(ctx, fmt.Sprintf("agentls wants to change %s, which %s. Allow this change?", rel, why))
}

func (a *cliAsk) AskNetwork(ctx context.Context, command string) (bool, error) {
	if a.yesNo == nil {
		if a.t.cfg.Tools.Approval == config.ApprovalNever {
			return false, tools.ErrCannotAsk
		}
		a.refuse(command, "it needs the network, and leaving the sandbox needs the user's approval")
		return false, nil
	}
	return a.yesNo(ctx, fmt.Sprintf("This command failed without network (agentls runs commands in a sandbox):\n  %s\nRun it again with network?", command))
}

// report writes the result file, warns of a recording or replay gone
// wrong, says where the session is, and returns the exit status.
func (c *cliRun) report(ctx context.Context, t *cliTask, res agent.Result, err error) int {
	if t.out != nil {
		code := exitCode(res)
		if errors.Is(err, assemble.ErrUntrusted) {
			code = exitFailed
		}
		if err == nil || errors.Is(err, assemble.ErrUntrusted) {
			dir := t.root
			if t.isolated != nil {
				dir = t.isolated.Dir()
			}
			if werr := t.out.write(context.WithoutCancel(ctx), c.o.result, dir, t.cfg.LLM.Model, code, res, t.st, t.store); werr != nil {
				t.ren.warn("--result: " + werr.Error())
			}
		}
	}
	switch {
	case errors.Is(err, assemble.ErrUntrusted):
		t.ren.warn(err.Error())
		return exitFailed
	case err != nil:
		return c.usage("%s", strings.TrimPrefix(err.Error(), assemble.ErrWontRun.Error()+": "))
	}
	code := exitCode(res)
	if t.rec != nil {
		if err := t.rec.Err(); err != nil {
			t.ren.warn(err.Error())
		}
	}
	if t.replay != nil && !res.Cancelled && t.replay.Err() == nil {
		if n := t.replay.Remaining(); n > 0 {
			t.ren.warn(fmt.Sprintf("replay: the run ended with %d recorded exchange%s unused: it diverged from the recording", n, plural(n)))
			code = exitFailed
		}
	}
	// (A replay that diverged never reached a model either, but what to
	// check then is the recording, which the warning above names.)
	if t.replay == nil && endSetupFailure(t.st, res, t.ren.warn, t.ren.note) {
		return code
	}
	if st := t.st; st != nil {
		if p := st.TranscriptPath(); p != "" {
			t.ren.note("transcript: " + p)
		}
		t.ren.note(fmt.Sprintf("session %s (continue it with: agentls run --session %s \"…\")", st.Session(), st.Session()))
	}
	return code
}
