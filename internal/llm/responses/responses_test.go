package responses_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/llm/responses"
	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/llmfaults"
)

func TestStreamsTextUsageAndRequest(t *testing.T) {
	const text = "Hello, wörld! Streaming in small pieces."
	srv, url := serve(t, fakellm.Turn{Text: text, ChunkSize: 3,
		Usage: &fakellm.Usage{PromptTokens: 10, CompletionTokens: 50, ReasoningTokens: 42}})
	llm := responses.New(responses.Config{BaseURL: url, APIKey: "sk-abc", Model: "gpt-6-sol", ReasoningEffort: "high", MaxTokens: 900})
	var deltas []string
	resp, err := llm.Stream(context.Background(), hello, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) < 10 || strings.Join(deltas, "") != text {
		t.Errorf("deltas %q do not rebuild the text", deltas)
	}
	if resp.Content != text || resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
		t.Errorf("response %+v", resp)
	}
	if want := (agent.Usage{InputTokens: 10, OutputTokens: 50, ReasoningTokens: 42}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r, x := reqs[0], reqs[0].Responses
	if r.API != "responses" || x == nil || x.Store == nil || *x.Store || x.ReasoningEffort != "high" || x.PreviousResponseID != "" ||
		x.MaxOutputTokens != 900 || x.Instructions != "You are a test." || r.Authorization != "Bearer [redacted]" || r.Body.Model != "gpt-6-sol" {
		t.Errorf("server received %+v %+v", r, x)
	}
}

func TestUsageEstimatedWhenServerSendsNone(t *testing.T) {
	llmfaults.EstimatesUsage(t, responsesBackend)
}

func TestToolCalls(t *testing.T) {
	read := fakellm.ToolCall{ID: "call_r", Name: "read_file", Arguments: `{"path":"a.txt","offset":10,"limit":20}`}
	grep := fakellm.ToolCall{ID: "call_g", Name: "grep", Arguments: `{"pattern":"func main","glob":"*.go"}`}
	list := fakellm.ToolCall{ID: "call_l", Name: "list_files", Arguments: ``}
	tests := []struct {
		name     string
		turn     fakellm.Turn
		wantText string
		want     []agent.ToolCall
	}{
		{"one call in 2-byte deltas", fakellm.Turn{ToolCalls: []fakellm.ToolCall{read}, ChunkSize: 2}, "",
			[]agent.ToolCall{{ID: "call_r", Name: "read_file", Arguments: read.Arguments}}},
		{"three calls after text", fakellm.Turn{Text: "Let me look.", ToolCalls: []fakellm.ToolCall{read, grep, list}, ChunkSize: 3}, "Let me look.",
			[]agent.ToolCall{{ID: "call_r", Name: "read_file", Arguments: read.Arguments}, {ID: "call_g", Name: "grep", Arguments: grep.Arguments},
				{ID: "call_l", Name: "list_files"}}},
	}
	tools := []agent.ToolSpec{{Name: "read_file", Description: "read", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "grep"}, {Name: "list_files"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := serve(t, tt.turn)
			req := hello
			req.Tools = tools
			// The fake answers 400, as OpenAI does, to a function tool that
			// is strict (the default) with a schema that is not.
			resp, err := responses.New(responses.Config{BaseURL: url, Model: "m"}).Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(resp.ToolCalls) != fmt.Sprint(tt.want) || resp.Content != tt.wantText || resp.FinishReason != "tool_calls" {
				t.Errorf("got calls %q text %q finish %q\nwant calls %q text %q", resp.ToolCalls, resp.Content, resp.FinishReason, tt.want, tt.wantText)
			}
			if got := srv.Requests()[0].Body.Tools; len(got) != 3 || got[1].Name != "grep" || string(got[1].Parameters) != `{"type":"object","properties":{}}` {
				t.Errorf("tools sent %+v", got)
			}
		})
	}
}

