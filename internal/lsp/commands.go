package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/worktree"
)

// command is one workspace/executeCommand command. The table below is the
// single declaration: the advertised list, the dispatch, the argument type
// and its documentation all come from it, so handlers receive decoded
// arguments and never name themselves to decode them.
type command struct {
	name string
	args string // documented argument shape
	// argType is the struct the arguments decode into: the reference page
	// lists its fields, and a test holds args to them.
	argType reflect.Type
	// doc is what the command does and answers, in Markdown, for
	// docs/reference/commands.md (CommandDocs).
	doc string
	run func(s *Server, ctx context.Context, args json.RawMessage) (any, error)
	// echo is the one line a client that drops command results (Helix)
	// is shown; nil: the result as JSON.
	echo func(res any) string
}

// cmd declares a command whose arguments decode strictly into A and
// whose handler is h, a method of the feature at returns: the server
// dispatches, the feature does the work.
func cmd[F, A any](name, args string, at func(*Server) F, h func(F, context.Context, A) (any, error)) command {
	return command{name: name, args: args, argType: reflect.TypeFor[A](), run: func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
		var a A
		if err := decodeArgs(raw, &a); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: bad arguments (%v); expected %s", name, err, args)
		}
		return h(at(s), ctx, a)
	}}
}

// The features commands are dispatched to.
var (
	onReviewer  = func(s *Server) *reviewer { return s.reviewer }
	onWorktrees = func(s *Server) *worktrees { return s.worktrees }
	onJobs      = func(s *Server) *jobs { return s.jobs }
	onRunner    = func(s *Server) *runner { return s.runner }
	onTasks     = func(s *Server) *taskManager { return s.tasks }
	onAbout     = func(s *Server) *about { return s.about }
)

// documented gives a command its documentation (see command.doc).
func (c command) documented(doc string) command {
	c.doc = doc
	return c
}

// echoed gives a command its one-line Helix echo.
func (c command) echoed(f func(res any) string) command {
	c.echo = f
	return c
}

type noArgs struct{}

var commands []command

