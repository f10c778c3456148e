package agent

// compactAt and compactTo are fractions of the context window: past the
// first, history is compacted down to about the second.
const (
	compactAt = 0.85
	compactTo = 0.50
)

// Machine is the agent loop as a pure state machine: Step never blocks,
// reads no clock, starts no goroutine and does no I/O. The same inputs give
// the same actions.
type Machine struct {
	state  State
	limits Limits
	task   string
	images []Image
	rng    uint64

	prefix  int       // leading messages always kept: system prompt, context
	taskIdx int       // index of the task message, always kept
	history []Message // the whole conversation sent to the model
	cut     int       // compaction under way: history[prefix:cut] less the task goes
	dropped []Message // … and these are the messages it drops
	oldTask int       // taskIdx when the compaction started

	steps         int
	attempt       int // of the current model call
	timer         int // pending retry timer ID, 0 if none
	timerSeq      int
	verifyRetries int
	usage         Usage
	changed       []string
	callCounts    map[string]int

	pending     []ToolCall        // calls of this turn, in model order
	results     map[string]string // call ID → result content
	failed      map[string]bool
	failedEdits int                // calls of EditTools that failed, in the whole task
	opened      map[string][]Image // call ID → images its result opened (view_image)
	verified    bool
	result      Result
	partial     string
	ignored     int // inputs a state did not expect (Ignored)

	checking   bool   // a CheckStop is out: waiting for StopChecked
	stopChecks int    // CheckStops answered
	unmet      string // what the last stop check found not met
	sentBack   bool   // the last stop check sent the model back to work

	warned bool      // the model was told to wrap up
	ending string    // "maxSteps" or "budget": the last, tool-less turn is under way
	plan   *WorkPlan // the model's latest plan
}

// NewMachine returns an idle machine.
func NewMachine() *Machine { return &Machine{state: Idle} }

// State reports the current state.
func (m *Machine) State() State { return m.state }

// Ignored is how many inputs Step ignored: a state answers every input it
// expects with at least one action, so an input that yields none was not
// for it (a stray result, a late delta, a stale timer). Raft logs such
// messages; the driver logs these, so that a replay that diverges from its
// recording shows where it starts.
func (m *Machine) Ignored() int { return m.ignored }

// Step feeds one input and returns what the driver must do. An input the
// current state does not expect is ignored (no actions) and counted.
func (m *Machine) Step(in Input) []Action {
	ignored := m.ignored
	acts := m.step(in)
	m.ignored = ignored // a Start resets the machine, not the count
	if len(acts) == 0 {
		m.ignored++
	}
	return acts
}

func (m *Machine) step(in Input) []Action {
	switch in := in.(type) {
	case Start:
		if m.state != Idle {
			return nil
		}
		return m.start(in)
	case Cancel:
		if m.state == Idle {
			return nil
		}
		return m.finish(Result{Status: StatusCancelled, Cancelled: true, Reason: "cancelled", Error: "cancelled"})
	case Fail:
		if m.state == Idle {
			return nil
		}
		return m.finish(Result{Status: StatusError, Reason: in.Reason, Error: in.Err})
	}
	switch m.state {
	case Planning:
		return m.stepPlanning(in)
	case Executing:
		return m.stepExecuting(in)
	case Tools:
		return m.stepTools(in)
	case Verifying:
		return m.stepVerifying(in)
	case Reporting:
		return m.stepReporting(in)
	}
	return nil
}