func TestHistoryBecomesInputItems(t *testing.T) {
	srv, url := serve(t, fakellm.Turn{Text: "done"})
	req := agent.Request{
		Messages: []agent.Message{
			{Role: agent.RoleSystem, Content: "rules"},
			{Role: agent.RoleUser, Content: "list then check"},
			{Role: agent.RoleAssistant, Content: "Looking.", ToolCalls: []agent.ToolCall{{ID: "c1", Name: "list_files"}, {ID: "c2", Name: "run_command", Arguments: `{"command":"true"}`}}},
			{Role: agent.RoleTool, ToolCallID: "c1", Name: "list_files", Content: "a.go"},
			{Role: agent.RoleTool, ToolCallID: "c2", Name: "run_command", Content: ""},
			{Role: agent.RoleSystem, Content: "summary of earlier steps"},
			{Role: agent.RoleUser, Content: "go on"},
		},
	}
	// The fake checks, as OpenAI does, that every output answers a call.
	if _, err := responses.New(responses.Config{BaseURL: url, Model: "m"}).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	var lines []string
	for _, m := range got.Body.Messages {
		lines = append(lines, fmt.Sprintf("%s %q %v %s", m.Role, m.Content, m.ToolCalls, m.ToolCallID))
	}
	want := []string{
		`system "rules" [] `, // instructions
		`user "list then check" [] `,
		`assistant "Looking." [{c1 list_files {}} {c2 run_command {"command":"true"}}] `,
		`tool "a.go" [] c1`,
		`tool "(no output)" [] c2`,
		`developer "summary of earlier steps" [] `,
		`user "go on" [] `,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") || got.Responses.Instructions != "rules" {
		t.Errorf("server saw\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestStreamEndsWithoutCompletion(t *testing.T) {
	tests := []struct {
		name      string
		turn      fakellm.Turn
		retryable bool
		partial   bool
		wantText  string
	}{
		{"after the preamble", fakellm.Turn{Text: "never", EndAfter: ptr(1)}, true, false, ""},
		{"after text", fakellm.Turn{Text: "half an answer", ChunkSize: 5, EndAfter: ptr(2)}, false, true, "half "},
		{"after the whole text", fakellm.Turn{Text: "all", EndAfter: ptr(2)}, false, true, "all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, url := serve(t, tt.turn)
			resp, err := responses.New(responses.Config{BaseURL: url, Model: "m"}).Stream(context.Background(), hello, nil)
			var le *agent.LLMError
			if !errors.As(err, &le) || le.Retryable != tt.retryable || le.Partial != tt.partial || !strings.Contains(le.Message, "ended before response.completed") {
				t.Fatalf("err = %#v", err)
			}
			if resp.Content != tt.wantText {
				t.Errorf("content %q, want %q", resp.Content, tt.wantText)
			}
		})
	}
}

func TestFailureEvents(t *testing.T) {
	tests := []struct {
		name      string
		turn      fakellm.Turn
		retryable bool
		partial   bool
		wantMsg   string
	}{
		{"response.failed after text", fakellm.Turn{Text: "some", StreamError: &fakellm.ErrorReply{Message: "The model crashed"}},
			false, true, "server error from http://127.0.0.1:"},
		{"error event before any output", fakellm.Turn{StreamError: &fakellm.ErrorReply{Type: "error", Code: "server_error", Message: "try again"}},
			true, false, "try again (server_error)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, url := serve(t, tt.turn)
			_, err := responses.New(responses.Config{BaseURL: url, Model: "m"}).Stream(context.Background(), hello, nil)
			var le *agent.LLMError
			if !errors.As(err, &le) || le.Retryable != tt.retryable || le.Partial != tt.partial || !strings.Contains(le.Message, tt.wantMsg) {
				t.Fatalf("err = %#v", err)
			}
			t.Log(le)
		})
	}
}

func TestReusesTheConnection(t *testing.T) {
	llmfaults.ReusesTheConnection(t, responsesBackend)
}