func init() {
	commands = []command{
		cmd("agentls.run", "{task, uri? or path?, range?, session?, review?, model?, isolation?, until?}", onRunner, (*runner).cmdRun).
			documented("`path`: workspace-relative, instead of `uri`; `model`: `llm.model` for this task only; `isolation`: `none` or `worktree`, `agent.isolation` for this task only; `until`: a command that must succeed in the sandbox before the task may end (see [Hooks, skills and stop conditions](../hooks.md)). Answers `{taskId, session}` at once; the task runs in the background.").echoed(echoStarted),
		cmd("agentls.cancel", "{taskId?}", onTasks, (*taskManager).cmdCancel).
			documented("None named: the newest running task. Answers `{cancelled}`.").echoed(echoCancel),
		cmd("agentls.status", "{taskId?}", onTasks, (*taskManager).cmdStatus).
			documented("Answers the task named, or `{tasks: [...]}`: the newest 100 (see [Tasks](../commands.md#tasks) for a task's fields)."),
		cmd("agentls.wait", "{taskId, timeoutMs?}", onTasks, (*taskManager).cmdWait).
			documented("`timeoutMs` defaults to 15 s (under Helix's 20 s request timeout). Answers the task once it ended, or `{status: \"timeout\"}`."),
		cmd("agentls.accept", "{taskId?, uri?, hunk?}", onReviewer, (*reviewer).cmdAccept).
			documented("Accepts review-mode proposals: none named, the whole task; `uri`: one file; `hunk`: one change. Answers `{applied}`; for a worktree task, a protected file among them is asked about first, and one you do not allow stays proposed and is listed in `leftOut`."),
		cmd("agentls.reject", "{taskId?, uri?, hunk?}", onReviewer, (*reviewer).cmdReject).
			documented("Rejects review-mode proposals: none named, the whole task; `uri`: one file; `hunk`: one change. Answers `{applied}`."),
		cmd("agentls.undo", "{taskId?}", onReviewer, (*reviewer).cmdUndo).
			documented("None named: the newest task with changes. Answers `{applied, conflicts: [{uri, line, reason}], reason?}`; undo that cannot happen (nothing to undo, still running, too old, the editor refused) answers `applied: false` with a `reason`, never an error."),
		cmd("agentls.checkpoints", "{taskId or session}", onReviewer, (*reviewer).cmdCheckpoints).
			documented("Answers `{session, steps: [{step, taskId, prompt, summary, files}], rewound}`: the session's steps, for a picker (`rewound`: the step last rewound to, -1 none)."),
		cmd("agentls.rewind", "{taskId or session, step}", onReviewer, (*reviewer).cmdRewind).
			documented("Answers `{applied, session, step, files, conflicts: [{uri, line, reason}], reason?}`: see [Rewind](../review.md#rewind); refused (`applied: false`, `reason`) while a task of the session runs or when the editor does not apply the edit."),
		cmd("agentls.verify", "{}", onRunner, (*runner).cmdVerify).
			documented("Answers `{taskId}`: the checks alone, with progress and diagnostics, no model.").echoed(echoStarted),
		cmd("agentls.continue", "{session, task, uri? or path?, range?, review?, model?, isolation?, until?}", onRunner, (*runner).cmdContinue).
			documented("A task in an existing session, with its history; the arguments are `agentls.run`'s. Answers `{taskId, session}`.").echoed(echoStarted),
		cmd("agentls.models", "{}", onAbout, (*about).cmdModels).
			documented("Answers `{models: [id], current, baseURL}`: the endpoint's `GET /v1/models`, sorted (10 s timeout)."),
		cmd("agentls.info", "{model?}", onAbout, (*about).cmdInfo).
			documented("Answers `{version, model, baseURL, contextTokens, keySet, priceInput?, priceOutput?, approval, maxSteps, maxCostUSD?}`: for context meters, costs, the status item (`tools.approval`, a task's budget) and health checks; never the key. `model`: a picker's choice, for its price."),
		cmd("agentls.proposal", "{taskId, uri?}", onReviewer, (*reviewer).cmdProposal).
			documented("For a review task: `{taskId, uris}` (files with proposals); with `uri`: `{uri, proposed, hunks, conflicts}`, the file's current text with the proposals applied (hunks the user edited over are left out)."),
		cmd("agentls.commands", "{}", onAbout, (*about).cmdCommands).
			documented("Answers `{commands: [{name, description?, argumentHint?, path}], error?}`: the [project commands](../commands.md#project-commands), read afresh each call; `error` names files left out."),
		cmd("agentls.diff", "{taskId?}", onReviewer, (*reviewer).cmdDiff).
			documented("None named: the newest task with applied changes. Answers `{taskId, diff, files, reason?}`: what the task applied and did not undo, as one unified diff (`agentls sessions show --diff`'s format); `reason` says why `diff` is empty."),
		cmd("agentls.worktrees", "{}", onWorktrees, (*worktrees).cmdWorktrees).
			documented("Answers `{worktrees: [{id, taskId?, task, state, path, uri, branch, created, pending}]}`: the workspace's [worktree tasks](../worktrees.md); `state` is `running`, `ended`, `merged`, `interrupted` (its server stopped mid-task) or `running elsewhere`; `path`/`uri` open the worktree; `pending`: files whose change waits."),
		cmd("agentls.worktreeMerge", "{id, markers?}", onWorktrees, (*worktrees).cmdWorktreeMerge).
			documented("Answers `{id, taskId, merged, applied, conflicts: [{uri, hunk, range, proposed, yours, task}], leftOut}`: every hunk not on or next to a line you edited since the task started (judged by line, as `git merge-file`), in one `workspace/applyEdit`; the others stay proposed and are listed with both sides (`yours`, `task`). With `markers: true` the whole merge is written instead, each conflict between git's conflict markers. A protected file (a protected name at any depth, `.gitattributes`, a file where a protected symlink leads) is asked about first; one you do not allow stays proposed and is listed in `leftOut`."),
		cmd("agentls.worktreeReview", "{id}", onWorktrees, (*worktrees).cmdWorktreeReview).
			documented("Answers the task (as `agentls.status`): its change as review-mode proposals (diagnostics, code actions, `reviewDocument`), for `agentls.accept` / `agentls.reject` / `agentls.proposal` with its `taskId`."),
		cmd("agentls.worktreeDiscard", "{id}", onWorktrees, (*worktrees).cmdWorktreeDiscard).
			documented("Answers `{discarded}`: stops a task still running there (and everything it started), withdraws its proposals, removes the worktree and its branch."),
		cmd("agentls.worktreeContinue", "{id, task}", onWorktrees, (*worktrees).cmdWorktreeContinue).
			documented("Answers `{taskId, session}`: a follow-up in the same worktree and session; its proposal is the worktree's whole change and replaces the one before (`agentls.continue` of a worktree's session does the same).").echoed(echoStarted),
	}
}

// debugCommands exist only with the test hook "debug" (see testHooks).
var debugCommands = []command{
	cmd("agentls.debug.heap", "{}", onTasks, (*taskManager).cmdDebugHeap).
		documented("Only with the test hook `debug` (not offered otherwise). Collects garbage and answers `{heapAlloc, tasks}`: the live heap and the tasks held, for the test that the task history stays bounded."),
}

func (s *Server) commandList() []command {
	if s.hooks.debug {
		return append(append([]command(nil), commands...), debugCommands...)
	}
	return commands
}

func (s *Server) commandNames() []string {
	var names []string
	for _, c := range s.commandList() {
		names = append(names, c.name)
	}
	return names
}

func (s *Server) executeCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	for _, c := range s.commandList() {
		if c.name != p.Command {
			continue
		}
		var args json.RawMessage = []byte("{}")
		if len(p.Arguments) > 0 && len(bytes.TrimSpace(p.Arguments[0])) > 0 && string(p.Arguments[0]) != "null" {
			args = json.RawMessage(p.Arguments[0])
		}
		res, err := c.run(s, ctx, args)
		s.mirrorResult(ctx, c, res, err)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		return jsonrpc2.RawMessage(b), nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; agentls has: %s", p.Command, strings.Join(s.commandNames(), ", "))
}

