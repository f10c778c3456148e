package agent

// State is a state of the agent machine (docs/architecture.md, "The agent core").
type State string

const (
	Idle      State = "idle"
	Planning  State = "planning"
	Executing State = "executing"
	Tools     State = "tools"
	Verifying State = "verifying"
	Reporting State = "reporting"
)

// Event kinds, as sent in agentls/event notifications.
const (
	KindState      = "state"
	KindText       = "text"
	KindToolCall   = "toolCall"
	KindToolResult = "toolResult"
	KindVerify     = "verify"
	KindUsage      = "usage"
	KindCompaction = "compaction"
	KindRetry      = "retry"
	KindEnd        = "end"
	// KindPlan carries the model's plan (update_plan) whenever it changes.
	KindPlan = "plan"
	// KindBudget says the task is near or at its budget (agent.maxSteps,
	// agent.maxCostUSD); Text says which, for a person.
	KindBudget = "budget"
	// KindNotice tells the user something about the task's input (a
	// mention that was not read, and why); Text, for a person.
	KindNotice = "notice"
	// KindThought carries an external ACP agent's thinking
	// (agent_thought_chunk) in Text: not its answer.
	KindThought = "thought"
	// KindCommands carries an external ACP agent's slash commands
	// (available_commands_update) in Commands, whenever it announces them.
	KindCommands = "commands"
	// KindOptions carries an external ACP agent's session settings (its
	// config options, such as its model picker, and its modes) in Options,
	// when the session opens and whenever they change.
	KindOptions = "options"
	// KindNested is a step of a nested task (a sub-agent, the explore
	// tool) inside the parent's tool call: Call is the parent's call and
	// Nested the sub-agent's own event (its tool calls and results, its
	// notices, its end), so a view shows it under that call, never as a
	// task of its own.
	KindNested = "nested"
)

// Event is what subscribers (the LSP server, the CLI, tests) see of a task.
// Only the fields of its Kind are set.
type Event struct {
	Kind string `json:"kind"`
	Step int    `json:"step,omitempty"`

	From State `json:"from,omitempty"` // state
	To   State `json:"to,omitempty"`

	Text string `json:"text,omitempty"` // text delta; retry and compaction reasons

	Call   *ToolCall   `json:"call,omitempty"`   // toolCall, toolResult
	Output string      `json:"output,omitempty"` // toolResult
	IsErr  bool        `json:"isError,omitempty"`
	Run    *CommandRun `json:"run,omitempty"` // toolResult of a command

	Verify *VerifyReport `json:"verify,omitempty"` // verify

	Usage     *Usage `json:"usage,omitempty"`     // usage: this call
	TaskUsage *Usage `json:"taskUsage,omitempty"` // usage: the task so far

	Plan *WorkPlan `json:"plan,omitempty"` // plan

	Commands []AgentCommand `json:"commands,omitempty"` // commands
	Options  []AgentOption  `json:"options,omitempty"`  // options

	Result *Result `json:"result,omitempty"` // end

	Nested *Event `json:"nested,omitempty"` // nested: the sub-agent's event
}

// AgentCommand is one of an external ACP agent's slash commands (ACP's
// available_commands_update).
type AgentCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Hint        string `json:"hint,omitempty"` // what its input is, if it takes one
}

// AgentOption is one of an external ACP agent's session settings: a config
// option (Category "model", "mode", "thought_level" or the agent's own) or
// its modes (ID "mode"), with the value it has and those it can take
// (agent.backend.acp.model and .mode choose among them).
type AgentOption struct {
	ID       string   `json:"id"`
	Name     string   `json:"name,omitempty"`
	Category string   `json:"category,omitempty"`
	Current  string   `json:"current"`
	Values   []string `json:"values,omitempty"`
}

// VerifyReport is the outcome of running the project's checks.
// MaxLocated caps VerifyReport.Located.
const MaxLocated = 10

type VerifyReport struct {
	Passed   bool     `json:"passed"`
	Commands []string `json:"commands"`
	// Feedback is the failure text trimmed for the model (empty on a pass).
	Feedback string `json:"feedback,omitempty"`
	// Summary is one line a person reads.
	Summary string `json:"summary"`
	// Problems counts located diagnostics.
	Problems int `json:"problems"`
	// Located lists the located problems for a person, "file:line:
	// message" with workspace-relative paths, at most MaxLocated of them.
	Located []string `json:"located,omitempty"`
	// Skipped: no check had anything to check (a Go module with no Go
	// files yet); the task is done but nothing was verified.
	Skipped bool `json:"skipped,omitempty"`
	// PreExisting counts the located problems that were there before the
	// task (the gate's baseline): shown, but not the task's to fix.
	PreExisting int `json:"preExisting,omitempty"`
}

// Status of a finished (or queued, running) task.
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusOK        = "ok"
	StatusError     = "error"
	StatusCancelled = "cancelled"
)

// Result is a finished task.
type Result struct {
	Status       string   `json:"status"`
	Verified     bool     `json:"verified"`
	Cancelled    bool     `json:"cancelled"`
	FilesChanged []string `json:"filesChanged"` // workspace-relative, in order of first change
	Usage        Usage    `json:"usage"`
	Cost         float64  `json:"cost,omitempty"` // USD, from the price table
	Steps        int      `json:"steps"`
	Summary      string   `json:"summary,omitempty"`
	Error        string   `json:"error,omitempty"`
	// Reason is a machine-readable end reason: "done", "maxSteps",
	// "budget", "stuck", "llm", "verifyFailed", "cancelled", "timeout".
	Reason string `json:"reason"`
	// Outcome is what became of the changes where Status alone would
	// mislead ("awaiting review"). The machine leaves it empty; the front
	// end that holds the changes sets it.
	Outcome string `json:"outcome,omitempty"`
	// FailedEdits counts the calls of tools that change files (EditTools)
	// that failed: a task that changed nothing and failed its edits did
	// not end "ok", whatever its answer says.
	FailedEdits int `json:"failedEdits,omitempty"`
}

// EditTools are the built-in tools that change files.
var EditTools = map[string]bool{"edit_file": true, "write_file": true, "apply_patch": true, "delete_file": true, "move_file": true}
