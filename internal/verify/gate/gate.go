// Package gate is the verify gate: it runs a workspace's checks (package
// verify) on the files as a task left them and sums the results up as the
// machine's agent.VerifyReport, for the machine, the person and the
// model. assemble builds one from the settings (assemble.NewGate); the
// front ends wire its hooks (the texts the checks see, progress,
// diagnostics).
package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/verify"
)

// Gate is the verify gate: it runs the project's checks on the files as
// the agent left them and sums the results up for the machine, the person
// and the model. It implements driver.Verifier.
type Gate struct {
	Root string
	// Commands are the checks: verify.commands, or (detected) every check
	// the project files call for, of which each run keeps those the
	// workspace has sources for.
	Commands []string
	Timeout  time.Duration
	// Unsaved returns the texts the checks must see instead of the disk
	// for the changed files (editor buffers, proposals); nil: the disk.
	Unsaved func(changed []string) map[string][]byte
	// OnStart is told each command as it starts (progress); may be nil.
	OnStart func(command string)
	// OnResults sees every run's results (diagnostics); may be nil.
	OnResults func(ctx context.Context, results []verify.Result)
	// Sandbox confines the checks (from sandbox.*; assemble.NewGate sets it).
	Sandbox proc.Sandbox
	// Secrets are values no check's environment may hold (the API key).
	Secrets []string
	// Approve is asked before each check runs when the sandbox turns out
	// to be unavailable here: a check is then a command like any other
	// (assemble.Driver sets it to the task's approver).
	Approve func(ctx context.Context, command string) (bool, string, error)
	// Warn is told once that checks run without the sandbox's view.
	Warn func(string)
	// Before tells the changed files' texts as the task found them: when
	// the checks fail, they run again on those (the baseline), and what
	// failed before the task too is labelled pre-existing and does not
	// fail the task. nil: no baseline.
	Before Before
	// Detected: Commands came from verify.DetectAny, so each run detects
	// again with the task's files: a check with nothing to check (go vet
	// on a module with no Go files) is skipped, and one the task's new
	// files call for is added.
	Detected bool
}

// Verify implements driver.Verifier.
func (g *Gate) Verify(ctx context.Context, changed []string) (agent.VerifyReport, error) {
	var unsaved map[string][]byte
	if g.Unsaved != nil {
		unsaved = g.Unsaved(changed)
	}
	sb, unconfined := g.Sandbox, false
	if sb.Mode != proc.ModeOff {
		if ok, _ := proc.Available(); !ok {
			sb.Mode, unconfined = proc.ModeOff, true
		}
	}
	cmds := g.Commands
	var checks []verify.Check
	if g.Detected {
		present := append([]string(nil), changed...)
		for rel := range unsaved {
			present = append(present, rel)
		}
		cmds = verify.DetectWith(g.Root, present)
		if len(cmds) == 0 {
			return agent.VerifyReport{Passed: true, Skipped: true,
				Summary: "nothing to check: no source files yet for " + strings.Join(verify.DetectAny(g.Root), "; ")}, nil
		}
		checks = verify.Scope(ctx, verify.ScopeInput{Root: g.Root, Commands: cmds, Changed: changed, Unsaved: unsaved,
			Sandbox: sb, Secrets: g.Secrets})
		cmds = verify.Commands(checks)
		if len(cmds) == 0 && !verify.Estimated(checks) {
			return agent.VerifyReport{Passed: true, Skipped: true,
				Summary: "nothing to check: the changed files are in nothing the checks cover"}, nil
		}
	}
	// An estimated scope that passes is followed by the full checks.
	full := cmds
	if verify.Estimated(checks) {
		full = verify.FullCommands(checks)
	}
	if g.Approve != nil && unconfined {
		asked := map[string]bool{}
		for _, c := range append(append([]string(nil), cmds...), full...) {
			if asked[c] {
				continue
			}
			asked[c] = true
			ok, reason, err := g.Approve(ctx, c)
			if err != nil {
				return agent.VerifyReport{}, err
			}
			if !ok {
				return agent.VerifyReport{Commands: cmds, Summary: "the check `" + c + "` was not allowed to run: " + reason,
					Feedback: "The project's checks could not run: " + reason + ". Do not try to work around them; say what you changed and that it is unverified."}, nil
			}
		}
	}
	opts := verify.RunOptions{Root: g.Root, Commands: cmds, Unsaved: unsaved, Timeout: g.Timeout, OnStart: g.OnStart,
		Sandbox: sb, Warn: g.Warn, Secrets: g.Secrets}
	var results []verify.Result
	var err error
	ran, scopedPassed := cmds, false
	if len(cmds) > 0 {
		if results, err = g.check(ctx, opts, changed, unsaved); err != nil {
			return agent.VerifyReport{}, err
		}
		scopedPassed = Report(results, cmds).Passed
	}
	if verify.Estimated(checks) && (len(cmds) == 0 || scopedPassed) {
		// The scope was read from the source, which code can defeat: the
		// task is verified only by the checks as detected.
		opts.Commands = full
		if results, err = g.check(ctx, opts, changed, unsaved); err != nil {
			return agent.VerifyReport{}, err
		}
		ran = full
	}
	if g.OnResults != nil {
		g.OnResults(ctx, results)
	}
	rep := Report(results, ran)
	rep.Summary += scopeNote(checks, cmds, ran)
	return rep, nil
}

