package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
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
}

// DefaultLimits are the documented defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxSteps:      25,
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
	Limits Limits
	Seed   uint64 // jitter source; the same seed replays the same waits
}

// Planned carries the context gathered in Planning: the system prompt and
// project context (kept for the whole task), and earlier turns of the
// session (compactable).
type Planned struct {
	Prefix  []Message
	History []Message
}

// TextDelta is streamed model text.
type TextDelta struct{ Text string }

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

func (Start) input()       {}
func (Planned) input()     {}
func (TextDelta) input()   {}
func (ModelDone) input()   {}
func (ModelFailed) input() {}
func (TimerFired) input()  {}
func (ToolDone) input()    {}
func (VerifyDone) input()  {}
func (Compacted) input()   {}
func (Reported) input()    {}
func (Cancel) input()      {}
func (Fail) input()        {}

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
}

// RunTools asks for tool calls; answer one ToolDone per call. Read-only
// tools may run in parallel, the others one at a time in order.
type RunTools struct{ Calls []ToolCall }

// StartTimer asks for TimerFired{ID} after the duration.
type StartTimer struct {
	ID    int
	After time.Duration
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
func (Compact) action()    {}
func (Report) action()     {}
func (Finish) action()     {}

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

	pending  []ToolCall        // calls of this turn, in model order
	results  map[string]string // call ID → result content
	failed   map[string]bool
	verified bool
	result   Result
	partial  string
}

// NewMachine returns an idle machine.
func NewMachine() *Machine { return &Machine{state: Idle} }

// State reports the current state.
func (m *Machine) State() State { return m.state }

// History returns the conversation so far (shared; do not modify).
func (m *Machine) History() []Message { return m.history }

// Step feeds one input and returns what the driver must do. An input the
// current state does not expect is ignored (no actions).
func (m *Machine) Step(in Input) []Action {
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
		if _, ok := in.(Reported); ok {
			r := m.result
			return append(m.transition(Idle), Emit{Event{Kind: KindEnd, Step: m.steps, Result: &r}}, Finish{r})
		}
	}
	return nil
}

func (m *Machine) start(in Start) []Action {
	l := in.Limits
	d := DefaultLimits()
	if l.MaxSteps <= 0 {
		l.MaxSteps = d.MaxSteps
	}
	if l.MaxRetries < 0 {
		l.MaxRetries = 0
	}
	if l.LLMAttempts <= 0 {
		l.LLMAttempts = d.LLMAttempts
	}
	if l.BackoffBase <= 0 {
		l.BackoffBase = d.BackoffBase
	}
	if l.BackoffCap <= 0 {
		l.BackoffCap = d.BackoffCap
	}
	if l.MaxRetryWait <= 0 {
		l.MaxRetryWait = d.MaxRetryWait
	}
	if l.ContextTokens <= 0 {
		l.ContextTokens = d.ContextTokens
	}
	if l.MaxToolOutput <= 0 {
		l.MaxToolOutput = d.MaxToolOutput
	}
	// A tool result never takes more than 30% of the window.
	if c := l.ContextTokens * 4 * 3 / 10; l.MaxToolOutput > c {
		l.MaxToolOutput = c
	}
	*m = Machine{
		state:      Idle,
		limits:     l,
		task:       in.Task,
		rng:        in.Seed | 1,
		callCounts: map[string]int{},
		timerSeq:   m.timerSeq,
	}
	return append(m.transition(Planning), Plan{Task: in.Task})
}

func (m *Machine) stepPlanning(in Input) []Action {
	p, ok := in.(Planned)
	if !ok {
		return nil
	}
	m.history = append(m.history, p.Prefix...)
	m.history = append(m.history, p.History...)
	m.taskIdx = len(m.history)
	m.history = append(m.history, Message{Role: RoleUser, Content: m.task})
	// The prefix and the task are never compacted; earlier session turns are.
	m.prefix = len(p.Prefix)
	acts := m.transition(Executing)
	return append(acts, m.callModel()...)
}

