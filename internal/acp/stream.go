package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/llm"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/render"
)

// stream turns one prompt's agent events into session/update
// notifications.
type stream struct {
	a      *Agent
	s      *acpSession
	redact func(string) string

	mu       sync.Mutex
	commands map[string]string // run_command's command → its tool call, for permission requests
	verifyN  int
	verifyID string
	hasPlan  bool // the model sent a plan (update_plan)
	diffs    map[string][]diffRec
	// msgID is the agent message the text chunks belong to ("": the next
	// chunk starts one); a tool call ends a message.
	msgID string
	// The task's prices ($ per million tokens, 0: unknown), the session's
	// cost before this task, and the context window: for usage_update.
	priceIn, priceOut, costBefore float64
	window                        int
	// nested is the short trace of each running sub-agent call (explore),
	// by the call's ID: its steps, shown as the call's content.
	nested map[string][]string
}

// diffRec is one edit the workspace made, waiting for its tool call's
// result to carry it as diff content.
type diffRec struct {
	abs       string
	old, next string
	existed   bool
}

func (a *Agent) newStream(s *acpSession) *stream {
	s.mu.Lock()
	redact := s.cfg.Redact
	s.mu.Unlock()
	return &stream{a: a, s: s, redact: redact, commands: map[string]string{}, diffs: map[string][]diffRec{}}
}

// send delivers an update; it outlives a cancelled prompt, so the client
// sees the last tool calls end.
func (o *stream) send(u sdk.SessionUpdate) {
	err := o.a.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(o.s.id), Update: u})
	if err != nil {
		o.a.log.Debug("session/update not sent", zap.Error(err))
	}
}

func (o *stream) text(s string) {
	o.mu.Lock()
	if o.msgID == "" {
		o.msgID = newUUID()
	}
	id := o.msgID
	o.mu.Unlock()
	o.send(sdk.SessionUpdate{AgentMessageChunk: &sdk.SessionUpdateAgentMessageChunk{Content: sdk.TextBlock(o.redact(s)), MessageId: &id}})
}

// endMessage makes the next text chunk start a new agent message.
func (o *stream) endMessage() {
	o.mu.Lock()
	o.msgID = ""
	o.mu.Unlock()
}

// priced sets what usage_update needs for one task of session s.
func (o *stream) priced(cfg config.Config, s *acpSession) {
	in, out := llm.Price(cfg)
	s.mu.Lock()
	before := s.cost
	s.mu.Unlock()
	o.mu.Lock()
	o.priceIn, o.priceOut, o.costBefore, o.window = in, out, before, assemble.Limits(cfg).ContextTokens
	o.mu.Unlock()
}

// edited records an edit for the diff content of its tool call.
func (o *stream) edited(rel, abs, old, next string, existed bool) {
	o.mu.Lock()
	o.diffs[rel] = append(o.diffs[rel], diffRec{abs: abs, old: old, next: next, existed: existed})
	o.mu.Unlock()
}

func (o *stream) takeDiffs(rel string) []diffRec {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := o.diffs[rel]
	delete(o.diffs, rel)
	return d
}

// toolKind is ACP's category of an agentls tool.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "read_file":
		return sdk.ToolKindRead
	case "list_files", "grep", "explore":
		return sdk.ToolKindSearch
	case "edit_file", "write_file":
		return sdk.ToolKindEdit
	case "run_command":
		return sdk.ToolKindExecute
	}
	return sdk.ToolKindOther
}

// callArgs are the arguments of agentls's tools that name a place or a
// command.
type callArgs struct {
	Path    string `json:"path"`
	Command string `json:"command"`
}

func parseArgs(c *agent.ToolCall) (callArgs, any) {
	var a callArgs
	var raw any
	_ = json.Unmarshal([]byte(c.Arguments), &a)
	if json.Unmarshal([]byte(c.Arguments), &raw) != nil {
		raw = c.Arguments
	}
	return a, raw
}

