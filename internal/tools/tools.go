package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
)

// Options configures Default. Zero values take the defaults in brackets.
type Options struct {
	// Policy confines every path. An empty Root means the workspace root.
	Policy Policy
	// Approver decides whether run_command may run a command
	// [RulesApprover(policy.Rules{}): everything refused, with a message
	// saying how to allow it].
	Approver Approver
	// MaxReadOutput caps read_file's output in bytes [256 KiB].
	MaxReadOutput int
	// MaxCommandOutput caps run_command's output in bytes [64 KiB].
	MaxCommandOutput int
	// MaxListFiles caps list_files' paths [1000]; MaxGrepMatches caps grep's
	// matching lines [200].
	MaxListFiles   int
	MaxGrepMatches int
	// CommandTimeout is run_command's default timeout [120 s];
	// MaxCommandTimeout the most the model may ask for [600 s].
	CommandTimeout    time.Duration
	MaxCommandTimeout time.Duration
	// Env is the environment run_command starts from [os.Environ()]; API keys
	// and tokens are removed from it either way.
	Env []string
	// Secrets are values (the API key in use) no variable of a command's
	// environment may contain.
	Secrets []string
	// Sandbox confines run_command (internal/proc); its zero value is the
	// default workspace-write sandbox without network. Workspace is set
	// from the workspace root.
	Sandbox proc.Sandbox
	// ConfirmWrite asks the user whether a file that configures agentls or
	// the editor (policy.Protected: .agentls.json, .vscode/, git hooks, …)
	// may be written; why says what the file does. nil: such writes are
	// refused. Review mode or not, the model never changes them unasked.
	ConfirmWrite func(ctx context.Context, rel, why string) (bool, error)
	// EditTool chooses how the model edits: "edit_file" (write_file,
	// edit_file, delete_file, move_file), "apply_patch" (apply_patch in
	// their place), or "auto"/"" (apply_patch for the models trained on
	// it, see PatchModel).
	EditTool string
	// Model is the model's name, for EditTool "auto".
	Model string
	// AskNetwork asks the user whether a command that failed for want of
	// network may run again with it; nil: never asked.
	AskNetwork func(ctx context.Context, command string) (bool, error)
	// ReadBeforeEdit refuses an edit of an existing file the model has
	// not read (or written) with these tools in this task (see readLog).
	ReadBeforeEdit bool
	// Seen are files whose whole text the model already has (the task's
	// @ mentions): read, for ReadBeforeEdit.
	Seen []string
	// Images offers view_image, for a model that takes images.
	Images bool
	// CarryJournal is the directory where carrying a command's writes
	// into the tree is journaled first (RecoverCarries finishes or
	// reports a carry a killed agentls left); "": not journaled.
	CarryJournal string

	reads   *readLog  // shared by one Default's tools when ReadBeforeEdit
	carried *[]string // one run_command call's files carried in from its view
}

func (o Options) withDefaults(ws agent.Workspace) Options {
	if o.Policy.Root == "" {
		o.Policy.Root = ws.Root()
	}
	if o.Approver == nil {
		o.Approver = RulesApprover(policy.Rules{})
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxReadOutput, 256<<10)
	def(&o.MaxCommandOutput, 64<<10)
	def(&o.MaxListFiles, 1000)
	def(&o.MaxGrepMatches, 200)
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = 120 * time.Second
	}
	if o.MaxCommandTimeout <= 0 {
		o.MaxCommandTimeout = 600 * time.Second
	}
	if o.CommandTimeout > o.MaxCommandTimeout {
		o.CommandTimeout = o.MaxCommandTimeout
	}
	return o
}

