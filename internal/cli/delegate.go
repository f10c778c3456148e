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
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/delegate"
	"github.com/agentls/agentls/internal/logging"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
)

const workerUsage = `usage: agentls worker [flags]

Takes delegated jobs from the NATS JetStream work queue (stream AGENTLS_JOBS,
durable consumer agentls-workers) and runs each as "agentls run" in a fresh
clone at the job's commit, with tools.approval never; stores the result in the
object store AGENTLS_RESULTS and publishes the job's state on
agentls.results.<id>, then acks. The NATS server comes from delegate.url
(AGENTLS_NATS_URL), credentials from delegate.credentials or delegate.nkey, TLS
from delegate.tlsCA/tlsCert/tlsKey; the model from the llm.* settings. SIGTERM
cancels the running jobs and gives them back to the queue.

Flags:
`

// Worker is `agentls worker`.
func Worker(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, workerUsage); fs.PrintDefaults() }
	var repos, allow patterns
	concurrency := fs.Int("concurrency", 1, "jobs run at once by this worker")
	dir := fs.String("dir", "", "where the jobs' clones, state and results live while they run (default: the state directory's worker/)")
	fs.Var(&repos, "repo", "take jobs for repository URLs that `PATTERN` matches (path.Match; * any); repeatable, at least one")
	fs.Var(&allow, "allow", "tools.allow for every job (a job may narrow it, never widen it); repeatable")
	maxSteps := fs.Int("max-steps", 0, "model turns at most for a job (default agent.maxSteps of the settings; a job may ask fewer)")
	ackWait := fs.Duration("ack-wait", delegate.DefaultConsumer.AckWait, "consumer AckWait: a job whose worker stops saying it is in progress for this long is redelivered")
	maxDeliver := fs.Int("max-deliver", delegate.DefaultConsumer.MaxDeliver, "consumer MaxDeliver: deliveries of a job before it ends as failed")
	maxAckPending := fs.Int("max-ack-pending", delegate.DefaultConsumer.MaxAckPending, "consumer MaxAckPending: jobs running at once across all workers")
	settings := fs.String("settings", "", "a JSON file of settings (as in the editor's): delegate.*, and llm.*, tools.*, sandbox.*, agent.*, verify.* for every job (keep the API key in AGENTLS_API_KEY)")
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 || len(repos) == 0 || *concurrency < 1 || *maxDeliver < 1 {
		fmt.Fprintln(stderr, "agentls worker: give at least one --repo, a --concurrency and --max-deliver of 1 or more, and no arguments")
		return exitUsage
	}
	cfg, settingsData, code := userConfig(*settings, stderr, "worker")
	if code != 0 {
		return code
	}
	if *maxSteps == 0 {
		*maxSteps = cfg.Agent.MaxSteps // a job may ask for fewer, never more
	}
	log, closeLog, err := logging.New(*logFile, "info", stderr)
	if err != nil {
		fmt.Fprintln(stderr, "agentls worker:", err)
		return exitUsage
	}
	defer closeLog()
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "agentls worker:", err)
		return exitFailed
	}
	if *dir == "" {
		state, err := session.StateDir()
		if err != nil {
			fmt.Fprintln(stderr, "agentls worker:", err)
			return exitFailed
		}
		*dir = filepath.Join(state, "worker")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	q, err := delegate.Connect(ctx, cfg.Delegate, "agentls worker "+delegate.Host())
	if err != nil {
		fmt.Fprintln(stderr, "agentls worker:", err)
		return exitFailed
	}
	defer q.Close()
	w := &delegate.Worker{
		Queue:       q,
		Consumer:    delegate.ConsumerSettings{AckWait: *ackWait, MaxDeliver: *maxDeliver, MaxAckPending: *maxAckPending},
		Policy:      delegate.Policy{Repos: repos, Allow: append(cfg.Tools.Allow, allow...), MaxSteps: *maxSteps},
		Concurrency: *concurrency,
		Dir:         *dir,
		Exe:         exe,
		Name:        delegate.Host(),
		Settings:    settingsData,
		Log:         log,
	}
	if err := w.Run(ctx); err != nil {
		log.Error("worker", zap.Error(err))
		fmt.Fprintln(stderr, "agentls worker:", err)
		return exitFailed
	}
	return exitOK
}

// userConfig is the user's settings (a file, the environment), never a
// workspace's, and the file's bytes as read (nil without one).
func userConfig(settings string, stderr io.Writer, name string) (config.Config, []byte, int) {
	var data []byte
	if settings != "" {
		b, err := os.ReadFile(settings)
		if err != nil {
			fmt.Fprintf(stderr, "agentls %s: --settings: %v\n", name, err)
			return config.Config{}, nil, exitUsage
		}
		data = b
	}
	src, probs := config.FromJSON("settings", data)
	cfg, p2 := config.Resolve(src, config.FromEnv(os.Getenv))
	for _, p := range append(probs, p2...) {
		fmt.Fprintln(stderr, p.String())
	}
	return cfg, data, 0
}

const submitUsage = `usage: agentls submit [--workspace DIR] [--max-steps N] [--allow PATTERN] [--json] "task"

Delegates a task: publishes a job for the workspace's repository at the commit
checked out, which must be pushed (on a remote-tracking branch); a worker runs
it (agentls worker). See it with agentls jobs, bring its change back with
agentls jobs fetch ID.

Flags:
`