// scopeNote says which checks ran: the detected ones narrowed to what the
// change reaches, or the full ones (after the scoped ones passed, when the
// scope was an estimate).
func scopeNote(checks []verify.Check, scoped, ran []string) string {
	if !verify.Scoped(checks) {
		return ""
	}
	if strings.Join(ran, "\n") == strings.Join(scoped, "\n") {
		return "; scoped to what the change reaches (full: " + strings.Join(verify.FullCommands(checks), "; ") + ")"
	}
	if len(scoped) == 0 {
		return "; full checks (no test reaches the change by its imports)"
	}
	return "; full checks, after the scoped ones passed (" + strings.Join(scoped, "; ") + ")"
}

// check runs opts's commands and, when they fail and the gate has a
// baseline, the same commands on the text before the task, excusing what
// failed there too.
func (g *Gate) check(ctx context.Context, opts verify.RunOptions, changed []string, unsaved map[string][]byte) ([]verify.Result, error) {
	results, err := verify.Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	if g.Before != nil && failed(results) {
		if base, maps := g.baseline(ctx, opts, changed, unsaved); base != nil {
			excuse(g.Root, results, base, changed, maps)
		}
	}
	return results, nil
}

// failed reports whether a check failed.
func failed(results []verify.Result) bool {
	for _, r := range results {
		if !r.Passed {
			return true
		}
	}
	return false
}

// Report sums check results up. The summary holds no timings, so a replayed
// task sends the same events as the recorded one, in every front end.
func Report(results []verify.Result, commands []string) agent.VerifyReport {
	rep := agent.VerifyReport{Passed: true, Commands: commands}
	var failed, unlocated, before []string
	for _, r := range results {
		rep.Problems += len(r.Diagnostics)
		for _, d := range r.Diagnostics {
			if d.PreExisting {
				rep.PreExisting++
				if len(before) < 3 {
					before = append(before, located(r.Root, d))
				}
			}
			if len(rep.Located) < agent.MaxLocated {
				l := located(r.Root, d)
				if d.PreExisting {
					l += " (there before this task)"
				}
				rep.Located = append(rep.Located, l)
			}
		}
		if !r.Passed && r.PreExisting && len(r.Diagnostics) == 0 {
			before = append(before, fmt.Sprintf("`%s` failed before this task too", r.Command))
		}
		if !r.Passed && !r.PreExisting {
			rep.Passed = false
			what := fmt.Sprintf("failed (exit %d)", r.ExitCode)
			if r.TimedOut {
				what = "timed out"
			}
			failed = append(failed, fmt.Sprintf("`%s` %s", r.Command, what))
			unlocated = append(unlocated, r.Unlocated...)
		}
	}
	pre := ""
	if len(before) > 0 {
		pre = fmt.Sprintf("; there before this task, not its own: %s", strings.Join(before, " | "))
		if rep.PreExisting > len(before) {
			pre += fmt.Sprintf(" (and %d more)", rep.PreExisting-len(before))
		}
	}
	if rep.Passed {
		if pre != "" {
			rep.Summary = fmt.Sprintf("no new problems from this task (%s)%s", strings.Join(commands, "; "), pre)
			return rep
		}
		rep.Summary = fmt.Sprintf("%d check%s passed (%s)", len(results), plural(len(results)), strings.Join(commands, "; "))
		return rep
	}
	rep.Feedback = verify.Feedback(results, 0)
	rep.Summary = fmt.Sprintf("%s; %d problem%s located%s", strings.Join(failed, ", "), rep.Problems-rep.PreExisting, plural(rep.Problems-rep.PreExisting), pre)
	if n := min(len(unlocated), 3); n > 0 {
		rep.Summary += "; output: " + strings.Join(unlocated[:n], " | ")
	}
	return rep
}

// located is "file:line: message" with the path relative to root, on one
// line.
func located(root string, d verify.Diagnostic) string {
	p := d.Path
	if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
		p = filepath.ToSlash(rel)
	}
	msg := strings.Join(strings.Fields(d.Message), " ")
	if len(msg) > 200 {
		msg = textcut.Head(msg, 200) + "…"
	}
	return fmt.Sprintf("%s:%d: %s", p, d.Line, msg)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