func (o *stream) abs(rel string) string {
	return filepath.Join(o.s.root, filepath.FromSlash(rel))
}

func (o *stream) event(ev agent.Event) {
	switch ev.Kind {
	case agent.KindText:
		if ev.Text != "" {
			o.text(ev.Text)
		}
	case agent.KindToolCall:
		o.toolCall(ev.Call)
	case agent.KindToolResult:
		o.toolResult(ev)
	case agent.KindNested:
		o.nestedStep(ev)
	case agent.KindState:
		o.state(ev)
	case agent.KindVerify:
		o.verified(ev.Verify)
	case agent.KindUsage:
		if ev.Usage != nil {
			o.mu.Lock()
			u := sdk.SessionUsageUpdate{Used: ev.Usage.InputTokens + ev.Usage.OutputTokens, Size: o.window}
			if tu := ev.TaskUsage; tu != nil && (o.priceIn > 0 || o.priceOut > 0) {
				cost := o.costBefore + tu.Cost(o.priceIn, o.priceOut)
				u.Cost = &sdk.Cost{Amount: cost, Currency: "USD"}
			}
			o.mu.Unlock()
			o.send(sdk.SessionUpdate{UsageUpdate: &u})
		}
	case agent.KindRetry, agent.KindCompaction, agent.KindBudget, agent.KindNotice:
		o.send(sdk.UpdateAgentThoughtText(o.redact(ev.Text)))
	case agent.KindPlan:
		o.modelPlan(ev.Plan)
	}
}

func (o *stream) toolCall(c *agent.ToolCall) {
	if c == nil {
		return
	}
	args, raw := parseArgs(c)
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(toolKind(c.Name)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress), sdk.WithStartRawInput(raw)}
	if args.Path != "" {
		opts = append(opts, sdk.WithStartLocations([]sdk.ToolCallLocation{{Path: o.abs(args.Path)}}))
	}
	o.endMessage()
	if c.Name == "run_command" && args.Command != "" {
		o.mu.Lock()
		o.commands[args.Command] = c.ID
		o.mu.Unlock()
	}
	o.send(sdk.StartToolCall(sdk.ToolCallId(c.ID), o.redact(render.CallSummary(c)), opts...))
}

func (o *stream) toolResult(ev agent.Event) {
	if ev.Call == nil {
		return
	}
	args, _ := parseArgs(ev.Call)
	status := sdk.ToolCallStatusCompleted
	if ev.IsErr {
		status = sdk.ToolCallStatusFailed
	}
	var content []sdk.ToolCallContent
	if toolKind(ev.Call.Name) == sdk.ToolKindEdit && args.Path != "" {
		for _, d := range o.takeDiffs(args.Path) {
			if d.existed {
				content = append(content, sdk.ToolDiffContent(d.abs, d.next, d.old))
			} else {
				content = append(content, sdk.ToolDiffContent(d.abs, d.next))
			}
		}
	}
	if trace := o.takeTrace(ev.Call.ID); trace != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(o.redact(trace))))
	}
	if out := strings.TrimSpace(ev.Output); out != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(o.redact(render.Clip(out, 4000)))))
	}
	o.send(sdk.UpdateToolCall(sdk.ToolCallId(ev.Call.ID), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)))
}

// maxTrace bounds a sub-agent's trace in its call's content.
const maxTrace = 40

// nestedStep shows a sub-agent's step inside its call: ACP has no nested
// tool calls, so the call's content is its trace so far (an update
// replaces the content), one line a step, and its answer at the end.
func (o *stream) nestedStep(ev agent.Event) {
	line := render.NestedLine(ev)
	if ev.Call == nil || line == "" {
		return
	}
	o.mu.Lock()
	if o.nested == nil {
		o.nested = map[string][]string{}
	}
	id := ev.Call.ID
	if len(o.nested[id]) < maxTrace {
		o.nested[id] = append(o.nested[id], line)
	}
	trace := strings.Join(o.nested[id], "\n")
	o.mu.Unlock()
	o.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(o.redact(trace)))})))
}

