package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentls/agentls/internal/approval"
)

// terminalAsk asks on the terminal whether a command the policy does not
// allow may run: [y]es once, [a]lways, [n]o (see approval.New). hold,
// if not nil, stops the progress line until the answer came (it returns
// the resume).
func terminalAsk(in func() *lines, out io.Writer, hold func() (resume func())) approval.Ask {
	return func(ctx context.Context, command, _ string) (approval.Answer, error) {
		if hold != nil {
			defer hold()()
		}
		for {
			fmt.Fprintf(out, "\nagentls wants to run:\n  %s\nRun it? [y]es once, [a]lways this command, [n]o: ", command)
			answer, more, err := in().next(ctx)
			if err != nil {
				return approval.NoAnswer, err
			}
			if !more {
				return approval.NoAnswer, nil
			}
			switch strings.ToLower(strings.TrimSpace(answer)) {
			case "y", "yes":
				return approval.AllowOnce, nil
			case "a", "always":
				return approval.AllowAlways, nil
			case "n", "no":
				return approval.Deny, nil
			}
		}
	}
}

// terminalYesNo asks a yes/no question on the terminal; anything but yes,
// or no answer, is no.
func terminalYesNo(in func() *lines, out io.Writer, hold func() (resume func())) func(ctx context.Context, question string) (bool, error) {
	return func(ctx context.Context, question string) (bool, error) {
		if hold != nil {
			defer hold()()
		}
		return askYesNo(ctx, in(), out, "\n"+question)
	}
}

// askYesNo writes question with " [y/N]: " and reads the answer from in;
// anything but yes, or no answer, is no.
func askYesNo(ctx context.Context, in *lines, out io.Writer, question string) (bool, error) {
	fmt.Fprintf(out, "%s [y/N]: ", question)
	answer, _, err := in.next(ctx)
	if err != nil {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes", nil
}
