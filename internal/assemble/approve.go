package assemble

import (
	"context"
	"sync"

	"github.com/agentls/agentls/internal/config"
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

// Approver is the command policy every front end shares: tools.deny
// refuses without asking; a command the user allowed always, or that
// tools.allow covers, runs; anything else is asked about when the front
// end can ask, and refused with the policy's advice when it cannot.
func Approver(cfg config.Config, always *Allowed, ask Ask) tools.Approver {
	if always == nil {
		always = &Allowed{}
	}
	return tools.ApproverFunc(func(ctx context.Context, command string) (bool, string, error) {
		if ok, reason, err := (tools.PolicyApprover{Allow: []string{"*"}, Deny: cfg.Tools.Deny}).Approve(ctx, command); err != nil || !ok {
			return false, reason, err
		}
		if always.has(command) {
			return true, "", nil
		}
		ok, reason, err := (tools.PolicyApprover{Allow: cfg.Tools.Allow}).Approve(ctx, command)
		if err != nil || ok || ask == nil {
			return ok, reason, err
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
