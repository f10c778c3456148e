package cli

// This file is over 400 lines because it is the whole life of one
// `agentls run`, from flags to exit status, in the order it happens.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/llm/record"
	"github.com/agentls/agentls/internal/logging"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/policy/approval"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/verify/gate"
	"github.com/agentls/agentls/internal/worktree"
)

// Exit codes of `agentls run` (docs/headless.md).
const (
	exitOK        = 0
	exitFailed    = 1
	exitUsage     = 2
	exitCancelled = 130
)

// runTask is the headless `agentls run`: the agent loop of the server, with
// the terminal as its editor.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseRunArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentls run:", trimUsage(err))
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first Ctrl-C the default handler is back: a second one
	// ends the process at once.
	go func() {
		defer recoverTo(stderr, "the interrupt handler")
		<-ctx.Done()
		stop()
	}()
	return (&cliRun{o: o, stdin: stdin, stdout: stdout, stderr: stderr}).run(ctx)
}

func trimUsage(err error) string {
	s := err.Error()
	if p := errUsage.Error() + ": "; len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// cliRun is one `agentls run`.
type cliRun struct {
	o              runOptions
	stdin          io.Reader
	stdout, stderr io.Writer
	stdinLines     *lines
	early          []string // warnings found before the renderer exists (firsthour.go)
	noProject      bool     // the workspace has no project marker (firsthour.go)
}

// in is the one reader of stdin that serves every question: trust,
// command approvals and the review at the end.
func (c *cliRun) in() *lines {
	if c.stdinLines == nil {
		c.stdinLines = newLines(c.stdin)
	}
	return c.stdinLines
}

func (c *cliRun) usage(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "agentls run: "+format+"\n", args...)
	return exitUsage
}

