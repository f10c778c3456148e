// Package subagent is the explore tool: the model hands a question to a
// helper with a fresh context, which searches and reads the workspace and
// answers with what it found, so a long exploration does not stay in the
// task's context for the rest of the task.
//
// The helper is a nested task on the same machine and driver: its own
// conversation (the parent's stable prefix, then the question), its own
// step bound, the parent's model, sandbox, secret rules and budget (its
// usage comes back with its answer and counts toward the task's). It is
// offered the parent's tool schemas, byte for byte, so its requests share
// the parent's prefix and a provider's prompt cache serves them; but it
// runs only read-only tools (read_file, list_files, grep, run_command in
// the read-only sandbox), and every other call, explore included, is
// refused: it cannot write, ask the user or start sub-agents of its own.
// Its steps reach the parent's view as agent.KindNested events of the
// explore call.
//
// It imports the core (agent, driver) only; assemble gives it its tools.
package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/textcut"
)

// Name is the tool's name.
const Name = "explore"

// DefaultMaxSteps is a sub-agent's step bound when Config.MaxSteps is 0.
const DefaultMaxSteps = 20

// Config is what the explore tool runs with.
type Config struct {
	// LLM is the task's model backend (scrubbed as the task's is).
	LLM agent.LLM
	// Tools are what the sub-agent may run, by name; every other tool the
	// parent has is offered (for the cache) and refused.
	Tools []agent.Tool
	// MaxSteps bounds the sub-agent's model turns [DefaultMaxSteps].
	MaxSteps int
	// Root is the workspace root, for nested AGENTS.md files.
	Root string
	// ToolTimeout bounds each of the sub-agent's tool calls [the driver's].
	ToolTimeout time.Duration
	Log         *zap.Logger
}

type exploreArgs struct {
	Question string `json:"question"`
}

var schema = json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","description":"What to find out, with what you already know: the names, files or behaviour to look for, and what the answer should say."}},"required":["question"],"additionalProperties":false}`)

const description = "Hand a question about the code to a helper with a fresh context: it searches and reads the workspace (read_file, list_files, grep, read-only commands) and answers with what it found, citing file:line. " +
	"What it reads does not fill your context, only its answer does. Use it to find code in a large workspace (where something is defined, enforced or called); " +
	"call it several times in one turn to explore in parallel. It cannot change files, ask the user or start helpers of its own."

// New returns the explore tool.
func New(c Config) agent.Tool { return &explore{c: c} }

type explore struct{ c Config }

func (e *explore) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: Name, Description: description, Parameters: schema}
}

// ReadOnly: several explore calls of one turn run at once.
func (e *explore) ReadOnly() bool { return true }

// Timeout gives a sub-agent the time of its own steps, not one tool's.
func (e *explore) Timeout(_ json.RawMessage, def time.Duration) time.Duration {
	return max(def, 15*time.Minute)
}

// Run runs the sub-agent on the question and returns its answer, with the
// usage of its model calls.
func (e *explore) Run(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
	var a exploreArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return agent.ToolResult{}, fmt.Errorf("explore: the arguments must be {\"question\": \"…\"}: %v", err)
	}
	if strings.TrimSpace(a.Question) == "" {
		return agent.ToolResult{}, errors.New("explore: the question is empty")
	}
	p, ok := driver.ParentOf(ctx)
	if !ok {
		return agent.ToolResult{}, errors.New("explore runs only inside a task")
	}
	if p.Nested > 0 {
		return agent.ToolResult{}, errors.New("refused: a sub-agent cannot start sub-agents of its own; answer with what you found")
	}
	steps := e.c.MaxSteps
	if steps <= 0 {
		steps = DefaultMaxSteps
	}
	lim := p.Limits
	lim.MaxSteps = steps
	lim.Verify = false
	lim.MaxRetries = 0
	if lim.MaxCostUSD > 0 {
		spent := p.Spent.Cost(lim.PriceInput, lim.PriceOutput)
		if spent >= lim.MaxCostUSD {
			return agent.ToolResult{}, errors.New("refused: the task's cost budget (agent.maxCostUSD) is spent")
		}
		lim.MaxCostUSD -= spent
	}
	tr := &trace{}
	d := &driver.Driver{
		LLM:         e.c.LLM,
		Model:       p.Model,
		CacheKey:    p.CacheKey,
		Tools:       e.tools(p.Tools),
		Planner:     planner{prefix: stablePrefix(p.Prefix)},
		Limits:      lim,
		Root:        e.c.Root,
		ToolTimeout: e.c.ToolTimeout,
		Log:         e.c.Log,
		OnEvent: func(ev agent.Event) {
			tr.see(ev)
			if show(ev) && p.Progress != nil {
				p.Progress(short(ev))
			}
		},
	}
	d.Price.Input, d.Price.Output = lim.PriceInput, lim.PriceOutput
	res := d.Run(driver.WithNested(ctx), driver.Assignment{Prompt: Prompt(a.Question, steps)})
	out := agent.ToolResult{Usage: res.Usage}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	answer := strings.TrimSpace(res.Summary)
	switch {
	case res.Reason == "maxSteps" || res.Reason == "budget":
		out.Output = fmt.Sprintf("[the helper stopped at its limit (%s) before it was done; this is what it found so far]\n", res.Error)
	case res.Status != agent.StatusOK:
		out.Output = fmt.Sprintf("[the helper failed: %s; this is what it found so far]\n", res.Error)
	}
	if answer == "" {
		answer = "(the helper gave no answer)"
	}
	out.Output += answer
	if res.Status != agent.StatusOK || strings.TrimSpace(res.Summary) == "" {
		out.Output += tr.String()
	}
	return out, nil
}

