package agent

import (
	"context"
	"encoding/json"
)

// Tool is something the model can call. Approval, timeouts, output caps and
// logging wrap tools rather than living inside each one.
type Tool interface {
	Spec() ToolSpec
	// ReadOnly tools of one turn may run in parallel; the others run one at a
	// time in the order the model gave.
	ReadOnly() bool
	// Run executes the call. An error is reported to the model as a failed
	// tool call, not as a task failure.
	Run(ctx context.Context, args json.RawMessage) (ToolResult, error)
}

// ToolResult is what a tool call produced.
type ToolResult struct {
	Output string `json:"output"`
	// Changed lists the workspace-relative paths whose change was actually
	// applied by this call.
	Changed []string `json:"changed,omitempty"`
	// Plan is the plan an update_plan call set (see ParsePlan); the
	// machine keeps it and emits it as a plan event.
	Plan *WorkPlan `json:"plan,omitempty"`
	// Usage is what the call spent on model calls of its own (a
	// sub-agent's): it counts toward the task's usage, cost and budget.
	Usage Usage `json:"usage,omitzero"`
	// Images are pictures the call opened for the model to look at
	// (view_image): they follow the turn's tool results as a user message,
	// the one message of the APIs that carries images.
	Images []Image `json:"images,omitempty"`
	// Run is how a command ran (run_command): the editors show it beside
	// the call, with the output folded under it.
	Run *CommandRun `json:"run,omitempty"`
}

// How a command came to run: CommandRun.Approval.
const (
	// RanUnasked: nobody was asked; the sandbox confined it
	// (tools.approval "sandboxed").
	RanUnasked = "unasked"
	// RanAllowed: a tools.allow rule, or the user's earlier "always",
	// covered it.
	RanAllowed = "allowed"
	// RanApproved: the user was asked and said yes.
	RanApproved = "approved"
)

// CommandRun is how a command the model asked for ran.
type CommandRun struct {
	Approval  string `json:"approval"`  // RanUnasked, RanAllowed or RanApproved
	Sandboxed bool   `json:"sandboxed"` // false: outside the sandbox
	// ExitCode is the command's; -1 when it was killed (TimedOut, or a
	// signal).
	ExitCode int  `json:"exitCode"`
	TimedOut bool `json:"timedOut,omitempty"`
	// Network: it ran again with network, as the user allowed.
	Network bool `json:"network,omitempty"`
}

// Workspace is the agent's view of the user's files. Reads see the editor's
// open buffers before the disk; writes go through the editor (LSP
// workspace/applyEdit) or, headless, to disk. Paths are workspace-relative
// and already confined by the caller (see Resolve).
type Workspace interface {
	// Root is the absolute workspace directory.
	Root() string
	// ReadFile returns the current text of a file: the open buffer if the
	// editor has it, else the disk.
	ReadFile(ctx context.Context, rel string) ([]byte, error)
	// Edit applies transform to the file's current text (nil and exists=false
	// for a file that does not exist) and writes the result through the
	// editor. When the text changed underneath (the user typed), Edit
	// re-reads and calls transform again on the new text, so nothing the user
	// typed is replaced. It returns an error when the editor rejects the edit.
	Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error
}
