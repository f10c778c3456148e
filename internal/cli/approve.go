package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/tools"
)

// cliApprover decides whether run_command (and MCP tools) may run: the
// tools.allow / tools.deny policy first; a command it does not allow is
// asked about on a terminal ([y]es once, [a]lways, [n]o) and refused
// otherwise, with the policy's message on how to allow it.
func cliApprover(cfg config.Config, interactive bool, in func() *lines, out io.Writer) tools.Approver {
	var mu sync.Mutex
	var always []string
	return tools.ApproverFunc(func(ctx context.Context, command string) (bool, string, error) {
		if ok, reason, err := (tools.PolicyApprover{Allow: []string{"*"}, Deny: cfg.Tools.Deny}).Approve(ctx, command); err != nil || !ok {
			return false, reason, err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, a := range always {
			if a == command {
				return true, "", nil
			}
		}
		ok, reason, err := (tools.PolicyApprover{Allow: cfg.Tools.Allow}).Approve(ctx, command)
		if err != nil || ok || !interactive {
			return ok, reason, err
		}
		for {
			fmt.Fprintf(out, "\nagentls wants to run:\n  %s\nRun it? [y]es once, [a]lways this command, [n]o: ", command)
			answer, more, err := in().next(ctx)
			if err != nil {
				return false, "", err
			}
			if !more {
				return false, "no answer on the terminal; " + reason, nil
			}
			switch strings.ToLower(strings.TrimSpace(answer)) {
			case "y", "yes":
				return true, "", nil
			case "a", "always":
				always = append(always, command)
				return true, "", nil
			case "n", "no":
				return false, "the user denied running " + command, nil
			}
		}
	})
}