// callModel starts a fresh model call, compacting first when the history
// has grown past the window's threshold.
func (m *Machine) callModel() []Action {
	m.attempt = 1
	m.partial = ""
	if m.tokens() > int(float64(m.limits.ContextTokens)*compactAt) {
		if dropped := m.dropOldest(); len(dropped) > 0 {
			return []Action{Compact{Dropped: dropped}}
		}
		if m.tokens() > m.limits.ContextTokens {
			return m.finish(Result{Status: StatusError, Reason: "context",
				Error: fmt.Sprintf("the conversation needs about %d tokens and nothing more can be dropped (llm.contextTokens is %d)", m.tokens(), m.limits.ContextTokens)})
		}
	}
	return []Action{m.modelCall()}
}

// modelCall is the CallModel for the history as it stands. The slice is
// clipped: a receiver that appends to it must not write into the machine's
// backing array, which the next turn appends to.
func (m *Machine) modelCall() CallModel {
	return CallModel{Messages: slices.Clip(m.history), Attempt: m.attempt}
}

func (m *Machine) stepExecuting(in Input) []Action {
	if c, ok := in.(Compacted); ok {
		return m.compacted(c)
	}
	if m.cut != 0 {
		return nil // waiting for Compacted; no model call is in flight
	}
	switch in := in.(type) {
	case TextDelta:
		if m.timer != 0 {
			return nil
		}
		m.partial += in.Text
		return []Action{Emit{Event{Kind: KindText, Step: m.steps + 1, Text: in.Text}}}
	case TimerFired:
		// ID 0 is never a timer: without the first test a stray
		// TimerFired{} would start a second model call.
		if m.timer == 0 || in.ID != m.timer {
			return nil
		}
		m.timer = 0
		m.partial = ""
		return []Action{m.modelCall()}
	case ModelFailed:
		if m.timer != 0 {
			return nil
		}
		return m.modelFailed(in)
	case ModelDone:
		if m.timer != 0 {
			return nil
		}
		return m.modelDone(in.Response)
	}
	return nil
}

func (m *Machine) modelFailed(in ModelFailed) []Action {
	msg := "model call failed"
	if in.Err != nil {
		msg = in.Err.Error()
	}
	retryable, partial := false, in.Partial.Content != "" || len(in.Partial.ToolCalls) > 0 || m.partial != ""
	var after time.Duration
	// Backends wrap their errors with context; the classification survives.
	var e *LLMError
	if errors.As(in.Err, &e) {
		retryable = e.Retryable
		partial = partial || e.Partial
		after = e.RetryAfter
	}
	if retryable && !partial && m.attempt < m.limits.LLMAttempts {
		wait := m.backoff(m.attempt)
		if after > 0 {
			wait = after
		}
		if wait > m.limits.MaxRetryWait {
			return m.finish(Result{Status: StatusError, Reason: "llm",
				Error: fmt.Sprintf("%s; the server asks to wait %s, longer than %s", msg, wait.Round(time.Second), m.limits.MaxRetryWait)})
		}
		m.attempt++
		m.timerSeq++
		m.timer = m.timerSeq
		return []Action{
			Emit{Event{Kind: KindRetry, Step: m.steps + 1, Text: fmt.Sprintf("%s; retry %d of %d in %s", msg, m.attempt-1, m.limits.LLMAttempts-1, wait.Round(time.Millisecond))}},
			StartTimer{ID: m.timer, After: wait},
		}
	}
	// A stream that broke after text arrived ends the turn; the partial text
	// stays in the conversation so a continued session sees it.
	text := in.Partial.Content
	if text == "" {
		text = m.partial
	}
	if text != "" {
		m.history = append(m.history, Message{Role: RoleAssistant, Content: text})
	}
	m.usage = m.usage.Add(in.Partial.Usage)
	if retryable && !partial {
		msg = fmt.Sprintf("%s (gave up after %d attempts)", msg, m.attempt)
	}
	return m.finish(Result{Status: StatusError, Reason: "llm", Error: msg})
}

// backoff is exponential with jitter in [d/2, d], from the task's seed.
func (m *Machine) backoff(attempt int) time.Duration {
	d := m.limits.BackoffBase << (attempt - 1)
	if d > m.limits.BackoffCap || d <= 0 {
		d = m.limits.BackoffCap
	}
	m.rng ^= m.rng << 13
	m.rng ^= m.rng >> 7
	m.rng ^= m.rng << 17
	half := d / 2
	return half + time.Duration(m.rng%uint64(half+1))
}

