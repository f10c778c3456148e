package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// asker asks the user, through window/showMessageRequest, whether a
// command may run, a protected file may change, or a command may run
// again with network. allowed is what the user allowed always, this
// session.
type asker struct {
	ed      *editor
	allowed approval.Allowed
}

// Answers offered when agentls asks to run a command.
const (
	allowOnce   = "Allow once"
	allowAlways = "Always allow this command"
	deny        = "Deny"
)

// Answers to the questions about a protected file and about network.
const (
	allowChange = "Allow this change"
	withNetwork = "Run again with network"
	notAllowed  = "No"
)

// approver is the shared command policy (approval.New) with the user
// asked through window/showMessageRequest. A client that cannot ask (Helix
// 25.07) follows the policy alone, whose refusal says how to allow the
// command.
func (a *asker) approver(cfg config.Config) tools.Approver {
	return approval.New(cfg, &a.allowed, a.ask())
}

// ask is how the user is asked whether something may run: askToRun, or
// nil when the client cannot ask.
func (a *asker) ask() approval.Ask {
	if !a.ed.canAsk() {
		return nil
	}
	return a.askToRun
}

// askToRun asks the user whether command may run. It holds no lock while
// the client answers.
func (a *asker) askToRun(ctx context.Context, command, _ string) (approval.Answer, error) {
	res, err := a.request(ctx, protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: fmt.Sprintf("agentls wants to run in %s:\n\n%s", a.ed.rootDir(), command),
		Actions: []protocol.MessageActionItem{{Title: allowOnce}, {Title: allowAlways}, {Title: deny}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return approval.NoAnswer, ctx.Err()
		}
		return approval.NoAnswer, fmt.Errorf("asking the user failed: %v", err)
	}
	switch {
	case res == nil:
		return approval.NoAnswer, nil
	case res.Title == allowOnce:
		return approval.AllowOnce, nil
	case res.Title == allowAlways:
		return approval.AllowAlways, nil
	default:
		return approval.Deny, nil
	}
}

// confirmWrite asks whether the model may change a file that configures
// agentls or the editor. A client that cannot ask refuses it.
func (a *asker) confirmWrite(ctx context.Context, rel, why string) (bool, error) {
	return a.yesNo(ctx, fmt.Sprintf("agentls wants to change %s, which %s. Allow this change?", rel, why), allowChange)
}

// askNetwork asks whether a command that failed for want of network may
// run again with it.
func (a *asker) askNetwork(ctx context.Context, command string) (bool, error) {
	return a.yesNo(ctx, fmt.Sprintf("This command failed without network (agentls runs commands in a sandbox):\n\n%s\n\nRun it again with network?", command), withNetwork)
}

// yesNo asks a question with one affirmative answer; no lock is held
// while the client answers.
func (a *asker) yesNo(ctx context.Context, question, yes string) (bool, error) {
	if !a.ed.canAsk() {
		return false, nil
	}
	res, err := a.request(ctx, protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: question,
		Actions: []protocol.MessageActionItem{{Title: yes}, {Title: notAllowed}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("asking the user failed: %v", err)
	}
	return res != nil && res.Title == yes, nil
}

// askParams is window/showMessageRequest's params with the id of the task
// that asks, so an editor can tell the user which of its tasks needs them
// (and mark it in its task list) without guessing from the text. It goes
// only to a client that declared it takes it (experimental.agentls.
// questionTaskId): Eglot 1.9 refuses a request with a member it does not
// know, and never asks the user.
// Its members are spelled out: protocol's params type marshals itself,
// which would drop a member beside it.
type askParams struct {
	Type    protocol.MessageType         `json:"type"`
	Message string                       `json:"message"`
	Actions []protocol.MessageActionItem `json:"actions,omitempty"`
	TaskID  string                       `json:"taskId,omitempty"`
}

type taskKey struct{}

// withTask marks ctx as a task's: questions asked under it carry its id.
func withTask(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, taskKey{}, id)
}

// request asks the client; no lock is held while it answers.
func (a *asker) request(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return a.ed.ask(ctx, p)
}

// ask is window/showMessageRequest, the one way agentls asks the user
// (the asker's questions and the trust question): a question asked under
// a task's ctx (withTask) names the task to a client that takes it. No
// lock is held while the client answers.
func (e *editor) ask(ctx context.Context, p protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	var id string
	if caps, _ := e.clientState(); caps.questionTaskID {
		id, _ = ctx.Value(taskKey{}).(string)
	}
	var res *protocol.MessageActionItem
	if _, err := e.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, askParams{Type: p.Type, Message: p.Message, Actions: p.Actions, TaskID: id}, &res); err != nil {
		return nil, err
	}
	return res, nil
}