// Prompt is the sub-agent's task: the question and how to answer it.
func Prompt(question string, steps int) string {
	return "You are a helper of agentls exploring this workspace for the main task, which does not see what you read: only your answer goes back to it. " +
		"Find out:\n\n" + question + "\n\n" +
		"Search and read with read_file, list_files, grep and run_command (read-only: commands cannot write files). " +
		"You cannot change files, ask the user or start helpers; such calls are refused. " +
		fmt.Sprintf("You have at most %d model turns. ", steps) +
		"When you know, stop calling tools and answer briefly: what you found, each fact with its file:line, and what you could not find. No preamble."
}

// stablePrefix is the part of the parent's prefix that is the same for
// every task of the workspace and day: its leading system messages (the
// profile, the project's instructions, the environment). The editor's
// context and mentions, and the parent's conversation, stay with it.
func stablePrefix(prefix []agent.Message) []agent.Message {
	n := 0
	for n < len(prefix) && prefix[n].Role == agent.RoleSystem {
		n++
	}
	if n == 0 {
		return []agent.Message{{Role: agent.RoleSystem, Content: driver.SystemPrompt}}
	}
	return append([]agent.Message(nil), prefix[:n]...)
}

type planner struct{ prefix []agent.Message }

func (p planner) Plan(context.Context, driver.Assignment) (agent.Planned, error) {
	return agent.Planned{Prefix: p.prefix}, nil
}

// tools are the parent's schemas in the parent's order: those of
// allowed tools run them, the others refuse.
func (e *explore) tools(specs []agent.ToolSpec) []agent.Tool {
	own := map[string]agent.Tool{}
	for _, t := range e.c.Tools {
		own[t.Spec().Name] = t
	}
	if len(specs) == 0 {
		return e.c.Tools
	}
	ts := make([]agent.Tool, 0, len(specs))
	for _, s := range specs {
		ts = append(ts, offered{spec: s, run: own[s.Name]})
	}
	return ts
}

// offered is one of the parent's tools as the sub-agent sees it: the
// same schema; run is nil for a tool it may not use.
type offered struct {
	spec agent.ToolSpec
	run  agent.Tool
}

func (o offered) Spec() agent.ToolSpec { return o.spec }
func (o offered) ReadOnly() bool       { return true } // what runs is read-only; refusals are instant

func (o offered) Run(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
	if o.run == nil {
		why := "a helper only reads: it cannot change files, ask the user or start helpers"
		if o.spec.Name == Name {
			why = "a helper cannot start helpers of its own"
		}
		return agent.ToolResult{}, fmt.Errorf("refused: %s is not available here (%s); answer with what you found", o.spec.Name, why)
	}
	return o.run.Run(ctx, args)
}

// Timeout keeps the run_command timeout the model asked for.
func (o offered) Timeout(args json.RawMessage, def time.Duration) time.Duration {
	if t, ok := o.run.(driver.Timeouter); ok {
		return t.Timeout(args, def)
	}
	return def
}

// show says which of the sub-agent's events its parent's view shows: its
// steps, not its text or its states.
func show(ev agent.Event) bool {
	switch ev.Kind {
	case agent.KindToolCall, agent.KindToolResult, agent.KindNotice, agent.KindBudget, agent.KindRetry, agent.KindEnd:
		return true
	}
	return false
}

// maxShown bounds a nested result's output in the parent's view: a short
// trace, not the sub-agent's reads.
const maxShown = 200

func short(ev agent.Event) agent.Event {
	if len(ev.Output) > maxShown {
		ev.Output = textcut.Head(ev.Output, maxShown) + "…"
	}
	return ev
}

// trace is what the sub-agent did, for an answer cut short.
type trace struct{ calls []string }

func (t *trace) see(ev agent.Event) {
	if ev.Kind == agent.KindToolCall && ev.Call != nil && len(t.calls) < 40 {
		t.calls = append(t.calls, ev.Call.Name+" "+textcut.Head(ev.Call.Arguments, 120))
	}
}

func (t *trace) String() string {
	if len(t.calls) == 0 {
		return ""
	}
	return "\n\n[the helper's calls: " + strings.Join(t.calls, "; ") + "]"
}