// decodeArgs decodes a command's argument object strictly, so a typo in
// a field name is an error the user sees rather than a silent default.
func decodeArgs(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

type runArgs struct {
	Task    string          `json:"task"`
	URI     string          `json:"uri,omitempty"`
	Path    string          `json:"path,omitempty"` // workspace-relative, instead of uri
	Range   *protocol.Range `json:"range,omitempty"`
	Session string          `json:"session,omitempty"`
	Review  *bool           `json:"review,omitempty"`
	Model   string          `json:"model,omitempty"` // llm.model for this task only
	// Isolation is agent.isolation for this task: "none" or "worktree".
	Isolation string `json:"isolation,omitempty"`
	// Until is the task's stop condition: a command that must succeed in
	// the sandbox before the task ends (the budget permitting).
	Until string `json:"until,omitempty"`

	continueIn *worktree.Tree // agentls.worktreeContinue's worktree
}

type runResult struct {
	TaskID  string `json:"taskId"`
	Session string `json:"session"`
}

type taskIDArgs struct {
	TaskID string `json:"taskId,omitempty"`
}

type cancelResult struct {
	Cancelled bool   `json:"cancelled"`
	TaskID    string `json:"taskId,omitempty"`
}

func unknownTask(id string) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no task %q (agentls.status lists the tasks)", id)
}

type waitArgs struct {
	TaskID    string `json:"taskId"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}

// defaultWait stays under Helix's 20 s request timeout.
const defaultWait = 15 * time.Second

// relTo returns path relative to root, slash-separated, if it is inside.
func relTo(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// mirrorResult shows a command's outcome with window/showMessage for
// clients that drop command results (Helix): errors always, a started or
// cancelled task as one short line, the other answers as JSON.
func (s *Server) mirrorResult(ctx context.Context, c command, res any, err error) {
	s.ed.mu.Lock()
	mirror := s.ed.mirror
	s.ed.mu.Unlock()
	if !mirror {
		return
	}
	if err != nil {
		s.ed.showMessage(ctx, protocol.MessageTypeError, "%s: %v", c.name, err)
		return
	}
	if c.echo != nil {
		s.ed.showMessage(ctx, protocol.MessageTypeInfo, "%s: %s", c.name, c.echo(res))
		return
	}
	b, _ := json.Marshal(res)
	s.ed.showMessage(ctx, protocol.MessageTypeInfo, "%s: %s", c.name, shorten(string(b), 1000))
}

func echoStarted(res any) string {
	if r, ok := res.(runResult); ok {
		return fmt.Sprintf("task %s started (session %s)", r.TaskID, r.Session)
	}
	return fmt.Sprint(res)
}

func echoCancel(res any) string {
	if r, ok := res.(cancelResult); ok && r.Cancelled {
		return "cancelling task " + r.TaskID
	}
	return "no running task to cancel"
}

func (m *taskManager) cmdCancel(ctx context.Context, a taskIDArgs) (any, error) {
	var t *runningTask
	if a.TaskID == "" {
		t = m.newest()
	} else {
		var ok bool
		if t, ok = m.get(a.TaskID); !ok {
			return nil, unknownTask(a.TaskID)
		}
	}
	if t == nil || t.ended() {
		return cancelResult{}, nil
	}
	t.cancel()
	return cancelResult{Cancelled: true, TaskID: t.id}, nil
}

func (m *taskManager) cmdStatus(ctx context.Context, a taskIDArgs) (any, error) {
	root := m.root()
	if a.TaskID != "" {
		t, ok := m.get(a.TaskID)
		if !ok {
			return nil, unknownTask(a.TaskID)
		}
		return t.snapshot(root), nil
	}
	list := []taskJSON{}
	for _, t := range m.all() {
		list = append(list, t.snapshot(root))
	}
	return map[string]any{"tasks": list}, nil
}

func (m *taskManager) cmdWait(ctx context.Context, a waitArgs) (any, error) {
	t, ok := m.get(a.TaskID)
	if !ok {
		return nil, unknownTask(a.TaskID)
	}
	d := defaultWait
	if a.TimeoutMs > 0 {
		d = time.Duration(a.TimeoutMs) * time.Millisecond
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.done:
		return t.snapshot(m.root()), nil
	case <-timer.C:
		return map[string]string{"status": "timeout", "taskId": t.id}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// cmdDebugHeap (test hook "debug" only) collects garbage and reports the
// live heap, for the test that the task history stays bounded.
func (m *taskManager) cmdDebugHeap(ctx context.Context, _ noArgs) (any, error) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.mu.Lock()
	n := len(m.order)
	m.mu.Unlock()
	return map[string]any{"heapAlloc": ms.HeapAlloc, "tasks": n}, nil
}