func (m *Machine) modelDone(r Response) []Action {
	m.steps++
	m.usage = m.usage.Add(r.Usage)
	u, tu := r.Usage, m.usage
	acts := []Action{Emit{Event{Kind: KindUsage, Step: m.steps, Usage: &u, TaskUsage: &tu}}}
	// The calls are copied: IDs are filled in below, and the response
	// belongs to the caller (a replayed or scripted one is used again).
	calls := slices.Clone(r.ToolCalls)
	m.history = append(m.history, Message{Role: RoleAssistant, Content: r.Content, ToolCalls: calls})
	if len(calls) == 0 {
		if len(m.changed) > 0 && m.limits.Verify {
			acts = append(acts, m.transition(Verifying)...)
			return append(acts, RunVerify{Changed: append([]string(nil), m.changed...)})
		}
		return append(acts, m.report(Result{Status: StatusOK, Reason: "done", Summary: r.Content})...)
	}
	m.pending = calls
	m.results = map[string]string{}
	m.failed = map[string]bool{}
	var run []ToolCall
	stuck := ""
	ids := map[string]bool{}
	for i := range calls {
		c := &calls[i]
		// Results are matched by ID, so a missing or repeated one (some
		// local servers send either) would leave the turn waiting forever.
		if c.ID == "" || ids[c.ID] {
			c.ID = fmt.Sprintf("call_%d_%d", m.steps, i)
		}
		ids[c.ID] = true
		call := *c
		acts = append(acts, Emit{Event{Kind: KindToolCall, Step: m.steps, Call: &call}})
		key := call.Name + "\x00" + canonicalJSON(call.Arguments)
		m.callCounts[key]++
		switch n := m.callCounts[key]; {
		case n == 3:
			m.results[call.ID] = "refused: this exact call (same tool, same arguments) was already made twice in this task and its result will not change. Use what you learned, or try something different."
			m.failed[call.ID] = true
			// Subscribers pair every toolCall with a toolResult.
			acts = append(acts, Emit{Event{Kind: KindToolResult, Step: m.steps, Call: &call, Output: m.results[call.ID], IsErr: true}})
		case n > 3:
			stuck = call.Name
		default:
			run = append(run, call)
		}
	}
	if stuck != "" {
		return append(acts, m.report(Result{Status: StatusError, Reason: "stuck",
			Error: fmt.Sprintf("the model repeated the same %s call four times; stopped as stuck", stuck)})...)
	}
	acts = append(acts, m.transition(Tools)...)
	if len(run) == 0 {
		return append(acts, m.toolsDone()...)
	}
	return append(acts, RunTools{Calls: run})
}

func (m *Machine) stepTools(in Input) []Action {
	d, ok := in.(ToolDone)
	if !ok {
		return nil
	}
	var call *ToolCall
	for i := range m.pending {
		if m.pending[i].ID == d.ID {
			call = &m.pending[i]
		}
	}
	if call == nil {
		return nil
	}
	if _, dup := m.results[d.ID]; dup {
		return nil
	}
	out := d.Result.Output
	if d.Err != nil {
		out = "error: " + d.Err.Error()
		m.failed[d.ID] = true
	}
	if out == "" {
		out = "(no output)"
	}
	out = CapOutput(out, m.limits.MaxToolOutput)
	m.results[d.ID] = out
	for _, p := range d.Result.Changed {
		if !contains(m.changed, p) {
			m.changed = append(m.changed, p)
		}
	}
	c := *call
	acts := []Action{Emit{Event{Kind: KindToolResult, Step: m.steps, Call: &c, Output: out, IsErr: m.failed[d.ID]}}}
	if len(m.results) < len(m.pending) {
		return acts
	}
	return append(acts, m.toolsDone()...)
}

// toolsDone appends the results in call order and starts the next turn.
func (m *Machine) toolsDone() []Action {
	for _, c := range m.pending {
		m.history = append(m.history, Message{Role: RoleTool, ToolCallID: c.ID, Name: c.Name, Content: m.results[c.ID]})
	}
	m.pending, m.results, m.failed = nil, nil, nil
	if m.steps >= m.limits.MaxSteps {
		return m.report(Result{Status: StatusError, Reason: "maxSteps",
			Error: fmt.Sprintf("stopped after %d model turns (agent.maxSteps)", m.steps)})
	}
	acts := m.transition(Executing)
	return append(acts, m.callModel()...)
}

