package agent

import "strings"

// Tools: the turn's calls run; their results go back to the model in call
// order, with loop guards against a model repeating itself.

func (m *Machine) stepTools(in Input) []Action {
	if p, ok := in.(ToolProgress); ok {
		return m.toolProgress(p)
	}
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
		if EditTools[call.Name] {
			m.failedEdits++
		}
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
	acts := []Action{Emit{Event{Kind: KindToolResult, Step: m.steps, Call: &c, Output: out, IsErr: m.failed[d.ID], Run: d.Result.Run}}}
	if u := d.Result.Usage; u != (Usage{}) {
		// A sub-agent's model calls are the task's: its totals and its
		// budget (checked when the turn's tools are done).
		m.usage = m.usage.Add(u)
		tu := m.usage
		acts = append(acts, Emit{Event{Kind: KindUsage, Step: m.steps, Usage: &u, TaskUsage: &tu}})
	}
	if d.Err == nil && len(d.Result.Images) > 0 {
		if m.opened == nil {
			m.opened = map[string][]Image{}
		}
		m.opened[d.ID] = d.Result.Images
	}
	if d.Err == nil && d.Result.Plan != nil {
		m.plan = d.Result.Plan.Clone()
		acts = append(acts, Emit{Event{Kind: KindPlan, Step: m.steps, Plan: m.plan.Clone()}})
	}
	if len(m.results) < len(m.pending) {
		return acts
	}
	return append(acts, m.toolsDone()...)
}

// toolProgress shows a step of a running call's nested task under it.
func (m *Machine) toolProgress(p ToolProgress) []Action {
	for i := range m.pending {
		if m.pending[i].ID != p.ID {
			continue
		}
		if _, done := m.results[p.ID]; done {
			return nil
		}
		c, ev := m.pending[i], p.Event
		return []Action{Emit{Event{Kind: KindNested, Step: m.steps, Call: &c, Nested: &ev}}}
	}
	return nil
}

// toolsDone appends the results in call order and starts the next turn.
func (m *Machine) toolsDone() []Action {
	var images []Image
	for _, c := range m.pending {
		m.history = append(m.history, Message{Role: RoleTool, ToolCallID: c.ID, Name: c.Name, Content: m.results[c.ID]})
		images = append(images, m.opened[c.ID]...)
	}
	if len(images) > 0 {
		// A tool message carries text only: the pictures follow as the
		// user's, named so the model knows which call opened them.
		names := make([]string, len(images))
		for i, im := range images {
			names[i] = im.Name
		}
		m.history = append(m.history, Message{Role: RoleUser, Content: "The image" + plural(len(images)) + " view_image opened: " + strings.Join(names, ", "), Images: images})
	}
	m.pending, m.results, m.failed, m.opened = nil, nil, nil, nil
	if why := m.spent(); why != "" {
		return m.wrapUp(why)
	}
	acts := m.transition(Executing)
	acts = append(acts, m.warnNearBudget()...)
	return append(acts, m.callModel()...)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
