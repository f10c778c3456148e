package agent

// The machine's alphabet: its limits, the inputs it steps on and the
// actions it asks the driver for.

import (
	"time"
)

// Limits are the knobs of one task. Zero values take the defaults of
// DefaultLimits, except MaxRetries, Verify and ToolsTokens, whose zero
// means what it says (no retries, no gate, no schemas).
type Limits struct {
	MaxSteps      int           // model turns per task
	MaxRetries    int           // verify-gate retries
	LLMAttempts   int           // attempts per model call, the first included
	BackoffBase   time.Duration // first retry wait
	BackoffCap    time.Duration // longest computed wait
	MaxRetryWait  time.Duration // a longer wait (Retry-After) fails the task
	Verify        bool          // run the verify gate when files changed
	ContextTokens int           // the model's context window
	ToolsTokens   int           // the tool schema block, counted against the window
	MaxToolOutput int           // bytes per tool result
	// MaxCostUSD ends the task gracefully once the model calls cost this
	// much at PriceInput and PriceOutput (USD per million tokens); 0: no
	// cost budget. Without a price it is never reached.
	MaxCostUSD              float64
	PriceInput, PriceOutput float64
	// StopCheck: the task has a stop condition (a Stop hook, agentls run
	// --until): when the model answers without tools, the machine asks
	// the driver whether it may stop (CheckStop) before the checks and
	// the report.
	StopCheck bool
}

// DefaultLimits are the documented defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxSteps:      200,
		MaxRetries:    3,
		LLMAttempts:   3,
		BackoffBase:   500 * time.Millisecond,
		BackoffCap:    30 * time.Second,
		MaxRetryWait:  60 * time.Second,
		Verify:        true,
		ContextTokens: 128_000,
		MaxToolOutput: 64 << 10,
	}
}

// Input is something that happened, fed to Machine.Step.
type Input interface{ input() }

// Start begins a task.
type Start struct {
	Task   string
	Images []Image // go with the task's message
	Limits Limits
	Seed   uint64 // jitter source; the same seed replays the same waits
}

// Planned carries the context gathered in Planning: the system prompt and
// project context (kept for the whole task), and earlier turns of the
// session (compactable).
type Planned struct {
	Prefix  []Message
	History []Message
	// Notices are sent to the user as notice events (a mention not read).
	Notices []string
}

// TextDelta is streamed model text.
type TextDelta struct{ Text string }

// Observed is an event of a model call that acts: an external agent (the
// ACP bridge) runs its own tools during its turn, and its tool calls and
// results, plans, thoughts, commands and settings are shown with the
// turn's text, in order.
// Other kinds are not the model's to report and are ignored.
type Observed struct{ Event Event }

// ModelDone is a finished model turn.
type ModelDone struct{ Response Response }

// ModelFailed is a failed model call. Partial holds what streamed before
// the failure.
type ModelFailed struct {
	Err     error
	Partial Response
}

// TimerFired reports that the timer of that ID expired.
type TimerFired struct{ ID int }

// ToolDone is one finished tool call.
type ToolDone struct {
	ID     string
	Result ToolResult
	Err    error
}

// ToolProgress is an event of a tool call still running: a step of the
// nested task a sub-agent runs. The machine shows it under the call
// (KindNested) while the call is pending; afterwards it is ignored.
type ToolProgress struct {
	ID    string
	Event Event
}

// StopChecked answers CheckStop. Continue sends the model back to work
// with Feedback as the next user message (within the task's budget);
// Unmet says, for the result, what is not met if the budget ends first.
// Note, if any, is shown to the user either way ("the stop condition
// passed").
type StopChecked struct {
	Continue bool
	Feedback string
	Unmet    string
	Note     string
}

// VerifyDone is the verify gate's outcome.
type VerifyDone struct{ Report VerifyReport }

// Compacted answers a Compact action: a summary of the dropped turns, or
// an error (the machine then uses its own digest).
type Compacted struct {
	Summary string
	Usage   Usage
	Err     error
}

// Reported answers a Report action.
type Reported struct{}

// Cancel stops the task from any state.
type Cancel struct{}

// Fail ends the task with an error from outside the machine (a task
// timeout, a driver fault).
type Fail struct {
	Reason string
	Err    string
}

func (Start) input()        {}
func (Planned) input()      {}
func (TextDelta) input()    {}
func (Observed) input()     {}
func (ModelDone) input()    {}
func (ModelFailed) input()  {}
func (TimerFired) input()   {}
func (ToolDone) input()     {}
func (ToolProgress) input() {}
func (StopChecked) input()  {}
func (VerifyDone) input()   {}
func (Compacted) input()    {}
func (Reported) input()     {}
func (Cancel) input()       {}
func (Fail) input()         {}

// Action is something the driver must do.
type Action interface{ action() }

// Emit hands an event to subscribers.
type Emit struct{ Event Event }

// Plan asks the driver to gather context for the task; answer Planned.
type Plan struct{ Task string }

// CallModel asks for one streamed model call; answer TextDelta* then
// ModelDone or ModelFailed.
type CallModel struct {
	Messages []Message
	Attempt  int // 1-based
	// NoTools: the call offers the model no tools (the last turn of a
	// task at its budget, which asks for a summary).
	NoTools bool
}

// RunTools asks for tool calls; answer one ToolDone per call. Read-only
// tools may run in parallel, the others one at a time in order.
type RunTools struct{ Calls []ToolCall }

// StartTimer asks for TimerFired{ID} after the duration.
type StartTimer struct {
	ID    int
	After time.Duration
}

// CheckStop asks whether the model, which answered without tools, may
// stop: the task's Stop hooks and stop condition run; answer StopChecked.
// Tries counts the checks before this one in the task.
type CheckStop struct {
	Answer string
	Tries  int
	// Again: the model is at work again because the last stop check sent
	// it back (the hooks' stop_hook_active).
	Again bool
}

// RunVerify asks for the verify gate; answer VerifyDone.
type RunVerify struct{ Changed []string }

// Compact asks for a summary of dropped turns; answer Compacted.
type Compact struct{ Dropped []Message }

// Report asks the driver to store what the task learned; answer Reported.
type Report struct{ Result Result }

// Finish is the last action of a task: the machine is Idle again.
type Finish struct{ Result Result }

func (Emit) action()       {}
func (Plan) action()       {}
func (CallModel) action()  {}
func (RunTools) action()   {}
func (StartTimer) action() {}
func (RunVerify) action()  {}
func (CheckStop) action()  {}
func (Compact) action()    {}
func (Report) action()     {}
func (Finish) action()     {}