// Default returns the tools of the contract, in contract order:
// read_file, list_files, grep, then the edit tools (write_file, edit_file,
// delete_file and move_file, or apply_patch: Options.EditTool), then
// run_command.
func Default(ws agent.Workspace, opts Options) []agent.Tool {
	o := opts.withDefaults(ws)
	if o.ReadBeforeEdit && o.reads == nil {
		o.reads = &readLog{}
		o.reads.saw(o.Seen...)
	}
	ts := []agent.Tool{
		newReadFile(ws, o),
		newListFiles(ws, o),
		newGrep(ws, o),
	}
	if o.Images {
		ts = append(ts, newViewImage(ws, o))
	}
	if UsesPatch(o.EditTool, o.Model) {
		return append(ts, newApplyPatch(ws, o), newRunCommand(ws, o))
	}
	ts = append(ts, newWriteFile(ws, o), newEditFile(ws, o))
	// Only a workspace that can delete and move (the editor, the disk; not
	// an ACP client's file system) is offered the tools that do.
	if _, ok := As[FileOps](ws); ok {
		ts = append(ts, newDeleteFile(ws, o), newMoveFile(ws, o))
	}
	return append(ts, newRunCommand(ws, o))
}

// UsesPatch reports whether editTool ("auto", "", "edit_file",
// "apply_patch") gives model apply_patch: under auto, OpenAI's GPT-5 and
// Codex families, which are trained on that format.
func UsesPatch(editTool, model string) bool {
	switch editTool {
	case "apply_patch":
		return true
	case "edit_file":
		return false
	}
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // openai/gpt-5 on a router
		m = m[i+1:]
	}
	return strings.HasPrefix(m, "gpt-5") || strings.Contains(m, "codex")
}

// tool is the one implementation of agent.Tool: each tool is a name, the
// schema of its arguments (args.schema) and a run function that parses
// them (args.parse).
type tool struct {
	name, description string
	schema            json.RawMessage
	readOnly          bool
	freeform          bool   // see agent.ToolSpec.Freeform
	grammar           string // see agent.ToolSpec.Grammar
	run               func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error)
}

func (t *tool) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: t.name, Description: t.description, Parameters: t.schema, Freeform: t.freeform, Grammar: t.grammar}
}

func (t *tool) ReadOnly() bool { return t.readOnly }

func (t *tool) Run(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
	if err := ctx.Err(); err != nil {
		return agent.ToolResult{}, err
	}
	return t.run(ctx, args)
}

// writable confines path for writing (Policy.ResolveWrite) and, for a file
// that configures agentls or the editor, asks the user first: by the name
// the model gave and by the real file it names (.vscode as a symlink to
// another directory, or a directory link into .vscode).
func writable(ctx context.Context, o Options, path string) (abs, rel string, err error) {
	abs, rel, lexical, err := o.Policy.resolveWrite(path)
	if err != nil {
		return "", "", err
	}
	if err := confirmWrite(ctx, o, rel, lexical); err != nil {
		return "", "", err
	}
	return abs, rel, nil
}

// confirmWrite refuses a write to a protected file unless the user
// approves it explicitly. rel is the real path; lexical, if it differs,
// the path as given. A file is protected by its name, by the name it was
// given, or by a protected symlink that leads to it (ProtectedWrite).
func confirmWrite(ctx context.Context, o Options, rel, lexical string) error {
	protected, why := ProtectedWrite(o.Policy.Root, rel, lexical)
	if protected && lexical != "" && lexical != rel {
		if p, _ := policy.Protected(rel); !p {
			if p, _ := policy.Protected(lexical); p {
				rel = lexical + " (" + rel + ")"
			}
		}
	}
	if !protected {
		return nil
	}
	cannot := fmt.Errorf("%s; the model may change it only with the user's explicit approval, and the user cannot be asked here: ask the user to make this change", why)
	if o.ConfirmWrite == nil {
		return cannot
	}
	ok, err := o.ConfirmWrite(ctx, rel, why)
	if errors.Is(err, ErrCannotAsk) {
		return cannot
	}
	if err != nil {
		return fmt.Errorf("asking the user about %s: %w", rel, err)
	}
	if !ok {
		return fmt.Errorf("the user did not allow changing %s (%s)", rel, why)
	}
	return nil
}
