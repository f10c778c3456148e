package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
	"github.com/google/jsonschema-go/jsonschema"
)

type runCommandArgs struct {
	Command string `json:"command" jsonschema:"The command line."`
	// Its description and maximum come from Options.
	TimeoutSeconds int `json:"timeout_seconds,omitempty" minimum:"1"`
}

// runCommandDecl declares run_command's arguments for o's timeouts.
func runCommandDecl(o Options) *args[runCommandArgs] {
	return declare[runCommandArgs](func(props map[string]*jsonschema.Schema) {
		p := props["timeout_seconds"]
		p.Description = fmt.Sprintf("Seconds before it is killed (default %d).", int(o.CommandTimeout/time.Second))
		maxSeconds := float64(o.MaxCommandTimeout / time.Second)
		p.Maximum = &maxSeconds
	})
}

// parseCommand parses run_command's arguments (the read-only one's too)
// and the timeout they ask for.
func parseCommand(decl *args[runCommandArgs], name string, raw json.RawMessage, o Options) (runCommandArgs, time.Duration, error) {
	a, err := decl.parse(name, raw)
	if err != nil {
		return a, 0, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return a, 0, errors.New("command is empty")
	}
	timeout := o.CommandTimeout
	if a.TimeoutSeconds > 0 {
		timeout = time.Duration(a.TimeoutSeconds) * time.Second
	}
	return a, timeout, nil
}

// shellSpec is how run_command runs command with sh -c in root: an
// environment without credentials, the secrets kept out, capped output.
func shellSpec(o Options, sb proc.Sandbox, root, command string, timeout time.Duration) proc.Spec {
	return proc.Spec{
		Shell:       command,
		Dir:         root,
		Env:         commandEnv(o.Env),
		Secrets:     o.Secrets,
		Timeout:     timeout,
		OutputLimit: o.MaxCommandOutput,
		Sandbox:     sb,
	}
}

func newRunCommand(ws agent.Workspace, o Options) agent.Tool {
	decl := runCommandDecl(o)
	t := &tool{
		name:        "run_command",
		description: runCommandDescription(o),
		schema:      decl.schema(),
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, timeout, err := parseCommand(decl, t.name, raw, o)
		if err != nil {
			return agent.ToolResult{}, err
		}
		var how string
		if err := approveCommand(WithGrant(ctx, &how), o, a.Command, "the user did not allow it"); err != nil {
			return agent.ToolResult{}, err
		}
		// What the command's view carried into the tree is a change of
		// the call: the task's files changed, its checks, its result.
		var carried []string
		o := o
		o.carried = &carried
		out, res, err := runCommandIn(ctx, ws, o, a.Command, timeout, false)
		network := false
		if err == nil && res.NetworkBlocked && !o.Sandbox.Network && o.AskNetwork != nil {
			// The command failed for want of network: ask whether it may
			// run again with it.
			again, askErr := o.AskNetwork(ctx, a.Command)
			if errors.Is(askErr, ErrCannotAsk) {
				return agent.ToolResult{Output: out, Changed: carried}, err
			}
			if askErr != nil {
				return agent.ToolResult{Output: out, Changed: carried}, fmt.Errorf("asking for network: %w", askErr)
			}
			if again {
				out, res, err = runCommandIn(ctx, ws, o, a.Command, timeout, true)
				out = "[run again with network, as the user allowed]\n" + out
				network = true
			}
		}
		run := &agent.CommandRun{Approval: how, Sandboxed: res.Sandboxed, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Network: network}
		return agent.ToolResult{Output: out, Run: run, Changed: carried}, err
	}
	return t
}

// runShell runs command with sh -c in the workspace through internal/proc:
// its own session (no controlling terminal, so a password prompt fails
// instead of hanging), the sandbox the options ask for, an environment
// without credentials, capped output, and the whole process tree killed on
// timeout, on cancellation and when the shell exits. It returns the output
// followed by how the command ended. The error is non-nil only when ctx was
// cancelled or the command could not start; a failing command is a result.
func runShell(ctx context.Context, o Options, root, command string, timeout time.Duration, network bool) (string, proc.Result, error) {
	sb := o.Sandbox
	sb.Workspace = root
	sb.Network = sb.Network || network
	spec := shellSpec(o, sb, root, command, timeout)
	res, err := proc.Run(ctx, spec)
	if errors.Is(err, proc.ErrUnavailable) {
		// No sandbox on this machine: the approver asked the user about
		// this very command because of that (approval.New), so it
		// runs unconfined, still in its own process tree.
		spec.Sandbox.Mode = proc.ModeOff
		res, err = proc.Run(ctx, spec)
	}
	if err != nil {
		return "", res, fmt.Errorf("run %q: %w", command, err)
	}
	out, err := describe(ctx, command, timeout, res)
	return out, res, err
}

