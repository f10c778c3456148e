package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// benchLLM answers at once: a read of a new file each turn until turns
// calls were made, then a final answer. Compaction requests get a short
// summary. It records the largest request it saw.
type benchLLM struct {
	turns int

	mu        sync.Mutex
	n         int // model turns in this run
	maxBytes  int
	summaries int
}

func (l *benchLLM) reset() {
	l.mu.Lock()
	l.n = 0
	l.mu.Unlock()
}

func (l *benchLLM) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	size := 0
	for _, m := range req.Messages {
		size += len(m.Content) + len(m.ToolCallID) + len(m.Name) + len(m.Role)
		for _, c := range m.ToolCalls {
			size += len(c.ID) + len(c.Name) + len(c.Arguments)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.maxBytes = max(l.maxBytes, size)
	if req.Messages[0].Content == CompactionPrompt {
		l.summaries++
		return agent.Response{Content: "Read files 0 to n: nothing of note."}, nil
	}
	l.n++
	if l.n > l.turns {
		onText("done")
		return agent.Response{Content: "done", Usage: agent.Usage{InputTokens: size / 4, OutputTokens: 1}}, nil
	}
	return agent.Response{
		ToolCalls: []agent.ToolCall{{ID: fmt.Sprintf("c%d", l.n), Name: "read", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, l.n)}},
		Usage:     agent.Usage{InputTokens: size / 4, OutputTokens: 10},
	}, nil
}

func benchTool(out string) agent.Tool {
	return fnTool{name: "read", ro: true, run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		return agent.ToolResult{Output: out}, nil
	}}
}

// BenchmarkTurnOverhead measures what the agent itself costs per turn
// (machine, driver goroutines, events) against a model and a tool that
// answer at once. Budget: well under 1 ms a turn.
func BenchmarkTurnOverhead(b *testing.B) {
	const turns = 50
	llm := &benchLLM{turns: turns}
	l := agent.DefaultLimits()
	l.MaxSteps = turns + 1
	events := 0
	d := &Driver{LLM: llm, Tools: []agent.Tool{benchTool("1: package a\n2: func A() {}\n")}, Limits: l,
		OnEvent: func(agent.Event) { events++ }}
	runs := 0
	for b.Loop() {
		llm.reset()
		res := d.Run(context.Background(), Assignment{Prompt: "read everything", Seed: 1})
		if res.Status != agent.StatusOK || res.Steps != turns+1 {
			b.Fatalf("result %+v", res)
		}
		runs++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(runs*(turns+1)), "ns/turn")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCompaction runs 200 turns of 8 KB tool results in a 16k-token
// window, so the history is compacted again and again; it reports the
// largest request sent (bytes) and the time per turn.
func BenchmarkCompaction(b *testing.B) {
	const turns = 200
	llm := &benchLLM{turns: turns}
	l := agent.DefaultLimits()
	l.MaxSteps = turns + 1
	l.ContextTokens = 16_000
	d := &Driver{LLM: llm, Tools: []agent.Tool{benchTool(strings.Repeat("0123456789abcdef\n", 8<<10/17))}, Limits: l}
	runs := 0
	for b.Loop() {
		llm.reset()
		res := d.Run(context.Background(), Assignment{Prompt: "read everything", Seed: 1})
		if res.Status != agent.StatusOK || res.Steps != turns+1 {
			b.Fatalf("result %+v", res)
		}
		runs++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(runs*(turns+1)), "ns/turn")
	b.ReportMetric(float64(llm.maxBytes), "max-request-bytes")
	b.ReportMetric(float64(llm.summaries)/float64(runs), "compactions/op")
	b.ReportMetric(0, "ns/op")
}