func (m *Machine) stepVerifying(in Input) []Action {
	d, ok := in.(VerifyDone)
	if !ok {
		return nil
	}
	rep := d.Report
	acts := []Action{Emit{Event{Kind: KindVerify, Step: m.steps, Verify: &rep}}}
	if rep.Skipped {
		return append(acts, m.report(Result{Status: StatusOK, Reason: "done", Summary: m.lastText()})...)
	}
	if rep.Passed {
		m.verified = true
		return append(acts, m.report(Result{Status: StatusOK, Reason: "done", Summary: m.lastText()})...)
	}
	if m.verifyRetries < m.limits.MaxRetries && m.steps < m.limits.MaxSteps {
		m.verifyRetries++
		m.history = append(m.history, Message{Role: RoleUser, Content: fmt.Sprintf(
			"The project's checks failed after your changes (attempt %d of %d). Fix the problems below, then stop.\n\n%s",
			m.verifyRetries, m.limits.MaxRetries, rep.Feedback)})
		acts = append(acts, m.transition(Executing)...)
		return append(acts, m.callModel()...)
	}
	summary := m.lastText()
	if summary != "" {
		summary += "\n\n"
	}
	summary += "Checks still failing: " + rep.Summary
	return append(acts, m.report(Result{Status: StatusOK, Reason: "verifyFailed", Summary: summary})...)
}

func (m *Machine) lastText() string {
	for i := len(m.history) - 1; i >= 0; i-- {
		if h := m.history[i]; h.Role == RoleAssistant && h.Content != "" {
			return h.Content
		}
	}
	return ""
}

// report moves to Reporting; the driver stores the outcome and answers
// Reported.
func (m *Machine) report(r Result) []Action {
	m.fill(&r)
	m.result = r
	return append(m.transition(Reporting), Report{Result: r})
}

// finish ends the task at once (cancel, fatal error).
func (m *Machine) finish(r Result) []Action {
	m.fill(&r)
	m.result = r
	m.pending, m.timer = nil, 0
	acts := m.transition(Idle)
	return append(acts, Emit{Event{Kind: KindEnd, Step: m.steps, Result: &r}}, Finish{r})
}

func (m *Machine) fill(r *Result) {
	r.Verified = m.verified
	r.FilesChanged = append([]string{}, m.changed...)
	r.Usage = m.usage
	r.Steps = m.steps
}

func (m *Machine) transition(to State) []Action {
	from := m.state
	m.state = to
	if from == to {
		return nil
	}
	return []Action{Emit{Event{Kind: KindState, Step: m.steps, From: from, To: to}}}
}

// tokens estimates the request size: about four bytes a token, plus a
// little per message, plus the tool schemas.
func (m *Machine) tokens() int {
	n := m.limits.ToolsTokens
	for i := range m.history {
		n += MessageTokens(&m.history[i])
	}
	return n
}

// MessageTokens estimates one message's tokens (bytes/4 plus framing).
func MessageTokens(msg *Message) int {
	b := len(msg.Content) + len(msg.Name) + len(msg.ToolCallID)
	for _, c := range msg.ToolCalls {
		b += len(c.Name) + len(c.Arguments) + len(c.ID) + 8
	}
	return b/4 + 4
}

