package agent

// Verifying: the gate's checks run on what the agent changed; a failure
// goes back to the model up to Limits.MaxRetries times.

import (
	"fmt"
)

func (m *Machine) stepVerifying(in Input) []Action {
	d, ok := in.(VerifyDone)
	if !ok {
		return nil
	}
	rep := d.Report
	acts := []Action{Emit{Event{Kind: KindVerify, Step: m.steps, Verify: &rep}}}
	if m.ending != "" {
		// The budget is spent: the checks' outcome is reported, not
		// handed back to the model.
		summary := m.lastText()
		switch {
		case rep.Skipped:
		case rep.Passed:
			m.verified = true
		default:
			if summary != "" {
				summary += "\n\n"
			}
			summary += "Checks still failing: " + rep.Summary
		}
		return append(acts, m.report(m.endResult(summary))...)
	}
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
