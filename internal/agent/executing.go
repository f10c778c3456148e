package agent

// Executing: a model call streams; it ends in tool calls, a final answer
// (on to Verifying or Reporting), or a failure that is retried with backoff
// or ends the task.

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

func (m *Machine) stepExecuting(in Input) []Action {
	if c, ok := in.(Compacted); ok {
		return m.compacted(c)
	}
	if m.checking {
		if c, ok := in.(StopChecked); ok {
			return m.stopChecked(c)
		}
		return nil // the model has answered; only the stop check is out
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
	case Observed:
		switch in.Event.Kind {
		case KindToolCall, KindToolResult, KindPlan, KindThought, KindNotice, KindCommands, KindOptions:
		default:
			return nil
		}
		if m.timer != 0 {
			return nil
		}
		ev := in.Event
		ev.Step = m.steps + 1
		return []Action{Emit{ev}}
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

// answered ends a turn without tool calls: the checks when files
// changed, else the report.
func (m *Machine) answered(summary string) []Action {
	if len(m.changed) > 0 && m.limits.Verify {
		acts := m.transition(Verifying)
		return append(acts, RunVerify{Changed: append([]string(nil), m.changed...)})
	}
	return m.report(Result{Status: StatusOK, Reason: "done", Summary: summary})
}

// stopChecked goes on from a stop check: to the end as answered, or back
// to work with the check's feedback while the budget lasts.
func (m *Machine) stopChecked(c StopChecked) []Action {
	m.checking = false
	m.stopChecks++
	m.sentBack = c.Continue
	var acts []Action
	if c.Note != "" {
		acts = append(acts, Emit{Event{Kind: KindNotice, Step: m.steps, Text: c.Note}})
	}
	if !c.Continue {
		m.unmet = ""
		return append(acts, m.answered(m.lastText())...)
	}
	m.unmet = c.Unmet
	m.history = append(m.history, Message{Role: RoleUser, Content: c.Feedback})
	if why := m.spent(); why != "" {
		return append(acts, m.wrapUp(why)...)
	}
	acts = append(acts, m.warnNearBudget()...)
	return append(acts, m.callModel()...)
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
	for _, p := range r.Changed {
		if !contains(m.changed, p) {
			m.changed = append(m.changed, p)
		}
	}
	u, tu := r.Usage, m.usage
	acts := []Action{Emit{Event{Kind: KindUsage, Step: m.steps, Usage: &u, TaskUsage: &tu}}}
	if m.ending != "" {
		// The last turn had no tools to call; a call it makes anyway is
		// dropped, so the conversation stays well formed.
		m.history = append(m.history, Message{Role: RoleAssistant, Content: r.Content})
		if len(m.changed) > 0 && m.limits.Verify {
			acts = append(acts, m.transition(Verifying)...)
			return append(acts, RunVerify{Changed: append([]string(nil), m.changed...)})
		}
		return append(acts, m.report(m.endResult(r.Content))...)
	}
	// The calls are copied: IDs are filled in below, and the response
	// belongs to the caller (a replayed or scripted one is used again).
	calls := slices.Clone(r.ToolCalls)
	m.history = append(m.history, Message{Role: RoleAssistant, Content: r.Content, ToolCalls: calls, Reasoning: r.Reasoning})
	if len(calls) == 0 {
		if m.limits.StopCheck {
			m.checking = true
			return append(acts, CheckStop{Answer: r.Content, Tries: m.stopChecks, Again: m.sentBack})
		}
		return append(acts, m.answered(r.Content)...)
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