func (c *cliRun) run(ctx context.Context) int {
	o := c.o
	root, err := workspaceRoot(o.workspace)
	if err != nil {
		return c.usage("current directory: %v", err)
	}
	disk, err := tools.NewDiskWorkspace(root)
	if err != nil {
		return c.usage("%v", err)
	}
	root = disk.Root()
	if code, stop := c.checkWorkspace(root); stop {
		return code
	}
	if o.task, err = expandCommand(root, o.task, func(w string) { c.early = append(c.early, w) }); err != nil {
		return c.usage("%v", err)
	}

	cfg, probs, untrusted, err := c.loadConfig(root)
	if err != nil {
		return c.usage("%v", err)
	}
	if o.baseURL != "" || o.replay != "" {
		// --base-url names the endpoint for this run, and --replay uses
		// none: the file's is moot.
		untrusted = slices.DeleteFunc(untrusted, func(k string) bool { return k == "llm.baseURL" })
	}
	cfg = o.apply(cfg)
	review, err := o.reviewMode(cfg, isTerminal(c.stdin) && isTerminal(c.stderr))
	if err != nil {
		return c.usage("%v", err)
	}

	var replay *record.Replayer
	if o.replay != "" {
		f, err := os.Open(o.replay)
		if err != nil {
			return c.usage("--replay: %v", err)
		}
		replay, err = record.NewReplayer(f)
		f.Close()
		if err != nil {
			return c.usage("--replay %s: %v", o.replay, err)
		}
	}

	if replay == nil {
		if err := checkEndpoint(cfg); err != nil {
			return c.usage("%v", err)
		}
	}

	log := zap.NewNop()
	if o.logFile != "" {
		l, closeLog, err := logging.New(o.logFile, "debug", c.stderr)
		if err != nil {
			return c.usage("%v", err)
		}
		defer closeLog()
		log = l
	}

	var ren renderer
	var text *textRenderer
	if o.json {
		ren = &jsonRenderer{w: c.stderr, redact: cfg.Redact}
	} else {
		text = newTextRenderer(c.stderr, cfg.Redact, isTerminal(c.stderr), cfg.Agent.MaxSteps)
		ren = text
	}
	defer ren.close()
	var out *resultFile
	if o.result != "" {
		out = newResultFile(ctx, root, cfg.Redact)
		ren = teeRenderer{ren, out.events}
	}
	for _, p := range probs {
		ren.warn(fmt.Sprintf("setting %q from %s: %s", p.Key, p.Source, p.Msg))
	}
	for _, w := range c.early {
		ren.warn(w)
	}

	var llm agent.LLM
	if replay != nil {
		llm = replay
	} else {
		llm = assemble.DefaultLLM(cfg)
	}
	var rec *record.Recorder
	if o.record != "" {
		f, err := os.OpenFile(o.record, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return c.usage("--record: %v", err)
		}
		defer f.Close()
		rec = record.NewRecorder(llm, f, cfg.Redact)
		llm = rec
	}

	// The session store: a failure there is reported and the task goes on
	// in memory.
	store, err := session.Open(root, session.Options{Memory: cfg.Agent.Memory, Redact: cfg.Redact, Warn: ren.warn})
	if err != nil {
		ren.warn(fmt.Sprintf("%v; the task runs without a session", err))
		if o.session != "" {
			ren.warn("session " + o.session + " could not be read: the task starts without its history")
		}
		store = nil
	}

	ws := newCLIWorkspace(disk, o.dryRun || review)
	in := c.in
	var (
		ask          approval.Ask
		confirmWrite func(context.Context, string, string) (bool, error)
		askNetwork   func(context.Context, string) (bool, error)
	)
	if isTerminal(c.stdin) && isTerminal(c.stderr) {
		var hold func() func()
		if text != nil {
			hold = text.hold
		}
		ask = terminalAsk(in, c.stderr, hold)
		yesNo := terminalYesNo(in, c.stderr, hold)
		confirmWrite = func(ctx context.Context, rel, why string) (bool, error) {
			return yesNo(ctx, fmt.Sprintf("agentls wants to change %s, which %s. Allow this change?", rel, why))
		}
		askNetwork = func(ctx context.Context, command string) (bool, error) {
			return yesNo(ctx, fmt.Sprintf("This command failed without network (agentls runs commands in a sandbox):\n  %s\nRun it again with network?", command))
		}
	}
	mcp := &assemble.SharedMCP{Log: log, Warn: ren.warn}
	defer mcp.Close()
	// The task's end is known only after the run: under --review what was
	// accepted, and whether a command was refused for want of an answer.
	// Its end event waits for both.
	var heldEnd *agent.Event
	onEvent := func(ev agent.Event) {
		if ev.Kind == agent.KindEnd {
			heldEnd = &ev
			return
		}
		ren.event(ev)
	}
	// Commands refused because nobody could be asked (no terminal, or
	// tools.approval "never"): the run then cannot end "ok".
	var refusedMu sync.Mutex
	var refused []string
	refuse := func(command, why string) {
		refusedMu.Lock()
		defer refusedMu.Unlock()
		refused = append(refused, fmt.Sprintf("%s (%s)", command, why))
	}
	if askNetwork == nil && cfg.Tools.Approval != config.ApprovalNever {
		askNetwork = func(_ context.Context, command string) (bool, error) {
			refuse(command, "it needs the network, and leaving the sandbox needs the user's approval")
			return false, nil
		}
	}
	model := cfg.LLM.Model
	if replay != nil && replay.Model() != "" {
		// The model that answers is the recorded one, and what it was
		// offered (its tools, its prompt) follows its name.
		model = replay.Model()
		cfg.LLM.Model = model
	}

	var st *session.Recorder
	var isolated *worktree.Tree
	var waiting []worktree.Change
	res, err := assemble.Run(ctx, assemble.TaskConfig{
		Spec: assemble.Spec{
			Config:    cfg,
			Root:      root,
			Workspace: ws,
			LLM:       llm,
			Approver:  approval.Reporting(cfg, nil, ask, refuse),
			OnEvent:   onEvent,
			Warn:      ren.warn,
			Log:       log,

			ConfirmWrite: confirmWrite,
			AskNetwork:   askNetwork,
			Until:        c.o.until,
		},
		Prompt:    o.task,
		Isolation: o.isolation,
		Dir:       cwdIn(root),
		Untrusted: untrusted,
		Store:     store,
		Session:   o.session,
		MustExist: true,
		// Steps for `agentls sessions rewind`: changes written to disk.
		Checkpoints: !o.dryRun && !review,
		MCP:         mcp,
		Gate: func(g *gate.Gate) {
			g.OnStart = func(cmd string) { ren.note("· running " + cmd) }
			g.Unsaved = func([]string) map[string][]byte { return ws.proposed() }
		},
		Hooks: assemble.Hooks{
			Began: func(rec *session.Recorder) {
				st = rec
				log.Info("task", zap.String("workspace", root), zap.String("session", st.Session()), zap.String("model", cfg.LLM.Model), zap.Bool("dryRun", o.dryRun), zap.Bool("review", review))
				ren.start(startInfo{Session: st.Session(), TaskID: st.ID(), Workspace: root, Model: model,
					Transcript: st.TranscriptPath(), DryRun: o.dryRun, Replay: replay != nil, NoProject: c.noProject})
			},
			Proposal: func(_ context.Context, w *worktree.Tree, changes []worktree.Change, notes []string, err error) {
				isolated, waiting = w, changes
				showWorktreeChange(c.stdout, ren, w, changes, notes, err)
			},
			Ended: func(ctx context.Context, res agent.Result) (agent.Result, []session.Change) {
				log.Info("task ended", zap.String("status", res.Status), zap.String("reason", res.Reason))
				if isolated != nil {
					// Nothing landed in the workspace: the change waits in the worktree.
					res.FilesChanged = nil
					res.Outcome = worktreeOutcome(isolated, waiting)
				}
				written := c.land(ctx, cfg, root, ws, review, text, ren, &res, st)
				refusedMu.Lock()
				res = refusedEnd(res, refused)
				refusedMu.Unlock()
				if heldEnd != nil {
					heldEnd.Result = &res
					ren.event(*heldEnd)
				}
				return res, ws.sessionChanges(written)
			},
		},
	})
	if out != nil {
		code := exitCode(res)
		if errors.Is(err, assemble.ErrUntrusted) {
			code = exitFailed
		}
		if err == nil || errors.Is(err, assemble.ErrUntrusted) {
			dir := root
			if isolated != nil {
				dir = isolated.Dir()
			}
			if werr := out.write(context.WithoutCancel(ctx), o.result, dir, model, code, res, st, store); werr != nil {
				ren.warn("--result: " + werr.Error())
			}
		}
	}
	switch {
	case errors.Is(err, assemble.ErrUntrusted):
		ren.warn(err.Error())
		return exitFailed
	case err != nil:
		return c.usage("%s", strings.TrimPrefix(err.Error(), assemble.ErrWontRun.Error()+": "))
	}
	code := exitCode(res)
	if rec != nil {
		if err := rec.Err(); err != nil {
			ren.warn(err.Error())
		}
	}
	if replay != nil && !res.Cancelled && replay.Err() == nil {
		if n := replay.Remaining(); n > 0 {
			ren.warn(fmt.Sprintf("replay: the run ended with %d recorded exchange%s unused: it diverged from the recording", n, plural(n)))
			code = exitFailed
		}
	}
	// (A replay that diverged never reached a model either, but what to
	// check then is the recording, which the warning above names.)
	if replay == nil && endSetupFailure(st, res, ren.warn, ren.note) {
		return code
	}
	if st != nil {
		if p := st.TranscriptPath(); p != "" {
			ren.note("transcript: " + p)
		}
		ren.note(fmt.Sprintf("session %s (continue it with: agentls run --session %s \"…\")", st.Session(), st.Session()))
	}
	return code
}

