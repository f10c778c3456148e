package agent

// The model's plan: update_plan replaces it as a whole, the machine keeps
// the latest and emits it (KindPlan) for every front end to show.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/textcut"
)

// Plan step statuses.
const (
	StepPending    = "pending"
	StepInProgress = "in_progress"
	StepCompleted  = "completed"
)

// Limits of a plan the model sends: a plan is for a person to read.
const (
	MaxPlanSteps    = 50
	MaxPlanStepText = 300
	MaxPlanNote     = 1000
)

// PlanStep is one step of the model's plan.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// WorkPlan is the model's plan as update_plan last set it.
type WorkPlan struct {
	Steps       []PlanStep `json:"plan"`
	Explanation string     `json:"explanation,omitempty"`
}

// ParsePlan reads update_plan's arguments and checks them: every step has
// text and a known status, and at most one step is in progress. The error
// says what to fix, for the model.
func ParsePlan(raw []byte) (WorkPlan, error) {
	var p WorkPlan
	if err := json.Unmarshal(raw, &p); err != nil {
		return WorkPlan{}, fmt.Errorf("update_plan: want {\"plan\": [{\"step\": \"…\", \"status\": \"pending|in_progress|completed\"}], \"explanation\": \"…\"}: %v", err)
	}
	if len(p.Steps) == 0 {
		return WorkPlan{}, errors.New("update_plan: the plan is empty; send every step, each with its status")
	}
	if len(p.Steps) > MaxPlanSteps {
		return WorkPlan{}, fmt.Errorf("update_plan: %d steps; keep the plan to %d steps or fewer", len(p.Steps), MaxPlanSteps)
	}
	active := 0
	for i := range p.Steps {
		s := &p.Steps[i]
		s.Step = strings.TrimSpace(s.Step)
		if s.Step == "" {
			return WorkPlan{}, fmt.Errorf("update_plan: step %d has no text", i+1)
		}
		if !utf8.ValidString(s.Step) {
			return WorkPlan{}, fmt.Errorf("update_plan: step %d is not valid UTF-8", i+1)
		}
		if len(s.Step) > MaxPlanStepText {
			s.Step = textcut.Head(s.Step, MaxPlanStepText) + "…"
		}
		switch s.Status {
		case StepPending, StepCompleted:
		case StepInProgress:
			active++
		default:
			return WorkPlan{}, fmt.Errorf("update_plan: step %d has status %q; want pending, in_progress or completed", i+1, s.Status)
		}
	}
	if active > 1 {
		return WorkPlan{}, fmt.Errorf("update_plan: %d steps are in_progress; at most one step may be in progress at a time", active)
	}
	p.Explanation = strings.TrimSpace(p.Explanation)
	if len(p.Explanation) > MaxPlanNote {
		p.Explanation = textcut.Head(p.Explanation, MaxPlanNote) + "…"
	}
	return p, nil
}

// Clone returns a copy that shares nothing with p.
func (p WorkPlan) Clone() *WorkPlan {
	c := WorkPlan{Steps: append([]PlanStep(nil), p.Steps...), Explanation: p.Explanation}
	return &c
}

// Text renders the plan for a person, one step a line: [x] done, [>] in
// progress, [ ] pending.
func (p WorkPlan) Text() string {
	var b strings.Builder
	for i, s := range p.Steps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(StepMark(s.Status))
		b.WriteByte(' ')
		b.WriteString(s.Step)
	}
	return b.String()
}

// StepMark is how a step's status is drawn in text.
func StepMark(status string) string {
	switch status {
	case StepCompleted:
		return "[x]"
	case StepInProgress:
		return "[>]"
	}
	return "[ ]"
}

// Current is the step in progress, else the first pending one, else "".
func (p WorkPlan) Current() string {
	for _, s := range p.Steps {
		if s.Status == StepInProgress {
			return s.Step
		}
	}
	for _, s := range p.Steps {
		if s.Status == StepPending {
			return s.Step
		}
	}
	return ""
}

// Done counts the completed steps.
func (p WorkPlan) Done() int {
	n := 0
	for _, s := range p.Steps {
		if s.Status == StepCompleted {
			n++
		}
	}
	return n
}