func TestSelect(t *testing.T) {
	const official = "https://api.openai.com/v1"
	tests := []struct{ api, url, model, want string }{
		{"auto", official, "gpt-6-sol", "responses"},
		{"auto", official, "GPT-6.1-sol", "responses"},
		{"auto", official, "gpt-5-codex", "responses"},
		{"auto", official, "o3-pro", "responses"},
		{"auto", official, "o4-mini-deep-research", "responses"},
		{"auto", official, "gpt-4.1-mini", "chat"},
		{"auto", official, "o3", "responses"},
		{"auto", official, "o4-mini", "responses"},
		{"auto", official, "o1", "responses"},
		{"auto", official, "gpt-5", "responses"},
		{"auto", official, "gpt-5.1-mini", "responses"},
		{"auto", official, "codex-mini-latest", "responses"},
		{"auto", official, "gpt-4o", "chat"},
		{"auto", official, "omni-moderation-latest", "chat"},
		{"auto", "http://localhost:11434/v1", "gpt-5", "chat"},
		{"", "", "gpt-6-luna", "responses"},
		{"auto", "http://localhost:11434/v1", "gpt-6-sol", "chat"},
		{"auto", "https://openrouter.ai/api/v1", "openai/gpt-6-sol", "chat"},
		{"auto", "https://api.openai.com.evil.example/v1", "gpt-6-sol", "chat"},
		{"auto", "::bad", "gpt-6-sol", "chat"},
		{"chat", official, "gpt-6-sol", "chat"},
		{"responses", "http://127.0.0.1:8000/v1", "llama3", "responses"},
	}
	for _, tt := range tests {
		if got := responses.Select(tt.api, tt.url, tt.model); got != tt.want {
			t.Errorf("Select(%q, %q, %q) = %q, want %q", tt.api, tt.url, tt.model, got, tt.want)
		}
	}
}

// BenchmarkTurn measures each backend's cost per model turn over loopback
// with a zero-latency fake (whose own work shares the CPU): one text of
// 256 bytes in 8-byte deltas and one tool call.
func BenchmarkTurn(b *testing.B) {
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
	for _, api := range apis {
		b.Run(api.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				b.StopTimer()
				srv := fakellm.New(&fakellm.Script{Turns: turns})
				url, err := srv.Start()
				if err != nil {
					b.Fatal(err)
				}
				llm := api.make(url, llmfaults.Config{Model: "m"})
				b.StartTimer()
				for range turnsPerServer {
					if _, err := llm.Stream(context.Background(), hello, nil); err != nil {
						b.Fatal(err)
					}
				}
				n += turnsPerServer
				b.StopTimer()
				_ = srv.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/turn")
		})
	}
}

// A user message with images is input_text then input_image parts; the
// server sees the text and each image's data: URL.
func TestImagesBecomeInputImages(t *testing.T) {
	srv, url := serve(t, fakellm.Turn{Text: "a cat"})
	req := agent.Request{Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "rules"},
		{Role: agent.RoleUser, Content: "what is this?", Images: []agent.Image{
			{MIME: "image/png", Data: "iVBORw0KGgo="}, {MIME: "image/webp", Data: "UklGRg=="},
		}},
	}}
	if _, err := responses.New(responses.Config{BaseURL: url, Model: "m"}).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	m := srv.Requests()[0].Body.Messages[1]
	if m.Role != "user" || m.Content != "what is this?" ||
		strings.Join(m.Images, " ") != "data:image/png;base64,iVBORw0KGgo= data:image/webp;base64,UklGRg==" {
		t.Errorf("server saw %+v", m)
	}
}

// A freeform tool with a grammar goes out as a custom tool whose format is
// that Lark grammar (sampling held to the patch language, as Codex sends
// apply_patch), and the request's cache key as prompt_cache_key.
func TestCustomToolGrammarAndCacheKey(t *testing.T) {
	srv, url := serve(t, fakellm.Turn{Text: "ok"})
	req := hello
	req.CacheKey = "agentls-abc"
	req.Tools = []agent.ToolSpec{{Name: "apply_patch", Description: "patch", Freeform: true, Grammar: "start: \"x\"\n"},
		{Name: "free", Freeform: true}}
	if _, err := responses.New(responses.Config{BaseURL: url, Model: "gpt-5-codex"}).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if len(r.Body.Tools) != 2 || !r.Body.Tools[0].Custom || r.Body.Tools[0].Grammar != "start: \"x\"\n" || r.Body.Tools[1].Grammar != "" {
		t.Errorf("tools %+v", r.Body.Tools)
	}
	if r.Responses.PromptCacheKey != "agentls-abc" {
		t.Errorf("prompt_cache_key %q", r.Responses.PromptCacheKey)
	}
}
