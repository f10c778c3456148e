package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/llmfaults"
)

func oaiToolDelta(index *int, id, name, args string) *chunk {
	td := toolDelta{Index: index, ID: id}
	td.Function.Name, td.Function.Arguments = name, args
	return &chunk{Choices: []chunkChoice{{Delta: chunkDelta{ToolCalls: []toolDelta{td}}}}}
}

// oaiServe starts a fake model server for the test and returns a backend
// pointed at it.
func oaiServe(t testing.TB, cfg OpenAIConfig, turns ...fakellm.Turn) (*OpenAI, *fakellm.Server) {
	t.Helper()
	srv, url := llmfaults.Serve(t, turns...)
	cfg.BaseURL = url
	if cfg.Model == "" {
		cfg.Model = "fake-model"
	}
	return NewOpenAI(cfg), srv
}

var oaiHello = agent.Request{Messages: []agent.Message{
	{Role: agent.RoleSystem, Content: "You are a test."},
	{Role: agent.RoleUser, Content: "hello"},
}}

func TestOpenAIStreamsTextInOrder(t *testing.T) {
	const text = "Hello, wörld! Streaming in small pieces."
	llm, srv := oaiServe(t, OpenAIConfig{},
		fakellm.Turn{Text: text, ChunkSize: 3, Usage: &fakellm.Usage{PromptTokens: 10, CompletionTokens: 5}})
	var deltas []string
	resp, err := llm.Stream(context.Background(), oaiHello, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) < 10 || strings.Join(deltas, "") != text {
		t.Errorf("deltas %q do not rebuild the text", deltas)
	}
	if resp.Content != text || resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
		t.Errorf("response %+v", resp)
	}
	if resp.Usage != (agent.Usage{InputTokens: 10, OutputTokens: 5}) {
		t.Errorf("usage %+v, want the server's", resp.Usage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := reqs[0].Body
	if !body.Stream || body.StreamOptions == nil || !body.StreamOptions.IncludeUsage || body.Model != "fake-model" ||
		len(body.Messages) != 2 || body.Messages[1].Content != "hello" || reqs[0].Authorization != "" {
		t.Errorf("server received %+v (auth %q)", body, reqs[0].Authorization)
	}
}

func TestOpenAIReusesTheConnection(t *testing.T) {
	llmfaults.ReusesTheConnection(t, chatBackend)
}

func TestOpenAIUsageEstimatedWhenServerSendsNone(t *testing.T) {
	llmfaults.EstimatesUsage(t, chatBackend)
}

func TestOpenAIToolCalls(t *testing.T) {
	read := fakellm.ToolCall{ID: "call_r", Name: "read_file", Arguments: `{"path":"a.txt","offset":10,"limit":20}`}
	grep := fakellm.ToolCall{ID: "call_g", Name: "grep", Arguments: `{"pattern":"func main","glob":"*.go"}`}
	want := []agent.ToolCall{
		{ID: "call_r", Name: "read_file", Arguments: read.Arguments},
		{ID: "call_g", Name: "grep", Arguments: grep.Arguments},
	}
	tests := []struct {
		name       string
		turn       fakellm.Turn
		want       []agent.ToolCall
		wantText   string
		wantFinish string
	}{
		{"one call in fragments", fakellm.Turn{ToolCalls: []fakellm.ToolCall{read}, ChunkSize: 2}, want[:1], "", "tool_calls"},
		{"two parallel calls", fakellm.Turn{ToolCalls: []fakellm.ToolCall{read, grep}, ChunkSize: 5}, want, "", "tool_calls"},
		{"text then calls", fakellm.Turn{Text: "Let me look.", ToolCalls: []fakellm.ToolCall{read, grep}}, want, "Let me look.", "tool_calls"},
		{"ollama: all on index 0", fakellm.Turn{ToolCalls: []fakellm.ToolCall{read, grep}, ChunkSize: 4, Quirk: fakellm.QuirkOllama}, want, "", "tool_calls"},
		{"no index", fakellm.Turn{ToolCalls: []fakellm.ToolCall{read, grep}, ChunkSize: 4, Quirk: fakellm.QuirkNoIndex}, want, "", "tool_calls"},
		{"stop with tools", fakellm.Turn{ToolCalls: []fakellm.ToolCall{read, grep}, Quirk: fakellm.QuirkStopWithTools}, want, "", "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			llm, _ := oaiServe(t, OpenAIConfig{}, tt.turn)
			resp, err := llm.Stream(context.Background(), oaiHello, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(resp.ToolCalls) != fmt.Sprint(tt.want) || resp.Content != tt.wantText || resp.FinishReason != tt.wantFinish {
				t.Errorf("got calls %q text %q finish %q\nwant calls %q text %q finish %q",
					resp.ToolCalls, resp.Content, resp.FinishReason, tt.want, tt.wantText, tt.wantFinish)
			}
		})
	}
}

// Deltas no fake server sends but real ones do, fed to the accumulator
// directly.
func TestStreamAccumulatorOddDeltas(t *testing.T) {
	idx := func(i int) *int { return &i }
	type delta struct {
		index     *int
		id, name  string
		arguments string
	}
	tests := []struct {
		name   string
		deltas []delta
		want   []agent.ToolCall
	}{
		{"name and id repeated in every fragment", []delta{
			{idx(0), "a", "read_file", `{"pa`}, {idx(0), "a", "read_file", `th":"x"}`},
		}, []agent.ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}}},
		{"whole calls without id or index", []delta{
			{nil, "", "list_files", `{}`},
		}, []agent.ToolCall{{ID: "call_0", Name: "list_files", Arguments: `{}`}}},
		{"indexes out of order", []delta{
			{idx(1), "b", "grep", ``}, {idx(0), "a", "read_file", `{}`}, {idx(1), "", "", `{"pattern":"x"}`},
		}, []agent.ToolCall{{ID: "b", Name: "grep", Arguments: `{"pattern":"x"}`}, {ID: "a", Name: "read_file", Arguments: `{}`}}},
		{"ollama: new id on index 0, whole arguments", []delta{
			{idx(0), "a", "read_file", `{"path":"x"}`}, {idx(0), "b", "read_file", `{"path":"y"}`},
		}, []agent.ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}, {ID: "b", Name: "read_file", Arguments: `{"path":"y"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newStreamAccumulator()
			for _, d := range tt.deltas {
				tc := oaiToolDelta(d.index, d.id, d.name, d.arguments)
				acc.add(tc, nil)
			}
			if got := acc.response(agent.Request{}).ToolCalls; fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOpenAIKeepAliveComments(t *testing.T) {
	llm, _ := oaiServe(t, OpenAIConfig{}, fakellm.Turn{Text: "still here", KeepAlive: 400})
	resp, err := llm.Stream(context.Background(), oaiHello, nil)
	if err != nil || resp.Content != "still here" {
		t.Fatalf("400 keep-alive comments: %q, %v", resp.Content, err)
	}
}

// chatBackend is the chat backend as llmfaults builds backends.
func chatBackend(url string, c llmfaults.Config) agent.LLM {
	return NewOpenAI(OpenAIConfig{BaseURL: url, APIKey: c.APIKey, Model: c.Model, IdleTimeout: c.IdleTimeout})
}

func TestOpenAIErrors(t *testing.T) {
	three := 3
	llmfaults.Run(t, chatBackend, append(llmfaults.Common(),
		// A clean end without finish_reason, which only chat streams have.
		llmfaults.Case{Name: "clean end before any text", Turn: &fakellm.Turn{Text: "abc", EndAfter: oaiPtr(1)},
			Retryable: true, WantMsg: "ended without a finish reason"},
		llmfaults.Case{Name: "clean end after text", Turn: &fakellm.Turn{Text: "I will start by reading the file.", ChunkSize: 4, EndAfter: &three},
			Partial: true, WantMsg: "ended without a finish reason: the answer is incomplete (after part", WantText: "I will s"},
	))
}

func oaiPtr[T any](v T) *T { return &v }

func TestOpenAITransportFailures(t *testing.T) {
	t.Run("wrong endpoint", func(t *testing.T) {
		srv := fakellm.New(&fakellm.Script{Turns: []fakellm.Turn{{Text: "x"}}})
		url, err := srv.Start()
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		root := strings.TrimSuffix(url, "/v1")
		_, err = NewOpenAI(OpenAIConfig{BaseURL: root, Model: "m"}).Stream(context.Background(), oaiHello, nil)
		var le *agent.LLMError
		if !errors.As(err, &le) || le.Status != 404 || le.Retryable || !strings.Contains(le.Message, "not found at "+root) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("nobody listening", func(t *testing.T) {
		srv := fakellm.New(nil)
		url, err := srv.Start()
		if err != nil {
			t.Fatal(err)
		}
		_ = srv.Close() // the port is now closed
		_, err = NewOpenAI(OpenAIConfig{BaseURL: url, Model: "m"}).Stream(context.Background(), oaiHello, nil)
		var le *agent.LLMError
		if !errors.As(err, &le) || le.Status != 0 || le.Retryable || !strings.Contains(le.Message, "connection refused") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("no model", func(t *testing.T) {
		_, err := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:9/v1"}).Stream(context.Background(), oaiHello, nil)
		var le *agent.LLMError
		if !errors.As(err, &le) || le.Retryable || !strings.Contains(le.Message, "no model configured") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestOpenAIKeyNeverInErrors(t *testing.T) {
	llmfaults.KeyNeverLeaks(t, chatBackend, llmfaults.KeyCases())
	cfg := OpenAIConfig{APIKey: llmfaults.TheKey}
	if s := fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg); strings.Contains(s, "TOPSECRET") {
		t.Errorf("config prints the key: %s", s)
	}
}

func TestOpenAISendsAuthAndWellFormedHistory(t *testing.T) {
	llm, srv := oaiServe(t, OpenAIConfig{APIKey: "sk-abc", Model: "gpt-5-mini", MaxTokens: 1000}, fakellm.Turn{Text: "done"})
	req := agent.Request{
		Messages: []agent.Message{
			{Role: agent.RoleUser, Content: "list then check"},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "list_files", Arguments: ""}, {ID: "c2", Name: "run_command", Arguments: `{"command":"true"}`}}},
			{Role: agent.RoleTool, ToolCallID: "c1", Name: "list_files", Content: "a.go"},
			{Role: agent.RoleTool, ToolCallID: "c2", Name: "run_command", Content: ""},
		},
		Tools: []agent.ToolSpec{{Name: "list_files", Description: "list"}, {Name: "grep", Parameters: []byte(`{"type":"object","properties":{"pattern":{"type":"string"}}}`)}},
	}
	// The fake answers 400 like OpenAI to a tool message without content or
	// a call without arguments, so success is the first check.
	if _, err := llm.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	body := got.Body
	if got.Authorization != "Bearer [redacted]" {
		t.Errorf("authorization %q", got.Authorization)
	}
	if body.Messages[3].Content != "(no output)" || body.Messages[1].ToolCalls[0].Arguments != "{}" {
		t.Errorf("placeholders missing: %+v", body.Messages)
	}
	if body.MaxCompletionTokens != 1000 || body.MaxTokens != 0 {
		t.Errorf("gpt-5 model: max_tokens %d max_completion_tokens %d", body.MaxTokens, body.MaxCompletionTokens)
	}
	if len(body.Tools) != 2 || string(body.Tools[0].Parameters) != `{"type":"object","properties":{}}` || body.Tools[1].Name != "grep" {
		t.Errorf("tools %+v", body.Tools)
	}

	llm, srv = oaiServe(t, OpenAIConfig{Model: "llama3.2", MaxTokens: 1000}, fakellm.Turn{Text: "done"})
	if _, err := llm.Stream(context.Background(), oaiHello, nil); err != nil {
		t.Fatal(err)
	}
	if b := srv.Requests()[0].Body; b.MaxTokens != 1000 || b.MaxCompletionTokens != 0 {
		t.Errorf("llama model: max_tokens %d max_completion_tokens %d", b.MaxTokens, b.MaxCompletionTokens)
	}
}

func TestOpenAICancelMidStream(t *testing.T) {
	llmfaults.CancelMidStream(t, chatBackend)
}

func TestOpenAIConcurrentStreams(t *testing.T) {
	var turns []fakellm.Turn
	for range 6 {
		turns = append(turns, fakellm.Turn{Text: "same answer", ChunkSize: 2})
	}
	llm, srv := oaiServe(t, OpenAIConfig{}, turns...)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			resp, err := llm.Stream(context.Background(), oaiHello, nil)
			if err != nil || resp.Content != "same answer" {
				t.Errorf("%q, %v", resp.Content, err)
			}
		})
	}
	wg.Wait()
	if srv.Pending() != 0 {
		t.Errorf("%d turns left", srv.Pending())
	}
}

// BenchmarkOpenAITurn measures the backend's cost per model turn over
// loopback with a zero-latency fake: request encoding, SSE parsing and delta
// accumulation (and the fake server's own work, which shares the CPU).
func BenchmarkOpenAITurn(b *testing.B) {
	const turnsPerServer = 50
	turn := fakellm.Turn{
		Text:      strings.Repeat("Some explanation of the change. ", 8),
		ChunkSize: 8,
		ToolCalls: []fakellm.ToolCall{{Name: "edit_file", Arguments: `{"path":"main.go","old_string":"foo()","new_string":"bar()"}`}},
	}
	turns := make([]fakellm.Turn, turnsPerServer)
	for i := range turns {
		turns[i] = turn
	}
	b.ReportAllocs()
	var total time.Duration
	var n int
	for b.Loop() {
		b.StopTimer()
		llm, srv := oaiServe(b, OpenAIConfig{}, turns...)
		b.StartTimer()
		began := time.Now()
		for range turnsPerServer {
			if _, err := llm.Stream(context.Background(), oaiHello, nil); err != nil {
				b.Fatal(err)
			}
		}
		total += time.Since(began)
		n += turnsPerServer
		b.StopTimer()
		_ = srv.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(n), "ns/turn")
}
