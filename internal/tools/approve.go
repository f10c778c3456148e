package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/policy"
)

// Approver decides whether run_command may run a command, or an MCP tool be
// called. agentls uses approval.New (policy.Rules, then the user);
// RulesApprover applies the rules alone. reason is shown to the model when
// the answer is no.
// ErrCannotAsk is a question's answer when nobody can be asked here (no
// terminal): the write or the network is refused, and the model is told
// that the user could not be asked, as when the front end has no way to
// ask at all.
var ErrCannotAsk = errors.New("the user cannot be asked here")

type Approver interface {
	Approve(ctx context.Context, command string) (ok bool, reason string, err error)
}

// ToolCall marks an approval asked for a tool call that runs no shell (an
// MCP tool), whose description "mcp <server>.<tool> <arguments JSON>" is
// matched by policy.Rules.CheckToolCall, not parsed as a command line.
type ToolCall struct {
	// ServerAllows: the tool's server names it in its "allow" setting, so
	// the user is not asked; a tools.deny rule still refuses it.
	ServerAllows bool
}

type toolCallKey struct{}

// WithToolCall marks ctx for the approval of the tool call c.
func WithToolCall(ctx context.Context, c ToolCall) context.Context {
	return context.WithValue(ctx, toolCallKey{}, c)
}

// ToolCallOf returns the tool call ctx was marked for by WithToolCall.
func ToolCallOf(ctx context.Context) (ToolCall, bool) {
	c, ok := ctx.Value(toolCallKey{}).(ToolCall)
	return c, ok
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, command string) (bool, string, error)

func (f ApproverFunc) Approve(ctx context.Context, command string) (bool, string, error) {
	return f(ctx, command)
}

// RulesApprover allows what the rules allow and refuses the rest, asking
// nobody; the refusal's reason says how to allow it.
func RulesApprover(r policy.Rules) Approver {
	return ApproverFunc(func(ctx context.Context, command string) (bool, string, error) {
		var d policy.Decision
		if c, ok := ToolCallOf(ctx); ok {
			d = r.CheckToolCall(command)
			if d.Verdict != policy.Deny && c.ServerAllows {
				Granted(ctx, agent.RanAllowed)
				return true, "", nil
			}
		} else {
			d = r.Check(command)
		}
		if d.Verdict == policy.Allow {
			Granted(ctx, agent.RanAllowed)
		}
		return d.Verdict == policy.Allow, d.Reason, nil
	})
}

type grantKey struct{}

// WithGrant marks ctx for an approval whose answer's provenance Granted
// notes in *how.
func WithGrant(ctx context.Context, how *string) context.Context {
	return context.WithValue(ctx, grantKey{}, how)
}

// Granted notes how the command being approved under ctx came to be
// allowed (agent.RanUnasked, RanAllowed, RanApproved): run_command tells
// the editors, which show it beside the command. An Approver that says
// nothing leaves it unsaid.
func Granted(ctx context.Context, how string) {
	if p, ok := ctx.Value(grantKey{}).(*string); ok {
		*p = how
	}
}

// approveCommand asks o's approver about command; a refusal is the tool
// call's error, saying why (refused when the approver gives no reason).
func approveCommand(ctx context.Context, o Options, command, refused string) error {
	ok, reason, err := o.Approver.Approve(ctx, command)
	if err != nil {
		return fmt.Errorf("approval of %q: %w", command, err)
	}
	if !ok {
		if reason == "" {
			reason = refused
		}
		return fmt.Errorf("run_command refused: %s", reason)
	}
	return nil
}