// describe is a finished command's output followed by how it ended. The
// error is non-nil only when ctx was cancelled.
func describe(ctx context.Context, command string, timeout time.Duration, res proc.Result) (string, error) {
	var b strings.Builder
	body := res.Output
	if body == "" {
		body = "(no output)\n"
	} else if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	b.WriteString(body)
	elapsed := res.Duration.Round(time.Millisecond)
	switch {
	case res.Cancelled || ctx.Err() != nil:
		fmt.Fprintf(&b, "[cancelled after %s; process tree killed]\n", elapsed)
		return b.String(), fmt.Errorf("run_command %q: %w", command, context.Cause(ctx))
	case res.TimedOut:
		fmt.Fprintf(&b, "[timed out after %s; process tree killed]\n", timeout)
	case res.ExitCode >= 0:
		fmt.Fprintf(&b, "[exit code %d]\n", res.ExitCode)
	default:
		b.WriteString("[killed by a signal]\n")
	}
	if res.NetworkBlocked {
		b.WriteString("[the command had no network: agentls runs commands in a sandbox without network access. " +
			"If it needs the network, the user can allow it once with network when asked, or set sandbox.network: true]\n")
	}
	return b.String(), nil
}

// runCommandIn runs command in a view of the workspace holding the
// editor's texts when there is one (runInView), else on the disk.
func runCommandIn(ctx context.Context, ws agent.Workspace, o Options, command string, timeout time.Duration, network bool) (string, proc.Result, error) {
	v, view := viewOf(ctx, ws, o)
	if v == nil {
		return runShell(ctx, o, ws.Root(), command, timeout, network)
	}
	out, res, err := runInView(ctx, o, v, ws.Root(), command, timeout, network, view, recorderOf(ws))
	if err != nil && ctx.Err() == nil && out == "" && len(view) > 0 {
		// The view of the editor's texts could not be mounted (a buffer
		// behind a symlink, say): the command runs in a view of the saved
		// files, carried out like any other, and the model is told. Never
		// on the tree itself, where its writes would pass no check.
		out, res, err = runInView(ctx, o, v, ws.Root(), command, timeout, network, map[string][]byte{}, recorderOf(ws))
		if err == nil {
			out = "[ran on the saved files: the editor's unsaved text could not be shown to the command]\n" + out
		}
	}
	if err != nil && out == "" && ctx.Err() == nil {
		return "", res, fmt.Errorf("run %q: the command did not run: its view of the workspace could not be set up: %w", command, err)
	}
	return out, res, err
}

// commandEnv is the environment for a command: base (or the server's own)
// without credentials the model must never see (proc removes those), plus
// settings that make interactive tools fail fast instead of waiting for a
// person.
func commandEnv(base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+1)
	for _, kv := range base {
		if name, _, _ := strings.Cut(kv, "="); name == "GIT_TERMINAL_PROMPT" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0")
}

// runCommandDescription says what run_command does and does not, with
// this configuration's sandbox and limits.
func runCommandDescription(o Options) string {
	var b strings.Builder
	b.WriteString("Run a shell command with /bin/sh -c. Every call starts afresh in the workspace root (cd and variables do not carry over); no stdin, no terminal; API keys are not in its environment. ")
	switch o.Sandbox.Mode {
	case proc.ModeOff:
		b.WriteString("Not sandboxed. ")
	case proc.ModeReadOnly:
		b.WriteString("Sandboxed: it cannot write files. ")
	default:
		b.WriteString("Sandboxed: it may write only in the workspace and temporary directories. ")
	}
	if o.Sandbox.Mode != proc.ModeOff && !o.Sandbox.Network {
		b.WriteString("No network. ")
	}
	fmt.Fprintf(&b, "Commands the user's settings do not allow are asked about first; a refusal comes back as an error. stdout and stderr are merged; over %d KiB only the head and the tail are kept; the exit code is reported. Killed with its children after the timeout. Use the file tools, not cat/sed/echo, to read and change files.", o.MaxCommandOutput>>10)
	return b.String()
}
