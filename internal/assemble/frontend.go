package assemble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/prompts"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
)

// A front end only asks and shows. Asker and Shower are all Run needs of
// it; everything else about a task (trust, the session, the worktree, the
// checks, MCP, the model, the project command) is Run's.

// Asker is how a front end asks the user: whether a command may run (its
// approval policy, which may answer from a rule or an earlier "always"),
// whether the model may change a protected file, and whether a command
// that failed for want of network may run again with it. A question
// nobody can be asked here (no terminal) is answered with
// tools.ErrCannotAsk, and the model is told so.
type Asker interface {
	tools.Approver
	ConfirmWrite(ctx context.Context, rel, why string) (bool, error)
	AskNetwork(ctx context.Context, command string) (bool, error)
}

// Shower is how a front end shows a task: its events and the warnings a
// person should see as it runs, its beginning (the session is open; rec is
// nil in memory) and its end, where the front end may review the changes
// and returns the result to record with the changes that landed.
type Shower interface {
	Event(agent.Event)
	Warn(msg string)
	Began(rec *session.Recorder)
	Ended(ctx context.Context, res agent.Result) (agent.Result, []session.Change)
}

// fromFrontEnd is tc with the front end's Asker and Shower wired into the
// Spec's questions and the hooks, its model picked and its project command
// expanded.
func (tc TaskConfig) fromFrontEnd() TaskConfig {
	if a := tc.Ask; a != nil {
		tc.Approver, tc.ConfirmWrite, tc.AskNetwork = a, a.ConfirmWrite, a.AskNetwork
	}
	if sh := tc.Show; sh != nil {
		tc.OnEvent, tc.Warn = sh.Event, sh.Warn
		tc.Hooks.Began, tc.Hooks.Ended = sh.Began, sh.Ended
	}
	if tc.Model != "" {
		tc.Config.LLM.Model = tc.Model
	}
	if tc.Commands {
		p, _, _ := ExpandCommand(tc.Root, tc.Prompt, tc.Config.Tools.SecretFiles)
		tc.Prompt = p
	}
	return tc
}

// ExpandCommand turns a task typed as "/name args" into the project
// command's prompt (.agentls/commands/name.md) or a skill's: the one
// expansion every front end uses. A task that names none is left as typed
// ("/tmp is full" stays a sentence). err is a mistyped command: the
// project has commands, and the name is neither one of them nor a path
// that exists; a front end that can refuse the task says so (agentls
// run), the others run it as typed. warn is files left out, and why.
func ExpandCommand(root, task string, secretFiles []string) (expanded string, warn error, err error) {
	name, args, ok := prompts.Split(task)
	if !ok {
		return task, nil, nil
	}
	cmds, warn := Commands(root, secretFiles)
	if c, ok := prompts.Find(cmds, name); ok {
		return c.Expand(args), warn, nil
	}
	if len(cmds) == 0 {
		return task, warn, nil
	}
	if _, serr := os.Lstat("/" + name); serr == nil {
		return task, warn, nil
	}
	msg := fmt.Sprintf("no project command /%s in %s; there are: %s", name, prompts.Dir, strings.Join(prompts.Names(cmds), ", "))
	if warn != nil {
		msg += " (left out: " + warn.Error() + ")"
	}
	return task, warn, errors.New(msg)
}

// AskFuncs is an Asker made of a front end's functions; a question left
// nil cannot be asked here (tools.ErrCannotAsk).
type AskFuncs struct {
	tools.Approver
	Confirm func(ctx context.Context, rel, why string) (bool, error)
	Network func(ctx context.Context, command string) (bool, error)
}

func (a AskFuncs) ConfirmWrite(ctx context.Context, rel, why string) (bool, error) {
	if a.Confirm == nil {
		return false, tools.ErrCannotAsk
	}
	return a.Confirm(ctx, rel, why)
}

func (a AskFuncs) AskNetwork(ctx context.Context, command string) (bool, error) {
	if a.Network == nil {
		return false, tools.ErrCannotAsk
	}
	return a.Network(ctx, command)
}

// ShowFuncs is a Shower made of a front end's functions, each optional:
// without OnEnded the result is recorded as it is, without changes.
type ShowFuncs struct {
	OnEvent func(agent.Event)
	OnWarn  func(msg string)
	OnBegan func(rec *session.Recorder)
	OnEnded func(ctx context.Context, res agent.Result) (agent.Result, []session.Change)
}

func (s ShowFuncs) Event(ev agent.Event) {
	if s.OnEvent != nil {
		s.OnEvent(ev)
	}
}

func (s ShowFuncs) Warn(msg string) {
	if s.OnWarn != nil {
		s.OnWarn(msg)
	}
}

func (s ShowFuncs) Began(rec *session.Recorder) {
	if s.OnBegan != nil {
		s.OnBegan(rec)
	}
}

func (s ShowFuncs) Ended(ctx context.Context, res agent.Result) (agent.Result, []session.Change) {
	if s.OnEnded != nil {
		return s.OnEnded(ctx, res)
	}
	return res, nil
}
