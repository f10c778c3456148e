package assemble

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/hooks"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/verify/gate"
	"github.com/agentls/agentls/internal/worktree"
)

// TaskConfig is one task as a front end asks for it: the driver's parts
// (Spec), where it is recorded, and the hooks through which the front end
// asks and shows. Run fills Spec's Session, Recall, MCP and Verifier.
type TaskConfig struct {
	Spec
	// Ask is how the front end asks the user, Show how it shows the task
	// (frontend.go); Run wires them into the Spec's questions and hooks.
	// A front end sets these, not Spec.Approver, OnEvent, Warn and the
	// rest, which are the wiring below them.
	Ask  Asker
	Show Shower
	// Model is the task's model ("" for llm.model): a per-task choice of
	// the front end's (a picker, --model, a replay's recorded model).
	Model string
	// Commands: the prompt may be a project command, "/name args",
	// expanded here (ExpandCommand) before the task starts.
	Commands bool

	Prompt string
	Images []agent.Image // with the prompt, for a model that takes images
	Editor string        // the editor's context for the prompt ("" from a terminal)
	// Dir is the directory the user is in, relative to the root (the
	// CLI's working directory, the editor's file's directory); "": root.
	Dir string

	// Store records the task in a session; nil: the task runs in memory.
	Store *session.Store
	// Session is the session to continue, or to create under that ID
	// unless MustExist; "": a new session.
	Session   string
	MustExist bool
	TaskID    string // "" lets the store number the task
	// Checkpoints records each turn that changed files as a step of the
	// session (session.Recorder.Track), for rewind; only for changes that land
	// (not proposals held for review, not a dry run).
	Checkpoints bool

	// Untrusted lists the workspace settings held back because the user
	// has not trusted the file that sets them (WorkspaceSettings). The
	// task does not run without the endpoint it names (see HeldBack).
	Untrusted []string

	// MCP is the front end's MCP servers; the task holds them until it
	// ends. nil: no MCP tools.
	MCP *SharedMCP
	// Gate, when set, is called with the task's verify gate (if the
	// workspace has checks) to wire how it shows and what it checks.
	Gate func(*gate.Gate)

	// Isolation is agent.isolation for this task; "": the setting's.
	// "worktree" runs the task in a git worktree of its own (see
	// internal/worktree): its files, checks and commands are there, and
	// its change comes back through Hooks.Proposal.
	Isolation string
	// Worktree is a worktree to continue in (a follow-up of a worktree
	// task); nil: a new one when the task is isolated.
	Worktree *worktree.Tree
	// Buffers returns the editor's unsaved texts (workspace-relative,
	// slash-separated) for a new worktree's snapshot; nil: the disk's.
	Buffers func() map[string][]byte
	// StateDir is agentls's state directory (worktrees live there); "":
	// session.StateDir().
	StateDir string

	Hooks Hooks
}

// Hooks are a front end's part of a task's life, each optional.
type Hooks struct {
	// Began runs once the session is open; rec is nil when the task runs
	// in memory.
	Began func(rec *session.Recorder)
	// Backend is the task's model instead of the configured endpoint: an
	// external ACP agent (agent.backend.acp) whose turns run its own tools
	// (driver.Actor). The machine runs it like any model, with its verify
	// gate, retries and limits, but offers it none of agentls's tools.
	// spec has everything but the MCP tools; close ends the agent when
	// the task ends.
	Backend func(spec Spec) (model driver.Actor, close func())
	// Ended runs with the driver's result: the front end shows the end
	// (and may review the changes) and returns the result to record with
	// the changes that landed. Without it the result is recorded as is,
	// without changes.
	Ended func(ctx context.Context, res agent.Result) (agent.Result, []session.Change)
	// Isolated runs once a worktree task's worktree exists, before the
	// task starts.
	Isolated func(w *worktree.Tree)
	// Proposal runs when a worktree task's driver returned, before Ended,
	// with its whole change against the snapshot (err: it could not be
	// read; the worktree stays for the user to look at).
	Proposal func(ctx context.Context, w *worktree.Tree, changes []worktree.Change, notes []string, err error)
}

// ErrWontRun wraps what stops a task before it starts (an unknown session,
// settings held back that the task cannot do without); the message is for
// the user.
var ErrWontRun = errors.New("the task cannot run")

// ErrUntrusted is a task stopped because the workspace file names its
// model endpoint (llm.baseURL) and is not trusted: running it against the
// endpoint the user's own settings or the default name would send the
// workspace to a provider the project did not ask for, silently.
var ErrUntrusted = fmt.Errorf("%w: the workspace's endpoint is held back", ErrWontRun)

// heldBack is ErrUntrusted with what to do about it.
type heldBack struct{ key string }

func (h heldBack) Error() string {
	return fmt.Sprintf("the workspace's %s sets %s, which applies only once you trust the file (the model can write it); agentls does not send the work to another endpoint instead. "+
		"Trust it with `agentls trust` in the workspace, by answering \"Trust this file\" when the editor asks, or with `agentls run --trust`", config.FileName, h.key)
}

