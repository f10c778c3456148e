package agent

// Planning: a task starts, the driver gathers context (Plan → Planned),
// and the first model call goes out.

import (
	"fmt"
	"slices"
)

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
		images:     in.Images,
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
	m.history = append(m.history, Message{Role: RoleUser, Content: m.task, Images: m.images})
	// The prefix and the task are never compacted; earlier session turns are.
	m.prefix = len(p.Prefix)
	var acts []Action
	for _, n := range p.Notices {
		acts = append(acts, Emit{Event{Kind: KindNotice, Step: m.steps, Text: n}})
	}
	acts = append(acts, m.transition(Executing)...)
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
	return m.modelCall()
}

// modelCall persists the history as it stands and calls the model with it.
// The slices are clipped: a receiver that appends to one must not write
// into the machine's backing array, which the next turn appends to.
func (m *Machine) modelCall() []Action {
	return []Action{m.persist(), CallModel{Messages: slices.Clip(m.history), Attempt: m.attempt, NoTools: m.ending != ""}}
}

// persist is the Persist of the history as it stands.
func (m *Machine) persist() Persist {
	return Persist{Prefix: slices.Clip(m.history[:m.prefix]), Conversation: slices.Clip(m.history[m.prefix:])}
}
