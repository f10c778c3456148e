package subagent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/driver"
)

// scripted answers each request with the next response and keeps the
// requests.
type scripted struct {
	mu    sync.Mutex
	resps []agent.Response
	reqs  []agent.Request
}

func (s *scripted) Stream(_ context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	r := s.resps[0]
	s.resps = s.resps[1:]
	onText(r.Content)
	return r, nil
}

type echo struct{ name string }

func (e echo) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: e.name, Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (echo) ReadOnly() bool { return true }
func (e echo) Run(context.Context, json.RawMessage) (agent.ToolResult, error) {
	return agent.ToolResult{Output: e.name + " ran"}, nil
}

func withParent(t *testing.T, p driver.Parent) context.Context {
	t.Helper()
	return driver.WithParent(context.Background(), p)
}

// A helper's requests hold the parent's system prompt and tool schemas,
// then its question, with the task's prompt cache key; the tools it may not use refuse; its usage comes
// back with its answer.
func TestHelperSharesThePrefixAndRefusesWrites(t *testing.T) {
	llm := &scripted{resps: []agent.Response{
		{ToolCalls: []agent.ToolCall{{ID: "a", Name: "read_file", Arguments: "{}"}, {ID: "b", Name: "edit_file", Arguments: "{}"}}, Usage: agent.Usage{InputTokens: 10, OutputTokens: 1}},
		{Content: "found it at a.go:3", Usage: agent.Usage{InputTokens: 20, OutputTokens: 2}},
	}}
	var events []string
	p := driver.Parent{
		Prefix:   []agent.Message{{Role: agent.RoleSystem, Content: "SYSTEM"}, {Role: agent.RoleUser, Content: "Editor context: secret.go"}},
		Tools:    []agent.ToolSpec{echo{"read_file"}.Spec(), echo{"edit_file"}.Spec(), New(Config{}).Spec()},
		Limits:   agent.DefaultLimits(),
		CacheKey: "agentls-session-key",
		Progress: func(ev agent.Event) {
			events = append(events, ev.Kind)
		},
	}
	ctx := withParent(t, p)
	res, err := New(Config{LLM: llm, Tools: []agent.Tool{echo{"read_file"}}}).Run(ctx, json.RawMessage(`{"question":"where?"}`))
	if err != nil || !strings.Contains(res.Output, "found it at a.go:3") || res.Usage != (agent.Usage{InputTokens: 30, OutputTokens: 3}) {
		t.Fatalf("%+v %v", res, err)
	}
	first := llm.reqs[0]
	if len(first.Messages) != 2 || first.Messages[0].Content != "SYSTEM" || !strings.Contains(first.Messages[1].Content, "where?") {
		t.Errorf("first request %+v", first.Messages)
	}
	if first.CacheKey != "agentls-session-key" {
		t.Errorf("the helper's request has cache key %q, not the task's", first.CacheKey)
	}
	if len(first.Tools) != 3 || first.Tools[2].Name != Name {
		t.Errorf("tools %+v", first.Tools)
	}
	var results []string
	for _, m := range llm.reqs[1].Messages {
		if m.Role == agent.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != 2 || results[0] != "read_file ran" || !strings.Contains(results[1], "refused: edit_file is not available here") {
		t.Errorf("results %q", results)
	}
	if strings.Join(events, ",") != "toolCall,toolCall,toolResult,toolResult,end" {
		t.Errorf("progress %v", events)
	}
}

func TestHelperRefusals(t *testing.T) {
	nested := withParent(t, driver.Parent{Nested: 1, Limits: agent.DefaultLimits()})
	if _, err := New(Config{}).Run(nested, json.RawMessage(`{"question":"x"}`)); err == nil || !strings.Contains(err.Error(), "cannot start sub-agents") {
		t.Errorf("a helper's helper: %v", err)
	}
	l := agent.DefaultLimits()
	l.MaxCostUSD, l.PriceInput = 1, 1
	spent := withParent(t, driver.Parent{Limits: l, Spent: agent.Usage{InputTokens: 2_000_000}})
	if _, err := New(Config{}).Run(spent, json.RawMessage(`{"question":"x"}`)); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("a spent budget: %v", err)
	}
	if _, err := New(Config{}).Run(context.Background(), json.RawMessage(`{"question":" "}`)); err == nil {
		t.Errorf("an empty question ran")
	}
}
