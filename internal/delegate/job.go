package delegate

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/session"
)

// Job is one delegated task, as published on the jobs stream.
type Job struct {
	ID     string `json:"id"`
	Repo   string `json:"repo"`   // what the worker clones
	Commit string `json:"commit"` // the full commit the task starts from
	Task   string `json:"task"`
	// MaxSteps narrows the worker's agent.maxSteps; 0: the worker's.
	MaxSteps int `json:"maxSteps,omitempty"`
	// Allow narrows the worker's tools.allow: only patterns the worker
	// allows too are kept; nil: the worker's.
	Allow     []string  `json:"allow,omitempty"`
	Submitted time.Time `json:"submitted,omitzero"`
	By        string    `json:"by,omitempty"` // who submitted it (user@host), for people
}

// States of a job, as the last message on its result subject says.
const (
	StateQueued  = "queued"
	StateRunning = "running"
	StateDone    = "done"   // the task ended; Status says how
	StateFailed  = "failed" // the job could not run (bad input, MaxDeliver reached)
)

// Status is a message on a job's result subject: its state as it changes.
type Status struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Repo    string `json:"repo,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Task    string `json:"task,omitempty"`
	Worker  string `json:"worker,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	// Set when the job ended (done or failed).
	Exit    int           `json:"exit,omitempty"`
	Result  *agent.Result `json:"result,omitempty"`
	Reason  string        `json:"reason,omitempty"` // why a job failed
	Objects []string      `json:"objects,omitempty"`
	Time    time.Time     `json:"time"`
}

// Final reports whether the job has ended.
func (s Status) Final() bool { return s.State == StateDone || s.State == StateFailed }

// RunResult is what `agentls run --result FILE` writes: the whole outcome
// of one run, for a CI runner or a worker to keep.
type RunResult struct {
	Session   string       `json:"session,omitempty"`
	TaskID    string       `json:"taskId,omitempty"`
	Workspace string       `json:"workspace"`
	Model     string       `json:"model,omitempty"`
	Exit      int          `json:"exit"`
	Result    agent.Result `json:"result"`
	// Commit is the commit the patch is against; "" outside git.
	Commit string `json:"commit,omitempty"`
	// Patch is `git diff --binary` of everything the run left in the
	// workspace against Commit: new, deleted and binary files included.
	Patch      string          `json:"patch"`
	Transcript string          `json:"transcript,omitempty"` // Markdown
	Events     string          `json:"events,omitempty"`     // JSON lines, as --json prints them
	Export     *session.Bundle `json:"sessionExport,omitempty"`
	Warnings   []string        `json:"warnings,omitempty"`
}

// ValidID reports whether id can name a job: a subject token, a file name
// and a worktree's name at once.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '-' || c == '_')) {
			return false
		}
	}
	return true
}

// ParseJob decodes and checks a job message.
func ParseJob(data []byte) (Job, error) {
	var j Job
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.DisallowUnknownFields()
	if err := d.Decode(&j); err != nil {
		return j, fmt.Errorf("not a job: %v", err)
	}
	switch {
	case !ValidID(j.ID):
		return j, fmt.Errorf("job id %q: want 1 to 64 letters, digits, - and _", j.ID)
	case j.Repo == "" || strings.HasPrefix(j.Repo, "-"):
		return j, fmt.Errorf("job %s: bad repository %q", j.ID, j.Repo)
	case !isCommit(j.Commit):
		return j, fmt.Errorf("job %s: commit %q is not a full commit id", j.ID, j.Commit)
	case strings.TrimSpace(j.Task) == "":
		return j, fmt.Errorf("job %s: no task", j.ID)
	case j.MaxSteps < 0:
		return j, fmt.Errorf("job %s: maxSteps must be positive", j.ID)
	}
	return j, nil
}

func isCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// Policy is what a worker lets a job do; a job may only narrow it.
type Policy struct {
	Repos    []string // repository URL patterns (path.Match; "*" alone: any)
	Allow    []string // tools.allow patterns
	MaxSteps int      // 0: the settings'
}

// Narrow returns what the job runs with: the worker's policy, narrowed by
// the job. A repository outside Repos is refused.
func (p Policy) Narrow(j Job) (allow []string, maxSteps int, err error) {
	if !slices.ContainsFunc(p.Repos, func(pat string) bool {
		ok, _ := path.Match(pat, j.Repo)
		return ok || pat == "*" || pat == j.Repo
	}) {
		return nil, 0, fmt.Errorf("job %s: repository %s is not one this worker takes (--repo)", j.ID, j.Repo)
	}
	allow = p.Allow
	if j.Allow != nil {
		allow = nil
		for _, a := range j.Allow {
			if slices.Contains(p.Allow, a) {
				allow = append(allow, a)
			}
		}
	}
	maxSteps = p.MaxSteps
	if j.MaxSteps > 0 && (maxSteps == 0 || j.MaxSteps < maxSteps) {
		maxSteps = j.MaxSteps
	}
	return allow, maxSteps, nil
}
