package agent

// Reporting and the end of a task: the result is filled in, stored by the
// driver (Report → Reported), and the machine returns to Idle.

// stepReporting waits for the driver to have stored the outcome; then the
// conversation is persisted and the task ends.
func (m *Machine) stepReporting(in Input) []Action {
	if _, ok := in.(Reported); !ok {
		return nil
	}
	r := m.result
	acts := append(m.transition(Idle), m.persist())
	return append(acts, Emit{Event{Kind: KindEnd, Step: m.steps, Result: &r}}, Finish{r})
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
	planned := m.state != Planning
	acts := m.transition(Idle)
	if planned {
		// A task cancelled or failed while planning has no conversation.
		acts = append(acts, m.persist())
	}
	return append(acts, Emit{Event{Kind: KindEnd, Step: m.steps, Result: &r}}, Finish{r})
}

func (m *Machine) fill(r *Result) {
	r.Verified = m.verified
	r.FilesChanged = append([]string{}, m.changed...)
	r.Usage = m.usage
	r.Steps = m.steps
	r.FailedEdits = m.failedEdits
}

func (m *Machine) transition(to State) []Action {
	from := m.state
	m.state = to
	if from == to {
		return nil
	}
	return []Action{Emit{Event{Kind: KindState, Step: m.steps, From: from, To: to}}}
}
