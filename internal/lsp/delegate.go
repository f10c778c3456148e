package lsp

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/delegate"
)

// Delegated tasks: "Delegate task" publishes a job for the workspace's
// repository at its pushed commit (internal/delegate); agentls.jobs lists
// them; agentls.jobFetch brings a finished one's change back as a worktree
// task, which agentls.worktreeReview/Merge/Discard then handle like any.
//
// The commands join the table here, in a file of their own: files'
// init functions run in the order of their names, so commands.go's table
// exists when this one runs.
func init() {
	commands = append(commands,
		cmd("agentls.delegate", "{task, maxSteps?, allow?}", onJobs, (*jobs).cmdDelegate).
			documented("\"Delegate task\": answers `{job, repo, commit, warning?}`, a job for the workspace's repository at the commit checked out, for an `agentls worker` elsewhere ([multi-machine](../multi-machine.md)). Refused (`-32602`, saying why) when that commit is on no remote-tracking branch or no `delegate.url` is set. `maxSteps` and `allow` may only narrow the worker's. While the server runs, the job's end brings its change in as a worktree task named by the job id, with a message (or says why it failed)."),
		cmd("agentls.jobs", "{}", onJobs, (*jobs).cmdJobs).
			documented("Answers `{jobs: [{id, state, repo, commit, task, worker, attempt, exit?, result?, reason?, objects?, time}]}`: delegated jobs, newest first; `state` is `queued`, `running`, `done` or `failed`."),
		cmd("agentls.jobFetch", "{id}", onJobs, (*jobs).cmdJobFetch).
			documented("Answers `{worktree, path, state, result}`: a finished job's change as a [worktree task](../worktrees.md) named by the job id, for `agentls.worktreeReview` / `agentls.worktreeMerge` / `agentls.worktreeDiscard`; its session is imported, so `agentls.continue` can carry on from it."),
	)
}

// jobs delegates tasks to workers elsewhere (internal/delegate) and
// brings a finished job's change in as a worktree task.
type jobs struct {
	guard    // its watchers' barrier
	ed       *editor
	conf     *configState
	log      *zap.Logger
	stateDir string          // where a fetched job's worktree goes
	exited   <-chan struct{} // closed when the server exits: watchers stop
}

type delegateArgs struct {
	Task     string   `json:"task"`
	MaxSteps int      `json:"maxSteps,omitempty"`
	Allow    []string `json:"allow,omitempty"`
}

type delegateResult struct {
	Job     string `json:"job"`
	Repo    string `json:"repo"`
	Commit  string `json:"commit"`
	Warning string `json:"warning,omitempty"`
}

type jobFetchArgs struct {
	ID string `json:"id"`
}

func (j *jobs) cmdDelegate(ctx context.Context, a delegateArgs) (any, error) {
	if a.Task == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.delegate: no task")
	}
	job, warn, err := delegate.SubmitTask(ctx, j.conf.config().Delegate, j.ed.rootDir(), a.Task, a.MaxSteps, a.Allow)
	if errors.Is(err, delegate.ErrNotPushed) || errors.Is(err, delegate.ErrNoServer) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.delegate: %v", err)
	}
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls.delegate: %v", err)
	}
	if warn != "" {
		j.ed.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s", warn)
	}
	j.ed.showMessage(ctx, protocol.MessageTypeInfo, "agentls: delegated job %s; its change will wait here as a worktree task when it is done", job.ID)
	cfg := j.conf.config().Delegate
	j.goSafe("watching a delegated job", func() { j.watchJob(cfg, job.ID) })
	return delegateResult{Job: job.ID, Repo: job.Repo, Commit: job.Commit, Warning: warn}, nil
}

func (j *jobs) cmdJobs(ctx context.Context, _ noArgs) (any, error) {
	q, err := delegate.Connect(ctx, j.conf.config().Delegate, "agentls lsp")
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls.jobs: %v", err)
	}
	defer q.Close()
	list, err := delegate.List(ctx, q)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls.jobs: %v", err)
	}
	if list == nil {
		list = []delegate.Status{}
	}
	return map[string]any{"jobs": list}, nil
}

func (j *jobs) cmdJobFetch(ctx context.Context, a jobFetchArgs) (any, error) {
	q, err := delegate.Connect(ctx, j.conf.config().Delegate, "agentls lsp")
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls.jobFetch: %v", err)
	}
	defer q.Close()
	t, st, err := delegate.Fetch(ctx, q, j.ed.rootDir(), j.stateDir, a.ID)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.jobFetch: %v", err)
	}
	return map[string]any{"worktree": t.ID, "path": t.Dir(), "state": st.State, "result": st.Result}, nil
}

// watchJob waits for a delegated job's end while the server runs, then
// brings its change in as a worktree task (or says why it failed): the
// change arrives like a worktree task's, for agentls.worktreeReview and
// agentls.worktreeMerge. The job's state subject is followed with a plain
// subscription; the last state is read after subscribing, so an end that
// came first is not missed.
func (j *jobs) watchJob(cfg config.Delegate, id string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q, err := delegate.Connect(ctx, cfg, "agentls lsp")
	if err != nil {
		j.log.Warn("watching a delegated job", zap.String("job", id), zap.Error(err))
		return
	}
	defer q.Close()
	ch := make(chan *nats.Msg, 16)
	sub, err := q.NC.ChanSubscribe(delegate.ResultsSubj+"."+id, ch)
	if err != nil {
		return
	}
	defer sub.Unsubscribe()
	final := func() (delegate.Status, bool) {
		st, err := delegate.LastStatus(ctx, q, id)
		return st, err == nil && st.Final()
	}
	st, done := final()
	for !done {
		select {
		case <-ch:
			st, done = final()
		case <-j.exited:
			return
		case <-j.ed.conn.Done():
			return
		}
	}
	if st.State == delegate.StateFailed {
		j.ed.showMessage(ctx, protocol.MessageTypeWarning, "agentls: delegated job %s failed: %s", id, st.Reason)
		return
	}
	t, st, err := delegate.Fetch(ctx, q, j.ed.rootDir(), j.stateDir, id)
	if err != nil {
		j.ed.showMessage(ctx, protocol.MessageTypeWarning, "agentls: delegated job %s: %v", id, err)
		return
	}
	status := ""
	if st.Result != nil {
		status = fmt.Sprintf(" (%s)", st.Result.Status)
	}
	j.ed.showMessage(ctx, protocol.MessageTypeInfo, "agentls: delegated job %s is done%s: its change waits as worktree task %s (agentls.worktreeReview, agentls.worktreeMerge, agentls.worktreeDiscard)", id, status, t.ID)
}