// land decides what of the task's changes reaches the disk: everything
// (already written), the files the user accepts (--review), or nothing
// (--dry-run, whose diff goes to stdout). It returns the files written and
// updates res to say what landed.
func (c *cliRun) land(ctx context.Context, cfg config.Config, root string, ws *cliWorkspace, review bool, text *textRenderer, ren renderer, res *agent.Result, st *session.Recorder) []string {
	changed := ws.changed()
	switch {
	case c.o.dryRun:
		for _, rel := range changed {
			fmt.Fprint(c.stdout, ws.diff(rel))
		}
		return nil
	case !review:
		return changed
	}
	var written []string
	if !res.Cancelled && len(changed) > 0 {
		if text != nil {
			text.pause()
		}
		accepted, err := reviewFiles(ctx, ws, changed, c.in(), c.stderr, cfg.Redact)
		if err != nil {
			*res = agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled", Error: "cancelled during review",
				Usage: res.Usage, Cost: res.Cost, Steps: res.Steps}
			return nil
		}
		for _, rel := range accepted {
			if err := ws.apply(context.WithoutCancel(ctx), rel); err != nil {
				ren.warn(fmt.Sprintf("%s: %v", rel, err))
				continue
			}
			written = append(written, rel)
		}
		ren.note(fmt.Sprintf("wrote %d of %d changed files", len(written), len(changed)))
		*res = c.checkAccepted(ctx, cfg, root, *res, changed, written, st, ren)
	}
	*res = reviewed(*res, written)
	return written
}

// refusedEnd is the result of a run that had commands refused because
// nobody could approve them: it cannot end "ok", and says which.
func refusedEnd(res agent.Result, refused []string) agent.Result {
	if n := len(refused); n > 0 && res.Status == agent.StatusOK {
		res.Status, res.Reason = agent.StatusError, "approval"
		res.Error = fmt.Sprintf("%d command%s needed the user's approval and nobody could be asked: %s. Run on a terminal to be asked, or allow what is safe with --allow or tools.allow",
			n, plural(n), strings.Join(refused, "; "))
	}
	return res
}

// reviewed is a review's result: the files written are what changed, and
// when none was, nothing was verified and the proposal's failing checks
// are not the workspace's.
func reviewed(res agent.Result, written []string) agent.Result {
	res.FilesChanged = written
	if len(written) == 0 && !res.Cancelled {
		res.Verified = false
		if res.Reason == "verifyFailed" {
			res.Reason = "done"
		}
	}
	return res
}

