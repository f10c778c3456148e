package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/delegate"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
)

// "/delegate TASK" hands the task to a worker on another machine: a job
// for the session's repository at its pushed commit (internal/delegate).
// "/jobs" lists the delegated jobs; "/jobs fetch ID" brings a finished
// one's change back as a worktree task (agentls worktrees merge ID).

// moreBuiltins are agentls's commands kept in files of their own.
var moreBuiltins = map[string]func(a *Agent, ctx context.Context, s *acpSession, out *stream, args string){
	"delegate": (*Agent).delegateCommand,
	"jobs":     (*Agent).jobsCommand,
}

// Files' init functions run in the order of their names: commands.go's
// table exists when this one runs.
func init() {
	builtinCommands = append(builtinCommands,
		sdk.AvailableCommand{Name: "delegate", Description: "Delegate the task to an agentls worker on another machine (the commit must be pushed)", Input: inputHint("task")},
		sdk.AvailableCommand{Name: "jobs", Description: "List delegated jobs, or bring a finished one's change back as a worktree task", Input: inputHint("fetch ID")},
	)
}

func (a *Agent) delegateCommand(ctx context.Context, s *acpSession, out *stream, args string) {
	if strings.TrimSpace(args) == "" {
		out.text("/delegate TASK: hands TASK to a worker (agentls worker) at the pushed commit.\n")
		return
	}
	job, warn, err := delegate.SubmitTask(ctx, s.taskConfig().Delegate, s.root, args, 0, nil)
	if warn != "" {
		out.text("_agentls: " + warn + "_\n")
	}
	if err != nil {
		out.text("Not delegated: " + err.Error() + "\n")
		return
	}
	out.text(fmt.Sprintf("Delegated job %s (%s at %s). /jobs shows its state; /jobs fetch %s brings its change back.\n", job.ID, job.Repo, job.Commit[:12], job.ID))
}

func (a *Agent) jobsCommand(ctx context.Context, s *acpSession, out *stream, args string) {
	q, err := delegate.Connect(ctx, s.taskConfig().Delegate, "agentls acp")
	if err != nil {
		out.text(err.Error() + "\n")
		return
	}
	defer q.Close()
	if id, ok := strings.CutPrefix(strings.TrimSpace(args), "fetch "); ok {
		id = strings.TrimSpace(id)
		state, err := session.StateDir()
		if err != nil {
			out.text(err.Error() + "\n")
			return
		}
		t, st, err := delegate.Fetch(ctx, q, s.root, state, id)
		if err != nil {
			out.text(err.Error() + "\n")
			return
		}
		var b strings.Builder
		if st.Result != nil {
			fmt.Fprintf(&b, "Job %s: %s\n", id, render.ResultLine(*st.Result))
		}
		changes, notes, err := t.Changes(ctx)
		if err != nil {
			fmt.Fprintf(&b, "The worktree's change could not be read: %v\n", err)
		}
		for _, c := range changes {
			fmt.Fprintf(&b, "- %s %s\n", c.Verb(), c.Rel)
		}
		for _, n := range notes {
			fmt.Fprintf(&b, "_worktree: %s_\n", n)
		}
		fmt.Fprintf(&b, "The change waits in the worktree %s: agentls worktrees merge %s, or review it in the editor.\n", t.Dir(), t.ID)
		out.text(b.String())
		return
	}
	list, err := delegate.List(ctx, q)
	if err != nil {
		out.text(err.Error() + "\n")
		return
	}
	if len(list) == 0 {
		out.text("No delegated jobs.\n")
		return
	}
	var b strings.Builder
	for _, j := range list {
		status := ""
		if j.Result != nil {
			status = " (" + j.Result.Status + ")"
		}
		fmt.Fprintf(&b, "- %s %s%s: %s\n", j.ID, j.State, status, render.OneLine(j.Task, 60))
	}
	out.text(b.String())
}
