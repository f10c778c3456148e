package delegate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/worktree"
)

// PublishStatus records a job's state on its result subject. Each state
// has a message id of its own (the end one per job), so that the stream
// drops a second end of the same job.
func PublishStatus(ctx context.Context, q *Queue, s Status) error {
	if s.Time.IsZero() {
		s.Time = time.Now().UTC()
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	msgID := s.ID + "." + s.State
	switch s.State {
	case StateDone, StateFailed:
		msgID = s.ID + ".end"
	case StateRunning:
		msgID = fmt.Sprintf("%s.running.%d", s.ID, s.Attempt)
	}
	_, err = q.JS.Publish(ctx, ResultsSubj+"."+s.ID, data, jetstream.WithMsgID(msgID))
	return err
}

// ErrNoJob is wrapped for a job the results stream does not know.
var ErrNoJob = errors.New("no such job")

// LastStatus is the job's last recorded state.
func LastStatus(ctx context.Context, q *Queue, id string) (Status, error) {
	if !ValidID(id) {
		return Status{}, fmt.Errorf("job %q: %w", id, ErrNoJob)
	}
	stream, err := q.JS.Stream(ctx, ResultsStream)
	if err != nil {
		return Status{}, err
	}
	raw, err := stream.GetLastMsgForSubject(ctx, ResultsSubj+"."+id)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return Status{}, fmt.Errorf("job %q: %w", id, ErrNoJob)
	}
	if err != nil {
		return Status{}, err
	}
	var s Status
	if err := json.Unmarshal(raw.Data, &s); err != nil {
		return Status{}, fmt.Errorf("job %s: bad state message: %w", id, err)
	}
	return s, nil
}