// apply lays the flags over the configuration.
func (o runOptions) apply(cfg config.Config) config.Config {
	if o.model != "" {
		cfg.LLM.Model = o.model
	}
	if o.baseURL != "" {
		cfg.LLM.BaseURL = o.baseURL
	}
	if o.maxSteps > 0 {
		cfg.Agent.MaxSteps = o.maxSteps
	}
	if o.noVerify {
		cfg.Verify.Enabled = false
	}
	if o.approval != "" {
		cfg.Tools.Approval = o.approval
	}
	// --allow goes through the same policy as tools.allow: the approver
	// reads it from the configuration.
	cfg.Tools.Allow = append(append([]string(nil), cfg.Tools.Allow...), o.allow...)
	return cfg
}

// reviewMode says whether the run asks about each file before writing it:
// --review, else agent.review; never under --dry-run, which writes
// nothing anyway. Review needs a terminal to ask on.
func (o runOptions) reviewMode(cfg config.Config, terminal bool) (bool, error) {
	review := cfg.Agent.Review
	if o.reviewSet {
		review = o.review
	}
	if review && o.dryRun {
		review = false
	}
	if review && !terminal {
		why := "--review"
		if !o.reviewSet {
			why = "agent.review is true in the configuration, and review"
		}
		return false, fmt.Errorf("%s asks about each file on a terminal, and stdin or stderr is not one; use --dry-run to see the changes without writing them, or --review=false", why)
	}
	return review, nil
}

// exitCode maps a result to the contract's exit status. A task that ended
// "ok" with nothing to verify (no file changed, verification disabled, no
// checks found) exits 0 like a verified one: there was nothing to fail.
func exitCode(res agent.Result) int {
	switch {
	case res.Cancelled:
		return exitCancelled
	case res.Status == agent.StatusOK && res.Reason != "verifyFailed":
		return exitOK
	}
	return exitFailed
}

// loadConfig resolves the settings: --settings, .agentls.json, the
// environment, the defaults. Settings in the workspace file that widen what agentls may run
// apply only once the user trusts the file's content: with --trust, or
// when asked on a terminal; otherwise they are held back with a warning.
func (c *cliRun) loadConfig(root string) (config.Config, []config.Problem, []string, error) {
	var store *policy.TrustStore
	if dir, err := session.StateDir(); err == nil {
		store = assemble.TrustStore(dir)
	}
	ws := assemble.ReadWorkspaceSettings(root, store)
	if len(ws.Untrusted) > 0 {
		trusted := c.o.trust
		if !trusted && isTerminal(c.stdin) && isTerminal(c.stderr) {
			trusted, _ = askYesNo(context.Background(), c.in(), c.stderr, ws.Question())
		}
		if trusted {
			if err := ws.Trust(store); err != nil {
				fmt.Fprintf(c.stderr, "agentls: %v\n", err)
			}
			ws.Untrusted = nil
			ws.Source, ws.Problems = config.FromJSON(config.FileName, ws.Content)
		}
	}
	var user config.Source
	var userProbs []config.Problem
	if c.o.settings != "" {
		data, err := os.ReadFile(c.o.settings)
		if err != nil {
			return config.Config{}, nil, nil, fmt.Errorf("--settings: %w", err)
		}
		user, userProbs = config.FromJSON(c.o.settings, data)
	}
	cfg, probs := config.Resolve(user, ws.Source, config.FromEnv(os.Getenv))
	probs = append(append(userProbs, ws.Problems...), probs...)
	if len(ws.Untrusted) > 0 {
		probs = append(probs, config.Problem{Key: strings.Join(ws.Untrusted, ", "), Source: config.FileName,
			Msg: "not applied: the file widens what agentls may run and is not trusted; run with --trust, or answer yes on a terminal"})
	}
	return cfg, probs, ws.Untrusted, nil
}

// checkAccepted runs the checks again on what a review wrote when it is
// not what was checked: the proposal passed or failed as a whole, and a
// part of it is another program. The outcome replaces the proposal's.
func (c *cliRun) checkAccepted(ctx context.Context, cfg config.Config, root string, res agent.Result, changed, written []string, st *session.Recorder, ren renderer) agent.Result {
	if len(written) == 0 || len(written) == len(changed) || res.Status != agent.StatusOK {
		return res
	}
	g := assemble.NewGate(cfg, root)
	if g == nil {
		return res
	}
	g.OnStart = func(cmd string) { ren.note("· running " + cmd + " on the accepted files") }
	rep, err := g.Verify(ctx, written)
	if err != nil {
		ren.warn("checking the accepted files: " + err.Error())
		res.Verified = false
		return res
	}
	ev := agent.Event{Kind: agent.KindVerify, Step: res.Steps, Verify: &rep}
	st.Event(ev)
	ren.event(ev)
	res.Verified = rep.Passed && !rep.Skipped
	res.Reason = "done"
	if !rep.Passed {
		res.Reason = "verifyFailed"
	}
	return res
}

// cwdIn is the working directory relative to root, "" at or outside it.
func cwdIn(root string) string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, wd)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}
