package agent

// The budget of a task: agent.maxSteps model turns with tools and,
// optionally, agent.maxCostUSD. At 80% the model is told to wrap up; at
// the limit it gets one more turn, without tools, for a summary; the
// checks then run on what changed, and the task ends with the limit as
// its reason.

import (
	"fmt"
)

// warnFraction of the budget spent tells the model to wrap up.
const warnFraction = 0.8

// cost is what the task's model calls cost so far, in USD.
func (m *Machine) cost() float64 {
	return m.usage.Cost(m.limits.PriceInput, m.limits.PriceOutput)
}

func (m *Machine) hasCostBudget() bool {
	return m.limits.MaxCostUSD > 0 && (m.limits.PriceInput > 0 || m.limits.PriceOutput > 0)
}

// spent is the reason the budget is used up ("maxSteps", "budget"), or "".
func (m *Machine) spent() string {
	if m.steps >= m.limits.MaxSteps {
		return "maxSteps"
	}
	if m.hasCostBudget() && m.cost() >= m.limits.MaxCostUSD {
		return "budget"
	}
	return ""
}

// warnNearBudget adds a note to the conversation, once, when 80% of the
// budget is spent: the model has a few turns to finish what matters.
func (m *Machine) warnNearBudget() []Action {
	if m.warned {
		return nil
	}
	var used string
	switch {
	case float64(m.steps) >= warnFraction*float64(m.limits.MaxSteps):
		used = fmt.Sprintf("%d of its %d model turns (agent.maxSteps)", m.steps, m.limits.MaxSteps)
	case m.hasCostBudget() && m.cost() >= warnFraction*m.limits.MaxCostUSD:
		used = fmt.Sprintf("$%.2f of its $%.2f budget (agent.maxCostUSD)", m.cost(), m.limits.MaxCostUSD)
	default:
		return nil
	}
	m.warned = true
	m.history = append(m.history, Message{Role: RoleUser, Content: "Note from agentls: this task has used " + used +
		". Wrap up now: finish the change you are making, leave the code building, and do not start new work. " +
		"When the budget is spent you get one last turn without tools, to summarise what you did and what is left."})
	return []Action{Emit{Event{Kind: KindBudget, Step: m.steps, Text: "the task has used " + used + "; the model was told to wrap up"}}}
}

// wrapUp starts the last turn: no tools, a request for a summary.
func (m *Machine) wrapUp(why string) []Action {
	m.ending = why
	limit := fmt.Sprintf("its %d model turns (agent.maxSteps)", m.limits.MaxSteps)
	if why == "budget" {
		limit = fmt.Sprintf("its $%.2f budget (agent.maxCostUSD)", m.limits.MaxCostUSD)
	}
	m.history = append(m.history, Message{Role: RoleUser, Content: "Note from agentls: this task has used " + limit +
		" and must stop. You can call no more tools. Reply with a short summary for the user: what you changed, " +
		"what state the code is in, and what is left to do."})
	acts := m.transition(Executing)
	acts = append(acts, Emit{Event{Kind: KindBudget, Step: m.steps, Text: "the task has used " + limit + "; asking the model for a summary"}})
	return append(acts, m.callModel()...)
}

// endResult is how a task that reached its budget ends, with the summary
// of its last turn.
func (m *Machine) endResult(summary string) Result {
	msg := fmt.Sprintf("stopped at the step limit: %d model turns (agent.maxSteps)", m.limits.MaxSteps)
	if m.ending == "budget" {
		msg = fmt.Sprintf("stopped at the cost budget: $%.2f of $%.2f (agent.maxCostUSD)", m.cost(), m.limits.MaxCostUSD)
	}
	if m.unmet != "" {
		msg += "; " + m.unmet
	}
	return Result{Status: StatusError, Reason: m.ending, Error: msg, Summary: summary}
}
