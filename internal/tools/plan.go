package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentls/agentls/internal/agent"
)

// planSchema is update_plan's arguments, written out: the declaration
// structs of the other tools have no arrays of objects or enumerations.
// agent.ParsePlan holds the rules the schema cannot say (at most one step
// in progress).
const planSchema = `{"type":"object","properties":{` +
	`"plan":{"type":"array","description":"Every step of the plan, in order, each with its status. At most one step is in_progress.",` +
	`"items":{"type":"object","properties":{"step":{"type":"string","description":"What the step does, in a few words."},` +
	`"status":{"type":"string","enum":["pending","in_progress","completed"]}},"required":["step","status"],"additionalProperties":false}},` +
	`"explanation":{"type":"string","description":"Why the plan changed, in a sentence (optional)."}},` +
	`"required":["plan"],"additionalProperties":false}`

// PlanToolName is update_plan's name, for the views that read its calls
// back from a stored conversation.
const PlanToolName = "update_plan"

// UpdatePlan is the update_plan tool: the model keeps a short plan the
// user watches (every front end shows it). Each call replaces the plan
// whole; the machine keeps the latest and emits it as a plan event.
func UpdatePlan() agent.Tool {
	return &tool{
		name: PlanToolName,
		description: "Keep a short plan of the task that the user sees live. Send the whole plan each time, " +
			"with each step pending, in_progress or completed (at most one in_progress); " +
			"update it as you finish steps. Use it for tasks of several steps; it changes no file.",
		schema:   json.RawMessage(planSchema),
		readOnly: true,
		run: func(_ context.Context, raw json.RawMessage) (agent.ToolResult, error) {
			p, err := agent.ParsePlan(raw)
			if err != nil {
				return agent.ToolResult{}, err
			}
			cur := p.Current()
			out := fmt.Sprintf("plan updated: %d of %d steps completed", p.Done(), len(p.Steps))
			if cur != "" {
				out += "; next: " + cur
			}
			return agent.ToolResult{Output: out, Plan: &p}, nil
		},
	}
}
