package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/verify"
)

// checks is the CLI's verify gate: the project's commands, run on the
// disk, or on an overlay of the proposed texts when nothing is written
// (--dry-run, --review), so the user's files are never touched by a check.
type checks struct {
	root     string
	commands []string
	timeout  time.Duration
	proposed func() map[string][]byte // nil: the edits are on disk
	onStart  func(cmd string)
}

// newChecks returns the gate, or nil when verification is off or the
// workspace has no checks: a task then ends "ok" with nothing verified.
func newChecks(cfg config.Config, root string, ws *cliWorkspace, onStart func(string)) *checks {
	if !cfg.Verify.Enabled {
		return nil
	}
	cmds := cfg.Verify.Commands
	if len(cmds) == 0 {
		cmds = verify.Detect(root)
	}
	if len(cmds) == 0 {
		return nil
	}
	return &checks{root: root, commands: cmds, timeout: time.Duration(cfg.Verify.TimeoutSeconds) * time.Second,
		proposed: ws.proposed, onStart: onStart}
}

// Verify implements driver.Verifier.
func (c *checks) Verify(ctx context.Context, changed []string) (agent.VerifyReport, error) {
	var overlay map[string][]byte
	if c.proposed != nil {
		overlay = c.proposed()
	}
	results, err := verify.Run(ctx, verify.RunOptions{Root: c.root, Commands: c.commands, Overlay: overlay, Timeout: c.timeout, OnStart: c.onStart})
	if err != nil {
		return agent.VerifyReport{}, err
	}
	return checkReport(results, c.commands), nil
}

// checkReport sums up the results. The summary holds no timings, so a
// replayed task reports the same events as the recorded one.
func checkReport(results []verify.Result, commands []string) agent.VerifyReport {
	rep := agent.VerifyReport{Passed: true, Commands: commands}
	var failed, unlocated []string
	for _, r := range results {
		rep.Problems += len(r.Diagnostics)
		if !r.Passed {
			rep.Passed = false
			what := fmt.Sprintf("failed (exit %d)", r.ExitCode)
			if r.TimedOut {
				what = "timed out"
			}
			failed = append(failed, fmt.Sprintf("`%s` %s", r.Command, what))
			unlocated = append(unlocated, r.Unlocated...)
		}
	}
	if rep.Passed {
		rep.Summary = fmt.Sprintf("%d check%s passed (%s)", len(results), plural(len(results)), strings.Join(commands, "; "))
		return rep
	}
	rep.Feedback = verify.Feedback(results, 0)
	rep.Summary = fmt.Sprintf("%s; %d problem%s located", strings.Join(failed, ", "), rep.Problems, plural(rep.Problems))
	if n := min(len(unlocated), 3); n > 0 {
		rep.Summary += "; output: " + strings.Join(unlocated[:n], " | ")
	}
	return rep
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