func (h heldBack) Unwrap() error { return ErrUntrusted }

// HeldBack returns ErrUntrusted (with the message for the user) when the
// settings held back include the model endpoint: fail closed rather than
// fall back to another one.
func HeldBack(untrusted []string) error {
	for _, k := range untrusted {
		if k == "llm.baseURL" || strings.HasPrefix(k, "llm.baseURL.") {
			return heldBack{key: "llm.baseURL"}
		}
	}
	return nil
}

// panicked is what a session records for a task whose life was cut by a
// panic; the front end's barrier reports the panic itself.
var panicked = agent.Result{Status: agent.StatusError, Reason: "internal", Error: "agentls: internal error (the log has the details)"}

// Run is the life of one task, the same for every front end: trust (a
// workspace file whose endpoint is held back stops the task first, see
// HeldBack); the session opened and, deferred, ended however the task
// ends, a panic included; recall and the verify gate wired; the MCP
// servers held until the end; the driver (or Hooks.Backend) run; the
// front end's Ended. It returns the result recorded, or an error wrapping
// ErrWontRun when the task did not start.
func Run(ctx context.Context, tc TaskConfig) (res agent.Result, err error) {
	tc = tc.fromFrontEnd()
	warn := func(msg string) {
		if tc.Warn != nil {
			tc.Warn(msg)
		}
	}
	if tc.Hooks.Backend == nil { // an external agent uses no endpoint of ours
		if err := HeldBack(tc.Untrusted); err != nil {
			return agent.Result{}, err
		}
	}
	rec, err := begin(tc, warn)
	if err != nil {
		return agent.Result{}, err
	}
	var changes []session.Change
	finished := false
	defer func() {
		if !finished {
			res = panicked
		}
		if err := rec.End(res, changes); err != nil {
			warn(fmt.Sprintf("saving the session failed: %v", err))
		}
	}()
	if tc.Hooks.Began != nil {
		tc.Hooks.Began(rec)
	}

	spec := tc.Spec
	spec.Session = rec
	id := tc.Session
	if rec != nil {
		id = rec.Session()
	}
	if id == "" {
		id = session.NewID(time.Now())
	}
	spec.CacheKey = CacheKey(id)
	wt, err := isolate(ctx, tc, &spec, id, warn)
	if err != nil {
		finished = true
		res = agent.Result{Status: agent.StatusError, Reason: "worktree", Error: err.Error()}
		return res, err
	}
	if wt != nil {
		// Whatever ends the task (a panic included), the record says it
		// no longer runs; a crash leaves "running" under a dead process,
		// which worktree.List shows as interrupted.
		defer func() { _ = wt.SetState(worktree.StateEnded) }()
		if tc.Hooks.Isolated != nil {
			tc.Hooks.Isolated(wt)
		}
	}
	if tc.Checkpoints && wt == nil {
		spec.Workspace = rec.Track(spec.Workspace)
	}
	if tc.Store != nil && tc.Store.Memory() != nil {
		spec.Recall = tc.Store.Memory().Recall
	}
	if g := NewGate(spec.Config, spec.Root); g != nil {
		// A worktree task's checks run on the worktree's files as they are:
		// the front end's gate wiring (its buffers, its diagnostics) is
		// about the user's tree.
		if tc.Gate != nil && wt == nil {
			tc.Gate(g)
		}
		spec.Verifier = g
	}
	task := driver.Assignment{Prompt: tc.Prompt, Images: tc.Images, Editor: tc.Editor, Dir: tc.Dir, History: rec.History()}
	if blocked := startHooks(ctx, tc, &spec, &task, id, wt, warn); blocked != nil {
		// The task ends before the machine starts: its end event is sent
		// here, as the driver would.
		res = *blocked
		end := agent.Event{Kind: agent.KindEnd, Result: &res}
		if rec != nil {
			rec.Event(end)
		}
		if spec.OnEvent != nil {
			spec.OnEvent(end)
		}
		if tc.Hooks.Ended != nil {
			res, changes = tc.Hooks.Ended(ctx, res)
		}
		finished = true
		return res, nil
	}
	res = drive(ctx, tc, spec, task, wt, warn)
	if wt != nil {
		proposeWorktree(ctx, tc, wt, &res, warn)
	}
	if tc.Hooks.Ended != nil {
		res, changes = tc.Hooks.Ended(ctx, res)
	}
	finished = true
	return res, nil
}

