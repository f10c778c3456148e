package driver

import (
	"context"
	"slices"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

// Parent is what a tool call learns of the task it runs in, for a tool
// that runs a nested task of its own (a sub-agent): the parent's stable
// prefix and tools, so the nested requests start with the same bytes and
// a provider's prompt cache serves them too; a way to show the nested
// task's steps under the call; and what the task has spent, so the
// nested task stays within the task's budget.
type Parent struct {
	// Call is the tool call itself.
	Call agent.ToolCall
	// Prefix is the planner's prefix: the system prompt and project
	// context, the same for every turn of the task.
	Prefix []agent.Message
	// Tools are the task's tool schemas, in the order they are offered.
	Tools []agent.ToolSpec
	// Model, CacheKey and Limits are the task's: a nested task's requests
	// carry the same prompt cache key.
	Model    string
	CacheKey string
	Limits   agent.Limits
	// Spent is the task's usage when the call started.
	Spent agent.Usage
	// Nested is the depth: 0 for a call of the task itself, 1 for a
	// call of a nested task.
	Nested int
	// Progress shows an event of the nested task under the call
	// (agent.KindNested); safe to call from any goroutine until the call
	// returns.
	Progress func(agent.Event)
}

type parentKey struct{}

// ParentOf returns the task a tool call runs in, if the driver said.
func ParentOf(ctx context.Context) (Parent, bool) {
	p, ok := ctx.Value(parentKey{}).(Parent)
	return p, ok
}

// WithParent is ctx for a tool call run in the task p describes, as the
// driver gives it (a tool run on its own, a test).
func WithParent(ctx context.Context, p Parent) context.Context {
	return context.WithValue(ctx, parentKey{}, p)
}

// WithNested marks ctx as the context of a nested task's run: tool calls
// of that run see Parent.Nested one deeper, so a sub-agent cannot start
// sub-agents of its own.
func WithNested(ctx context.Context) context.Context {
	p, _ := ParentOf(ctx)
	return context.WithValue(ctx, nestedKey{}, p.Nested+1)
}

type nestedKey struct{}

func nestedDepth(ctx context.Context) int {
	n, _ := ctx.Value(nestedKey{}).(int)
	return n
}

// spent is the task's usage as its events last said, for Parent.Spent:
// written on the driver's loop, read by tool goroutines.
type spent struct {
	mu sync.Mutex
	u  agent.Usage
}

func (s *spent) set(u agent.Usage) {
	s.mu.Lock()
	s.u = u
	s.mu.Unlock()
}

func (s *spent) get() agent.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.u
}

// parent is the Parent of call c in this run, whose conversation begins
// with prefix.
func (r *run) parent(c agent.ToolCall, prefix []agent.Message) Parent {
	return Parent{
		Call:     c,
		Prefix:   prefix,
		Tools:    slices.Clip(r.specs),
		Model:    r.d.Model,
		CacheKey: r.d.CacheKey,
		Limits:   r.limits,
		Spent:    r.spent.get(),
		Nested:   nestedDepth(r.ctx),
		Progress: func(ev agent.Event) {
			r.send(agent.ToolProgress{ID: c.ID, Event: ev})
		},
	}
}
