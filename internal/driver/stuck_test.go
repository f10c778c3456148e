package driver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
)

// stuckTool ignores its context, as a tool blocked in open(2) on a FIFO
// does; release lets it return at the end of the test.
func stuckTool(release <-chan struct{}, started chan<- struct{}) fnTool {
	var once sync.Once
	return fnTool{name: "stuck", run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		once.Do(func() { close(started) })
		<-release
		return agent.ToolResult{Output: "late"}, nil
	}}
}

// Cancel ends the task although a tool never returns (issue 13, item 3):
// the driver stops waiting for it after the grace period and says so.
func TestDriverCancelEndsTaskWithStuckTool(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	defer close(release)
	var mu sync.Mutex
	var abandoned []string
	d := &Driver{LLM: &scriptLLM{turns: []turn{calls(`c1 stuck {"path":"fifo"}`)}}, Tools: []agent.Tool{stuckTool(release, started)},
		Limits: agent.DefaultLimits(), ToolGrace: 50 * time.Millisecond,
		OnAbandoned: func(c agent.ToolCall, msg string) {
			mu.Lock()
			abandoned = append(abandoned, c.ID+": "+msg)
			mu.Unlock()
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(ctx, d, Assignment{Prompt: "t", Seed: 1})
	wait(t, started, "the tool to start")
	cancel()
	res := wait(t, done, "Run after cancel with a stuck tool")
	if !res.Cancelled {
		t.Errorf("result %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(abandoned) != 1 || !strings.Contains(abandoned[0], "c1: stuck did not stop") || !strings.Contains(abandoned[0], "cancelled") {
		t.Errorf("abandoned %q", abandoned)
	}
}

// The task timeout ends it too.
func TestDriverTaskTimeoutEndsTaskWithStuckTool(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	defer close(release)
	d := &Driver{LLM: &scriptLLM{turns: []turn{calls(`c1 stuck {"path":"fifo"}`)}}, Tools: []agent.Tool{stuckTool(release, started)},
		Limits: agent.DefaultLimits(), ToolGrace: 50 * time.Millisecond, TaskTimeout: 100 * time.Millisecond}
	res := wait(t, runAsync(context.Background(), d, Assignment{Prompt: "t", Seed: 1}), "Run with a stuck tool and a task timeout")
	if res.Reason != "timeout" {
		t.Errorf("result %+v", res)
	}
}

// A tool timeout abandons the call and tells the model why; the task goes
// on.
func TestDriverToolTimeoutAbandonsStuckTool(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	defer close(release)
	llm := &scriptLLM{turns: []turn{calls(`c1 stuck {"path":"fifo"}`), say("gave up")}}
	d := &Driver{LLM: llm, Tools: []agent.Tool{stuckTool(release, started)},
		Limits: agent.DefaultLimits(), ToolGrace: 50 * time.Millisecond, ToolTimeout: 50 * time.Millisecond}
	res := wait(t, runAsync(context.Background(), d, Assignment{Prompt: "t", Seed: 1}), "Run with a stuck tool and a tool timeout")
	if res.Status != agent.StatusOK || res.Summary != "gave up" {
		t.Fatalf("result %+v", res)
	}
	got := toolMessages(llm.requests()[1])
	if len(got) != 1 || !strings.Contains(got[0], "stuck did not stop within 50ms after it timed out after 50ms and was abandoned") {
		t.Errorf("the model was told %q", got)
	}
}