// dropOldest picks the oldest turns to drop, down to compactTo of the
// window, cutting only before an assistant or user message so a tool call
// is never separated from its result. The prefix, the task and the newest
// turn of this task are always kept; earlier session turns, before the
// task, may all go. It returns the dropped messages; Compacted applies the
// cut.
func (m *Machine) dropOldest() []Message {
	lastTurn := len(m.history)
	for i := len(m.history) - 1; i > m.taskIdx; i-- {
		if r := m.history[i].Role; r == RoleAssistant || r == RoleUser {
			lastTurn = i
			break
		}
	}
	target := int(float64(m.limits.ContextTokens) * compactTo)
	total := m.tokens()
	cut := m.prefix
	for i := m.prefix; i < lastTurn; i++ {
		if i != m.taskIdx {
			total -= MessageTokens(&m.history[i])
		}
		if next := i + 1; next < lastTurn && m.history[next].Role != RoleTool || next == lastTurn {
			cut = next
			if total <= target {
				break
			}
		}
	}
	var dropped []Message
	for i := m.prefix; i < cut; i++ {
		if i != m.taskIdx {
			dropped = append(dropped, m.history[i])
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	m.cut = cut
	m.dropped = dropped
	m.oldTask = m.taskIdx
	return dropped
}

// compacted replaces the dropped turns by one summary message placed before
// the task, and makes the call that was waiting.
func (m *Machine) compacted(in Compacted) []Action {
	if m.cut == 0 {
		return nil
	}
	summary, how := in.Summary, "summary"
	if in.Err != nil || strings.TrimSpace(summary) == "" {
		summary, how = Digest(m.dropped), "digest"
	}
	m.usage = m.usage.Add(in.Usage)
	before := m.tokens()
	h := append([]Message(nil), m.history[:m.prefix]...)
	h = append(h, Message{Role: RoleUser, Content: summaryHeader + summary})
	if m.cut <= m.oldTask {
		m.taskIdx = len(h) + m.oldTask - m.cut
		h = append(h, m.history[m.cut:]...)
	} else {
		m.taskIdx = len(h)
		h = append(h, m.history[m.oldTask])
		h = append(h, m.history[m.cut:]...)
	}
	m.history = h
	n := len(m.dropped)
	m.cut, m.dropped = 0, nil
	acts := []Action{Emit{Event{Kind: KindCompaction, Step: m.steps,
		Text: fmt.Sprintf("dropped %d messages (about %d → %d tokens), replaced by a %s", n, before, m.tokens(), how)}}}
	if m.tokens() > m.limits.ContextTokens {
		return append(acts, m.finish(Result{Status: StatusError, Reason: "context",
			Error: fmt.Sprintf("the conversation needs about %d tokens after compaction (llm.contextTokens is %d)", m.tokens(), m.limits.ContextTokens)})...)
	}
	return append(acts, m.modelCall())
}

// summaryHeader starts the message that replaces compacted turns.
const summaryHeader = "[Summary of earlier turns, dropped to fit the context window]\n"

const digestHeader = "Earlier in this task (older turns were dropped to fit the context window):\n"

// Digest is a deterministic account of dropped turns, used when the
// summary call fails.
func Digest(dropped []Message) string {
	var b strings.Builder
	b.WriteString(digestHeader)
	results := map[string]string{}
	for _, d := range dropped {
		if d.Role == RoleTool {
			results[d.ToolCallID] = d.Content
		}
	}
	for _, d := range dropped {
		switch d.Role {
		case RoleAssistant:
			if t := firstLine(d.Content, 160); t != "" {
				fmt.Fprintf(&b, "- you said: %s\n", t)
			}
			for _, c := range d.ToolCalls {
				res := results[c.ID]
				status := "ok"
				if strings.HasPrefix(res, "error:") || strings.HasPrefix(res, "refused:") {
					status = firstLine(res, 120)
				}
				fmt.Fprintf(&b, "- %s %s → %s\n", c.Name, firstLine(canonicalJSON(c.Arguments), 160), status)
			}
		case RoleUser:
			// An earlier summary is dropped again: keep what it says, not
			// just its header line.
			if body, ok := strings.CutPrefix(d.Content, summaryHeader); ok {
				body = strings.TrimPrefix(body, digestHeader)
				b.WriteString(strings.TrimRight(body, "\n") + "\n")
				continue
			}
			fmt.Fprintf(&b, "- user: %s\n", firstLine(d.Content, 160))
		}
	}
	return b.String()
}

func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// CapOutput keeps the head and tail of s within limit bytes, with a marker
// saying how much was cut.
func CapOutput(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	// The marker counts the bytes it replaces, and its own length depends
	// on that count: settle it in a few rounds.
	keep, marker := 0, ""
	for range 3 {
		marker = fmt.Sprintf("\n[... %d bytes cut ...]\n", len(s)-keep)
		keep = max(limit-len(marker), 0)
	}
	// Cut on rune boundaries so the model never gets half a character.
	// This only cuts more, so the marker can grow by a digit at most while
	// the text shrinks by at least a byte.
	head := keep * 6 / 10
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (keep - keep*6/10)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + fmt.Sprintf("\n[... %d bytes cut ...]\n", tail-head) + s[tail:]
}

// canonicalJSON renders arguments with sorted keys and no spaces, so that
// the same call spelled differently counts as the same call.
func canonicalJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return strings.TrimSpace(s)
	}
	var b bytes.Buffer
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeCanonical(b, v[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	default:
		e, _ := json.Marshal(v)
		b.Write(e)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