func (o *stream) takeTrace(id string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := strings.Join(o.nested[id], "\n")
	delete(o.nested, id)
	return t
}

// modelPlan sends the model's plan (update_plan) as the session's plan;
// from then on it replaces the machine's own two-line plan.
func (o *stream) modelPlan(p *agent.WorkPlan) {
	if p == nil {
		return
	}
	o.mu.Lock()
	o.hasPlan = true
	o.mu.Unlock()
	entries := make([]sdk.PlanEntry, 0, len(p.Steps))
	for _, st := range p.Steps {
		status := sdk.PlanEntryStatusPending
		switch st.Status {
		case agent.StepInProgress:
			status = sdk.PlanEntryStatusInProgress
		case agent.StepCompleted:
			status = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: o.redact(st.Step), Priority: sdk.PlanEntryPriorityMedium, Status: status})
	}
	o.send(sdk.UpdatePlan(entries...))
}

// state shows the machine's progress as a plan: the task, then the checks,
// until the model sends a plan of its own.
func (o *stream) state(ev agent.Event) {
	o.mu.Lock()
	own := o.hasPlan
	o.mu.Unlock()
	if own {
		return
	}
	switch ev.To {
	case agent.Executing:
		o.plan(sdk.PlanEntryStatusInProgress, sdk.PlanEntryStatusPending)
	case agent.Verifying:
		o.plan(sdk.PlanEntryStatusCompleted, sdk.PlanEntryStatusInProgress)
	case agent.Reporting:
		o.plan(sdk.PlanEntryStatusCompleted, sdk.PlanEntryStatusCompleted)
	}
}

func (o *stream) plan(work, check sdk.PlanEntryStatus) {
	entries := []sdk.PlanEntry{{Content: "Carry out the task", Priority: sdk.PlanEntryPriorityHigh, Status: work}}
	if o.s.cfg.Verify.Enabled {
		entries = append(entries, sdk.PlanEntry{Content: "Run the project's checks on the changes", Priority: sdk.PlanEntryPriorityMedium, Status: check})
	}
	o.send(sdk.UpdatePlan(entries...))
}

// verifyStarted opens a tool call for a check (the gate's OnStart).
func (o *stream) verifyStarted(command string) {
	o.endMessage()
	o.mu.Lock()
	id, open := o.verifyID, o.verifyID != ""
	if !open {
		o.verifyN++
		id = fmt.Sprintf("verify-%d", o.verifyN)
		o.verifyID = id
	}
	o.mu.Unlock()
	if open { // the next check of the same run
		o.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateTitle("verify: "+command)))
		return
	}
	o.send(sdk.StartToolCall(sdk.ToolCallId(id), "verify: "+command, sdk.WithStartKind(sdk.ToolKindExecute),
		sdk.WithStartStatus(sdk.ToolCallStatusInProgress), sdk.WithStartRawInput(map[string]any{"command": command})))
}

// verified closes the verify tool call with the checks' outcome: the
// failures, as the model sees them, are its content.
func (o *stream) verified(rep *agent.VerifyReport) {
	if rep == nil {
		return
	}
	o.mu.Lock()
	id := o.verifyID
	o.verifyID = ""
	o.mu.Unlock()
	if id == "" {
		return
	}
	status := sdk.ToolCallStatusCompleted
	if !rep.Passed {
		status = sdk.ToolCallStatusFailed
	}
	o.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(status),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(o.redact(render.Checks(*rep))))})))
}

// callFor returns the tool call that runs command, for a permission
// request about it.
func (o *stream) callFor(command string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if id, ok := o.commands[command]; ok {
		return id
	}
	return "permission-" + fmt.Sprint(len(o.commands))
}