// List returns every job's last state, the newest first.
func List(ctx context.Context, q *Queue) ([]Status, error) {
	stream, err := q.JS.Stream(ctx, ResultsStream)
	if err != nil {
		return nil, err
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(ResultsSubj+".>"))
	if err != nil {
		return nil, err
	}
	var out []Status
	for subj := range info.State.Subjects {
		raw, err := stream.GetLastMsgForSubject(ctx, subj)
		if err != nil {
			continue
		}
		var s Status
		if json.Unmarshal(raw.Data, &s) == nil {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	return out, nil
}

// History returns every state a job went through, oldest first.
func History(ctx context.Context, q *Queue, id string) ([]Status, error) {
	if !ValidID(id) {
		// A wildcard (*, >) or a dotted id would filter on other jobs'
		// subjects and mix their states in.
		return nil, fmt.Errorf("job %q: %w", id, ErrNoJob)
	}
	cons, err := q.JS.OrderedConsumer(ctx, ResultsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{ResultsSubj + "." + id}})
	if err != nil {
		return nil, err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, err
	}
	var out []Status
	for n := info.NumPending; n > 0; n-- {
		m, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			return out, err
		}
		var s Status
		if json.Unmarshal(m.Data(), &s) == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// NewID is a fresh job id.
func NewID() string { return "j" + session.NewID(time.Now()) }

// Submit publishes a job: its queued state, then the job itself, with the
// job id as Nats-Msg-Id (a job published twice runs once).
func Submit(ctx context.Context, q *Queue, j Job) error {
	if j.Submitted.IsZero() {
		j.Submitted = time.Now().UTC()
	}
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if _, err := ParseJob(data); err != nil {
		return err
	}
	if err := PublishStatus(ctx, q, Status{ID: j.ID, State: StateQueued, Repo: j.Repo, Commit: j.Commit, Task: j.Task}); err != nil {
		return err
	}
	_, err = q.JS.Publish(ctx, JobsSubject+"."+j.ID, data, jetstream.WithMsgID(j.ID))
	return err
}

// Pushed is the repository around root as a job needs it: the URL a
// worker clones and the commit checked out, which must be on a
// remote-tracking branch (a worker can fetch only what was pushed).
type Pushed struct {
	Repo, Commit, Remote, Branch string
	// Dirty: the working tree has changes the job will not see.
	Dirty bool
}

// ErrNotPushed is wrapped when the commit is on no remote-tracking branch.
var ErrNotPushed = errors.New("not pushed")

// PushedCommit finds what a job from root would run on, or says why no
// job can start from there.
func PushedCommit(ctx context.Context, root string) (Pushed, error) {
	var p Pushed
	top, err := worktree.Top(ctx, root)
	if err != nil {
		return p, err
	}
	if p.Commit, err = worktree.Head(ctx, top); err != nil {
		return p, err
	}
	refs, err := worktree.Git(ctx, top, "for-each-ref", "--contains", p.Commit, "--format=%(refname)", "refs/remotes")
	if err != nil {
		return p, err
	}
	remotes, _ := worktree.Git(ctx, top, "remote")
	for _, ref := range strings.Fields(refs) {
		rest, _ := strings.CutPrefix(ref, "refs/remotes/")
		if strings.HasSuffix(rest, "/HEAD") {
			continue
		}
		for _, r := range strings.Fields(remotes) {
			if b, ok := strings.CutPrefix(rest, r+"/"); ok {
				p.Remote, p.Branch = r, b
				break
			}
		}
		if p.Remote != "" {
			break
		}
	}
	if p.Remote == "" {
		return p, fmt.Errorf("%w: the commit checked out (%s) is on no remote-tracking branch, so no worker can fetch it; push it first (git push), then delegate", ErrNotPushed, p.Commit[:12])
	}
	url, err := worktree.Git(ctx, top, "remote", "get-url", p.Remote)
	if err != nil {
		return p, err
	}
	p.Repo = withoutSecret(strings.TrimSpace(url))
	if !strings.Contains(p.Repo, ":") && !filepath.IsAbs(p.Repo) {
		// A remote that is a path relative to the repository.
		p.Repo = filepath.Join(top, p.Repo)
	}
	if st, err := worktree.Git(ctx, top, "status", "--porcelain", "--untracked-files=normal"); err == nil && strings.TrimSpace(st) != "" {
		p.Dirty = true
	}
	return p, nil
}

// withoutSecret is a remote URL without a password or token in it: the
// job goes to every worker and its state to everyone who lists jobs, and
// a worker clones with credentials of its own.
func withoutSecret(remote string) string {
	u, err := neturl.Parse(remote)
	if err != nil || u.User == nil || u.Scheme == "" {
		return remote
	}
	switch _, hasPassword := u.User.Password(); {
	case u.Scheme == "http" || u.Scheme == "https":
		u.User = nil // a token as the user name is a secret too
	case hasPassword:
		u.User = neturl.User(u.User.Username())
	default:
		return remote
	}
	return u.String()
}

// Fetch brings a finished job's change into the workspace at root as a
// worktree task (named by the job id), whose change then waits for
// review, merge or discard; its session is imported into the workspace,
// so that it can be continued there.
func Fetch(ctx context.Context, q *Queue, root, stateDir, id string) (*worktree.Tree, Status, error) {
	st, err := LastStatus(ctx, q, id)
	if err != nil {
		return nil, st, err
	}
	switch {
	case st.State == StateFailed:
		return nil, st, fmt.Errorf("job %s failed: %s", id, st.Reason)
	case !st.Final():
		return nil, st, fmt.Errorf("job %s is %s, not finished yet", id, st.State)
	case !isCommit(st.Commit):
		return nil, st, fmt.Errorf("job %s: its state names no commit (%q)", id, st.Commit)
	}
	patch, err := q.Obj.GetBytes(ctx, id+"/patch")
	if err != nil {
		return nil, st, fmt.Errorf("job %s: its patch: %w", id, err)
	}
	if t, err := worktree.Load(stateDir, id); err == nil && t.Root == root {
		return t, st, nil // fetched before
	}
	t, err := worktree.FromPatch(ctx, worktree.Options{Root: root, StateDir: stateDir, ID: id, Task: st.Task}, st.Commit, string(patch))
	if err != nil {
		return nil, st, err
	}
	if b, err := q.Obj.GetBytes(ctx, id+"/session.json"); err == nil {
		var bundle session.Bundle
		if json.Unmarshal(b, &bundle) == nil {
			if store, err := session.Open(root, session.Options{StateDir: stateDir}); err == nil {
				if err := store.Import(&bundle); err != nil && !errors.Is(err, session.ErrExists) {
					return t, st, fmt.Errorf("job %s: its session: %w", id, err)
				}
			}
		}
	}
	return t, st, nil
}

// Host is this machine's name and process, to name a worker or submitter.
func Host() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", h, os.Getpid())
}

// SubmitTask publishes a job for the repository around root at its pushed
// commit (refusing, with why, a commit that is not pushed). warn says what
// the job leaves out (uncommitted changes).
func SubmitTask(ctx context.Context, d config.Delegate, root, task string, maxSteps int, allow []string) (Job, string, error) {
	p, err := PushedCommit(ctx, root)
	if err != nil {
		return Job{}, "", err
	}
	var warn string
	if p.Dirty {
		warn = "the working tree has uncommitted changes; the job runs at the pushed commit " + p.Commit[:12] + " without them"
	}
	q, err := Connect(ctx, d, "agentls submit "+Host())
	if err != nil {
		return Job{}, warn, err
	}
	defer q.Close()
	job := Job{ID: NewID(), Repo: p.Repo, Commit: p.Commit, Task: task, MaxSteps: maxSteps, Allow: allow, By: Host()}
	if err := Submit(ctx, q, job); err != nil {
		return job, warn, err
	}
	return job, warn, nil
}
