// Package approval is the command approval policy every front end shares:
// whether a command or an MCP tool call the model asks for runs, is
// refused, or is put to the user. The rules themselves (a real shell
// parser, tools.allow/deny) are package policy's; this package adds the
// user's answers, tools.approval and the sandbox.
package approval

import (
	"context"
	"sync"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/tools"
)

// Answer is what the user said when asked whether a command may run.
type Answer int

const (
	// NoAnswer: the question could not be asked or was dismissed.
	NoAnswer Answer = iota
	AllowOnce
	AllowAlways
	Deny
)

// Ask puts a question about command to the user. why is the policy's
// reason for asking. A front end that cannot ask passes nil.
type Ask func(ctx context.Context, command, why string) (Answer, error)

// Allowed is the list of commands the user allowed "always" in this
// server or run; it outlives tasks. The zero value is ready.
type Allowed struct {
	mu       sync.Mutex
	commands []string
}

func (a *Allowed) has(command string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.commands {
		if c == command {
			return true
		}
	}
	return false
}

func (a *Allowed) add(command string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.commands = append(a.commands, command)
}

// New is the command policy every front end shares, on a real shell
// parser (internal/policy): tools.deny refuses without asking, whatever
// wrapper, path, quoting or nesting hides the program; a command the user
// allowed always, or that tools.allow covers, runs.
//
// What is left depends on tools.approval. "sandboxed" (the default) runs
// inside the sandbox, without asking, every command the policy can reduce
// to plain programs (the tools.allow rule "*" would admit it), and asks
// about the rest: a command the parser cannot see through, a program
// option that runs another program, an MCP tool call (MCP servers may
// run outside the sandbox). "always-ask" asks about everything tools.allow
// does not cover. "never" asks about nothing: what would be asked is
// refused. A question goes to the user when the front end can ask, else
// the command is refused with the policy's advice.
//
// Where the sandbox is unavailable (and sandbox.mode is not off by the
// user's choice) allow rules admit nothing and every command is asked
// about; with sandbox.mode off nothing runs sandboxed, so "sandboxed"
// admits only what tools.allow covers.
func New(cfg config.Config, always *Allowed, ask Ask) tools.Approver {
	return Reporting(cfg, always, ask, nil)
}

// Reporting is New that tells refused about each command
// refused for want of an answer: nobody could be asked, the question went
// unanswered, or tools.approval is "never". A deny rule or the user's no
// is a decision, not reported. refused may be nil.
func Reporting(cfg config.Config, always *Allowed, ask Ask, refused func(command, reason string)) tools.Approver {
	if always == nil {
		always = &Allowed{}
	}
	// Whether the sandbox is there is asked on the first command, not
	// before: the probe launches a process.
	probe := sync.OnceValues(func() (bool, string) {
		if cfg.Sandbox.Mode == proc.ModeOff {
			return false, "sandbox.mode is off"
		}
		return proc.Available()
	})
	mode := cfg.Tools.Approval
	if mode == "" {
		mode = config.ApprovalSandboxed
	}
	rules := policy.Rules{Allow: cfg.Tools.Allow, Deny: cfg.Tools.Deny}
	inSandbox := policy.Rules{Allow: append(append([]string(nil), cfg.Tools.Allow...), "*"), Deny: cfg.Tools.Deny}
	unanswered := func(command, reason string) (bool, string, error) {
		if refused != nil {
			refused(command, reason)
		}
		return false, reason, nil
	}
	return tools.ApproverFunc(func(ctx context.Context, command string) (bool, string, error) {
		var d policy.Decision
		call, toolCall := tools.ToolCallOf(ctx)
		if toolCall {
			d = rules.CheckToolCall(command)
			if d.Verdict != policy.Deny && call.ServerAllows {
				tools.Granted(ctx, agent.RanAllowed)
				return true, "", nil
			}
		} else {
			d = rules.Check(command)
		}
		if d.Verdict == policy.Deny {
			return false, d.Reason, nil
		}
		if always.has(command) {
			tools.Granted(ctx, agent.RanAllowed)
			return true, "", nil
		}
		reason := d.Reason
		switch {
		case d.Verdict == policy.Allow:
			confined, why := probe()
			if confined || cfg.Sandbox.Mode == proc.ModeOff {
				tools.Granted(ctx, agent.RanAllowed)
				return true, "", nil
			}
			reason = "the sandbox is unavailable here (" + why + "), so every command is asked about"
		case mode != config.ApprovalAlwaysAsk && !toolCall:
			// Inside the sandbox a plain command cannot reach the network,
			// write outside the workspace or change a protected file: it
			// runs without a question.
			sd := inSandbox.Check(command)
			if sd.Verdict == policy.Allow {
				confined, why := probe()
				if confined {
					tools.Granted(ctx, agent.RanUnasked)
					return true, "", nil
				}
				if cfg.Sandbox.Mode == proc.ModeOff {
					reason = "sandbox.mode is off, so only commands tools.allow covers run without a question"
				} else {
					reason = "the sandbox is unavailable here (" + why + "), so every command is asked about"
				}
			} else if sd.Reason != "" {
				reason = sd.Reason
			}
		}
		if mode == config.ApprovalNever {
			return unanswered(command, reason+" (tools.approval is \"never\": agentls asks nothing and refuses what it would ask about)")
		}
		if ask == nil {
			return unanswered(command, reason)
		}
		answer, err := ask(ctx, command, reason)
		if err != nil {
			return false, "", err
		}
		switch answer {
		case AllowOnce:
			tools.Granted(ctx, agent.RanApproved)
			return true, "", nil
		case AllowAlways:
			always.add(command)
			tools.Granted(ctx, agent.RanApproved)
			return true, "", nil
		case Deny:
			return false, "the user denied running " + command, nil
		default:
			return unanswered(command, "the user gave no answer about running "+command+"; "+reason)
		}
	})
}