// startHooks wires the task's hooks in the shared format and runs its
// SessionStart and UserPromptSubmit hooks; a result when one blocked the
// prompt.
func startHooks(ctx context.Context, tc TaskConfig, spec *Spec, task *driver.Assignment, id string, wt *worktree.Tree, warn func(string)) *agent.Result {
	if tc.Hooks.Backend == nil && spec.EventHooks == nil {
		spec.EventHooks = HookRunner(spec.Config, tc.Root, id, hookTrust(tc), warn)
		if r := spec.EventHooks; r != nil {
			if v, ok := tools.As[tools.Viewer](spec.Workspace); ok && !isCommandViewer(v) {
				r.View = v.View
			}
			if spec.Config.Tools.Approval != config.ApprovalNever {
				// Leaving the sandbox is asked as for any command.
				r.AskNetwork = spec.AskNetwork
			}
		}
	}
	r := spec.EventHooks
	if r == nil {
		return nil
	}
	if wt != nil {
		// The hooks were read and trusted in the user's tree; they run
		// in the task's worktree.
		r.Root, r.Sandbox.Workspace = spec.Root, spec.Root
	}
	source := "startup"
	if len(task.History) > 0 {
		source = "resume"
	}
	task.HookContext = r.SessionStart(ctx, source)
	block, more := r.UserPromptSubmit(ctx, tc.Prompt)
	if block != "" {
		return &agent.Result{Status: agent.StatusError, Reason: "hook", Error: "a UserPromptSubmit hook blocked the prompt: " + block}
	}
	task.HookContext = hooks.Join(task.HookContext, more)
	return nil
}

// drive runs the task to its end: on the front end's external agent, or on
// the driver with the task's MCP servers held until it returns.
func drive(ctx context.Context, tc TaskConfig, spec Spec, task driver.Assignment, wt *worktree.Tree, warn func(string)) agent.Result {
	if tc.Hooks.Backend != nil {
		model, closeModel := tc.Hooks.Backend(spec)
		defer closeModel()
		if task.Editor != "" {
			// No planner puts the editor's context before the task: the
			// agent reads it with the task.
			task.Prompt += "\n\n" + task.Editor
		}
		return ActorDriver(spec, model).Run(ctx, task)
	}
	switch {
	case wt != nil && len(spec.Config.MCPServers) > 0:
		// Servers of its own, rooted in the worktree, not the front
		// end's shared ones (rooted in the user's tree).
		if m := MCPManager(spec.Config, spec.Root, spec.Log, warn); m != nil {
			defer m.Close()
			spec.MCP = m
		}
	case tc.MCP != nil && wt == nil:
		m, release := tc.MCP.Acquire(spec.Config, spec.Root)
		defer release()
		spec.MCP = m
	}
	spec.Seen = Mentioned(spec.Config, spec.Root, task.Prompt)
	return Driver(ctx, spec).Run(ctx, task)
}

// proposeWorktree commits a worktree task's work on its branch (for the
// proposal now and a merge after a restart) and hands the change to the
// front end, or says where it waits.
func proposeWorktree(ctx context.Context, tc TaskConfig, wt *worktree.Tree, res *agent.Result, warn func(string)) {
	cs, notes, err := wt.Finish(context.WithoutCancel(ctx))
	if err != nil && res.Status == agent.StatusOK {
		// A change nobody can read cannot be merged: the task did not
		// do what it says it did (a repository it planted inside the
		// worktree, sub/.git, hides what it wrote there).
		res.Status, res.Reason = agent.StatusError, "worktree"
		res.Error = "the task's change in its worktree could not be read: " + err.Error()
	}
	switch {
	case tc.Hooks.Proposal != nil:
		tc.Hooks.Proposal(ctx, wt, cs, notes, err)
	case err != nil:
		warn("recording the worktree's change failed: " + err.Error())
	case len(cs) > 0:
		// A front end with no review of its own (ACP): say where it is.
		warn(fmt.Sprintf("the task's change to %d file(s) waits in the worktree %s (branch %s): `agentls worktrees merge %s` merges it into your files, `agentls worktrees discard %s` removes it",
			len(cs), wt.Dir(), wt.Branch, wt.ID, wt.ID))
	}
}

// hookTrust is the trust store the workspace's hook files are checked
// against; nil (nothing trusted) without a state directory.
func hookTrust(tc TaskConfig) *policy.TrustStore {
	dir := tc.StateDir
	if dir == "" {
		d, err := session.StateDir()
		if err != nil {
			return nil
		}
		dir = d
	}
	return TrustStore(dir)
}

// CacheKey is the prompt cache key of a session: a digest of its ID, so
// the provider learns nothing of the ID itself.
func CacheKey(session string) string {
	sum := sha256.Sum256([]byte("agentls session " + session))
	return "agentls-" + hex.EncodeToString(sum[:12])
}

// begin opens the task's session. A session that cannot be written is
// reported and the task goes on in memory (persistence never fails a
// task); an unknown session that must exist stops it.
func begin(tc TaskConfig, warn func(string)) (*session.Recorder, error) {
	if tc.Store == nil {
		return nil, nil
	}
	rec, err := tc.Store.Begin(session.Begin{Session: tc.Session, Create: !tc.MustExist, TaskID: tc.TaskID, Prompt: tc.Prompt, Model: tc.Config.LLM.Model})
	switch {
	case errors.Is(err, session.ErrNotFound):
		return nil, fmt.Errorf("%w: no session %q in this workspace (agentls sessions lists them)", ErrWontRun, tc.Session)
	case err != nil:
		warn(fmt.Sprintf("%v; the task runs in memory, without a session", err))
		return nil, nil
	}
	return rec, nil
}
