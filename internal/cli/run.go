package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/session"
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
