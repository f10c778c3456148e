package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
)

// ReadOnly returns the tools of a task that may not change anything (a
// sub-agent exploring for its task): read_file, list_files, grep and a
// run_command that runs only in the read-only sandbox. Their schemas are
// Default's, so a model offered Default's tools calls them the same way.
//
// The command runs with the sandbox in read-only mode whatever
// sandbox.mode says, without network, and shows the editor's unsaved
// texts as Default's does; but nothing it writes is carried out of the
// view. Where the sandbox cannot be had (sandbox.mode off, a machine
// without it), no command runs: the guarantee is the sandbox's, never the
// command line's. Approver still decides first, as for Default's.
func ReadOnly(ws agent.Workspace, opts Options) []agent.Tool {
	o := opts.withDefaults(ws)
	return []agent.Tool{newReadFile(ws, o), newListFiles(ws, o), newGrep(ws, o), newReadOnlyCommand(ws, o)}
}

// ErrNotReadOnly is returned by the read-only run_command where the
// read-only sandbox is not available.
var ErrNotReadOnly = errors.New("no read-only sandbox here")

func newReadOnlyCommand(ws agent.Workspace, o Options) agent.Tool {
	decl := runCommandDecl(o)
	off := o.Sandbox.Mode == proc.ModeOff
	o.Sandbox.Mode = proc.ModeReadOnly
	o.Sandbox.Network = false
	o.Sandbox.WritableRoots = nil
	t := &tool{
		name:        "run_command",
		description: runCommandDescription(o),
		schema:      decl.schema(),
		readOnly:    true,
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, timeout, err := parseCommand(decl, t.name, raw, o)
		if err != nil {
			return agent.ToolResult{}, err
		}
		if off {
			return agent.ToolResult{}, fmt.Errorf("run_command refused: %w (sandbox.mode is off); read the files with read_file, list_files and grep", ErrNotReadOnly)
		}
		if err := approveCommand(ctx, o, a.Command, "not allowed"); err != nil {
			return agent.ToolResult{}, err
		}
		sb := o.Sandbox
		sb.Workspace = ws.Root()
		if v, ok := asViewer(ws); ok {
			// The editor's texts, as the task's commands see them; what the
			// command writes stays in the view and goes with it.
			sb.View = v.View(ctx)
		}
		spec := shellSpec(o, sb, ws.Root(), a.Command, timeout)
		res, err := proc.Run(ctx, spec)
		note := ""
		if err != nil && spec.Sandbox.View != nil && !errors.Is(err, proc.ErrUnavailable) && ctx.Err() == nil {
			// The view could not be mounted (a buffer behind a symlink):
			// the saved files, read-only all the same.
			spec.Sandbox.View = nil
			res, err = proc.Run(ctx, spec)
			note = "[ran on the saved files: the editor's unsaved text could not be shown to the command]\n"
		}
		if errors.Is(err, proc.ErrUnavailable) {
			return agent.ToolResult{}, fmt.Errorf("run_command refused: %w (%v); read the files with read_file, list_files and grep", ErrNotReadOnly, err)
		}
		if err != nil {
			return agent.ToolResult{}, fmt.Errorf("run %q: %w", a.Command, err)
		}
		out, err := describe(ctx, a.Command, timeout, res)
		return agent.ToolResult{Output: note + out}, err
	}
	return t
}
