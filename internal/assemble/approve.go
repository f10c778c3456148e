package assemble

import (
	"context"
	"sync"

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

// Approver is the command policy every front end shares, on a real shell
// parser (internal/policy): tools.deny refuses without asking, whatever
// wrapper, path, quoting or nesting hides the program; a command the user
// allowed always, or that tools.allow covers, runs; anything else is asked
// about when the front end can ask, and refused with the policy's advice
// when it cannot. Where the sandbox is unavailable (and sandbox.mode is
// not off by the user's choice) allow rules admit nothing: every command
// is asked about.
func Approver(cfg config.Config, always *Allowed, ask Ask) tools.Approver {
	if always == nil {
		always = &Allowed{}
	}
	// Whether the sandbox is there is asked on the first command, not
	// before: the probe launches a process.
	unconfined := sync.OnceValues(func() (bool, string) {
		_, confined, why := Sandbox(cfg, "")
		return !confined && cfg.Sandbox.Mode != proc.ModeOff, why
	})
	rules := policy.Rules{Allow: cfg.Tools.Allow, Deny: cfg.Tools.Deny}
	return tools.ApproverFunc(func(ctx context.Context, command string) (bool, string, error) {
		var d policy.Decision
		if call, ok := tools.ToolCallOf(ctx); ok {
			d = rules.CheckToolCall(command)
			if d.Verdict != policy.Deny && call.ServerAllows {
				return true, "", nil
			}
		} else {
			d = rules.Check(command)
		}
		if d.Verdict == policy.Deny {
			return false, d.Reason, nil
		}
		if always.has(command) {
			return true, "", nil
		}
		reason := d.Reason
		if d.Verdict == policy.Allow {
			strict, why := unconfined()
			if !strict {
				return true, "", nil
			}
			reason = "the sandbox is unavailable here (" + why + "), so every command is asked about"
		}
		if ask == nil {
			return false, reason, nil
		}
		answer, err := ask(ctx, command, reason)
		if err != nil {
			return false, "", err
		}
		switch answer {
		case AllowOnce:
			return true, "", nil
		case AllowAlways:
			always.add(command)
			return true, "", nil
		case Deny:
			return false, "the user denied running " + command, nil
		default:
			return false, "the user gave no answer about running " + command + "; " + reason, nil
		}
	})
}
