package assemble

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/tools"
)

// untilTimeout bounds one run of a stop condition.
const untilTimeout = 30 * time.Minute

// maxUntilOutput is how much of a failing condition's output the model
// gets (its tail: where test runners say what failed).
const maxUntilOutput = 8 << 10

// until is a task's stop condition (agentls run --until, agentls.run's
// until, ACP's /until): when the model stops, the command runs in the
// task's sandbox; while it fails the model goes back to work with its
// output, until it succeeds or the budget ends. The command is the user's,
// not the model's, so it is not put to the approval policy; but what it
// runs is the workspace's code, so it runs confined: where the sandbox
// cannot be had, it does not run, and the task ends saying so.
type until struct {
	command string
	cfg     config.Config
	root    string
	ws      agent.Workspace // the editor's texts, when it holds files
}

func (u until) CheckStop(ctx context.Context, c agent.CheckStop) agent.StopChecked {
	sb, confined, why := Sandbox(u.cfg, u.root)
	if !confined && u.cfg.Sandbox.Mode != proc.ModeOff {
		return agent.StopChecked{Note: fmt.Sprintf("the stop condition `%s` was not run: %s", u.command, why)}
	}
	if v, ok := tools.As[tools.Viewer](u.ws); ok && sb.Mode != proc.ModeOff {
		// As the checks do: the condition sees the editor's texts, and
		// what it writes stays in the view.
		if view := v.View(ctx); len(view) > 0 {
			sb.View = view
		}
	}
	res, err := proc.Run(ctx, proc.Spec{
		Shell:       u.command,
		Dir:         u.root,
		Secrets:     secrets(u.cfg),
		Timeout:     untilTimeout,
		OutputLimit: 256 << 10,
		Sandbox:     sb,
	})
	if errors.Is(err, proc.ErrUnavailable) || (err != nil && ctx.Err() == nil) {
		return agent.StopChecked{Note: fmt.Sprintf("the stop condition `%s` could not run: %v", u.command, err)}
	}
	if err != nil {
		return agent.StopChecked{}
	}
	if res.ExitCode == 0 && !res.TimedOut {
		return agent.StopChecked{Note: fmt.Sprintf("the stop condition `%s` passed", u.command)}
	}
	how := fmt.Sprintf("exit %d", res.ExitCode)
	switch {
	case res.TimedOut:
		how = "timed out after " + untilTimeout.String()
	case res.ExitCode < 0:
		how = "killed by a signal"
	}
	out := strings.TrimSpace(res.Output)
	if len(out) > maxUntilOutput {
		out = "…" + out[textcut.Ceil(out, len(out)-maxUntilOutput):]
	}
	return agent.StopChecked{
		Continue: true,
		Feedback: fmt.Sprintf("You may stop only once `%s` succeeds; it failed (%s):\n\n%s\n\nFix what it reports, then stop again.", u.command, how, out),
		Unmet:    fmt.Sprintf("the stop condition `%s` still fails (%s)", u.command, how),
		Note:     fmt.Sprintf("the stop condition `%s` failed (%s); the model goes back to work", u.command, how),
	}
}