// Submit is `agentls submit`.
func Submit(args []string, stdout, stderr io.Writer) int {
	c := newSubcommand("submit", submitUsage, stderr)
	var allow patterns
	c.fs.Var(&allow, "allow", "narrow the worker's tools.allow to these patterns (repeatable)")
	maxSteps := c.fs.Int("max-steps", 0, "ask the worker for at most this many model turns")
	settings := c.fs.String("settings", "", "a JSON file of settings: delegate.*")
	first, words, code, done := c.parse(args, "")
	if done {
		return code
	}
	task := strings.TrimSpace(first + " " + strings.Join(words, " "))
	if task == "" {
		c.fs.Usage()
		return exitUsage
	}
	root, err := workspaceRoot(*c.workspace)
	if err != nil {
		fmt.Fprintln(stderr, "agentls submit:", err)
		return exitUsage
	}
	cfg, _, code := userConfig(*settings, stderr, "submit")
	if code != 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	job, warn, err := delegate.SubmitTask(ctx, cfg.Delegate, root, task, *maxSteps, allow)
	if warn != "" {
		fmt.Fprintln(stderr, "agentls: warning:", warn)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentls submit:", err)
		if errors.Is(err, delegate.ErrNotPushed) || errors.Is(err, delegate.ErrNoServer) {
			return exitUsage
		}
		return exitFailed
	}
	if *c.asJSON {
		return writeJSON(stdout, job)
	}
	fmt.Fprintf(stdout, "submitted job %s: %s at %s\n", job.ID, job.Repo, job.Commit[:12])
	fmt.Fprintf(stdout, "see it with: agentls jobs; when it is done: agentls jobs fetch %s\n", job.ID)
	return exitOK
}

const jobsUsage = `usage:
  agentls jobs [list] [--json]
        delegated jobs and their state (queued, running, done, failed)
  agentls jobs show [--json] ID
        a job's states, its result and the objects stored for it
  agentls jobs fetch [--workspace DIR] ID
        bring a finished job's change into the workspace as a worktree task
        (agentls worktrees merge ID, or review it in the editor), and its session
        (agentls run --session …)

Flags:
`

// Jobs is `agentls jobs`.
func Jobs(args []string, stdout, stderr io.Writer) int {
	c := newSubcommand("jobs", jobsUsage, stderr)
	settings := c.fs.String("settings", "", "a JSON file of settings: delegate.*")
	sub, pos, code, done := c.parse(args, "list")
	if done {
		return code
	}
	cfg, _, code := userConfig(*settings, stderr, "jobs")
	if code != 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	q, err := delegate.Connect(ctx, cfg.Delegate, "agentls jobs "+delegate.Host())
	if err != nil {
		fmt.Fprintln(stderr, "agentls jobs:", err)
		return exitFailed
	}
	defer q.Close()
	switch {
	case sub == "list" && len(pos) == 0:
		list, err := delegate.List(ctx, q)
		if err != nil {
			fmt.Fprintln(stderr, "agentls jobs:", err)
			return exitFailed
		}
		if *c.asJSON {
			if list == nil {
				list = []delegate.Status{}
			}
			return writeJSON(stdout, list)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "JOB\tSTATE\tSTATUS\tUPDATED\tWORKER\tTASK")
		for _, s := range list {
			status := ""
			if s.Result != nil {
				status = s.Result.Status
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.State, status, s.Time.Local().Format(time.DateTime), s.Worker, render.OneLine(s.Task, 50))
		}
		tw.Flush()
		return exitOK
	case sub == "show" && len(pos) == 1:
		hist, err := delegate.History(ctx, q, pos[0])
		if err == nil && len(hist) == 0 {
			err = fmt.Errorf("job %q: %w", pos[0], delegate.ErrNoJob)
		}
		if err != nil {
			fmt.Fprintln(stderr, "agentls jobs:", err)
			return exitFailed
		}
		if *c.asJSON {
			return writeJSON(stdout, hist)
		}
		for _, s := range hist {
			fmt.Fprintf(stdout, "%s  %s", s.Time.Local().Format(time.DateTime), s.State)
			if s.Worker != "" {
				fmt.Fprintf(stdout, " on %s (attempt %d)", s.Worker, s.Attempt)
			}
			fmt.Fprintln(stdout)
			if s.Result != nil {
				fmt.Fprintf(stdout, "  %s\n", render.ResultLine(*s.Result))
			}
			if s.Reason != "" {
				fmt.Fprintf(stdout, "  reason: %s\n", s.Reason)
			}
			for _, o := range s.Objects {
				fmt.Fprintf(stdout, "  object %s/%s\n", delegate.Bucket, o)
			}
		}
		return exitOK
	case (sub == "fetch" || sub == "review") && len(pos) == 1:
		root, err := workspaceRoot(*c.workspace)
		if err != nil {
			fmt.Fprintln(stderr, "agentls jobs:", err)
			return exitUsage
		}
		state, err := session.StateDir()
		if err != nil {
			fmt.Fprintln(stderr, "agentls jobs:", err)
			return exitFailed
		}
		t, st, err := delegate.Fetch(ctx, q, root, state, pos[0])
		if err != nil {
			fmt.Fprintln(stderr, "agentls jobs:", err)
			return exitFailed
		}
		if st.Result != nil {
			fmt.Fprintf(stdout, "job %s: %s\n", st.ID, render.ResultLine(*st.Result))
		}
		changes, notes, err := t.Changes(ctx)
		if err != nil {
			fmt.Fprintln(stderr, "agentls jobs:", err)
			return exitFailed
		}
		for _, ch := range changes {
			fmt.Fprintf(stdout, "  %s %s\n", ch.Verb(), ch.Rel)
		}
		for _, n := range notes {
			fmt.Fprintln(stderr, "agentls: worktree:", n)
		}
		fmt.Fprintf(stdout, "the change waits in the worktree %s: agentls worktrees merge %s, or agentls worktrees discard %s\n", t.Dir(), t.ID, t.ID)
		return exitOK
	}
	c.fs.Usage()
	return exitUsage
}
