package responses_test

// The chat backend's fault cases, run against both wire APIs through the
// real fake server: a fault must read the same whichever API is in use.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/llm/chat"
	"github.com/agentls/agentls/internal/llm/responses"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

type backendCfg struct {
	APIKey      string
	Model       string
	IdleTimeout time.Duration
}

// apis builds each backend for a server URL.
var apis = []struct {
	name string
	make func(url string, c backendCfg) agent.LLM
}{
	{"chat", func(url string, c backendCfg) agent.LLM {
		return chat.NewOpenAI(chat.OpenAIConfig{BaseURL: url, APIKey: c.APIKey, Model: c.Model, IdleTimeout: c.IdleTimeout})
	}},
	{"responses", func(url string, c backendCfg) agent.LLM {
		return responses.New(responses.Config{BaseURL: url, APIKey: c.APIKey, Model: c.Model, IdleTimeout: c.IdleTimeout})
	}},
}

func serve(t testing.TB, turns ...fakellm.Turn) (*fakellm.Server, string) {
	t.Helper()
	srv := fakellm.New(&fakellm.Script{Turns: turns})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, url
}

var hello = agent.Request{Messages: []agent.Message{
	{Role: agent.RoleSystem, Content: "You are a test."},
	{Role: agent.RoleUser, Content: "hello"},
}}

func ptr[T any](v T) *T { return &v }

func TestFaultsBothAPIs(t *testing.T) {
	tests := []struct {
		name       string
		cfg        backendCfg
		turn       *fakellm.Turn // nil: script exhausted
		wantStatus int
		retryable  bool
		partial    bool
		retryAfter time.Duration
		wantMsg    string
		wantText   string
	}{
		{name: "429 with Retry-After", turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 429, Message: "Rate limit reached", RetryAfter: "2"}},
			wantStatus: 429, retryable: true, retryAfter: 2 * time.Second, wantMsg: "rate limited by http://127.0.0.1:"},
		{name: "408", turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 408, Message: "slow"}}, wantStatus: 408, retryable: true, wantMsg: "timed out"},
		{name: "500", turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 500, Message: "The server had an error"}},
			wantStatus: 500, retryable: true, wantMsg: "The server had an error"},
		{name: "503 with date Retry-After", turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 503, Message: "overloaded",
			RetryAfter: time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}},
			wantStatus: 503, retryable: true, retryAfter: time.Hour, wantMsg: "overloaded"},
		{name: "401", cfg: backendCfg{APIKey: "sk-test"}, turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 401, Message: "Incorrect API key provided: sk-test"}},
			wantStatus: 401, wantMsg: "API key rejected by http://127.0.0.1:"},
		{name: "401 without a key", turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 401, Message: "You didn't provide an API key."}},
			wantStatus: 401, wantMsg: "no API key configured"},
		{name: "404", cfg: backendCfg{Model: "gpt-nope"}, turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 404, Message: "The model `gpt-nope` does not exist"}},
			wantStatus: 404, wantMsg: "model 'gpt-nope' not found at http://127.0.0.1:"},
		{name: "400", turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 400, Message: "context_length_exceeded: too many tokens"}},
			wantStatus: 400, wantMsg: "context_length_exceeded: too many tokens"},
		{name: "script exhausted", wantStatus: 500, retryable: true, wantMsg: "script exhausted"},
		{name: "reset", turn: &fakellm.Turn{Reset: true}, retryable: true, wantMsg: "connection to http://127.0.0.1:"},
		{name: "cut before any event", turn: &fakellm.Turn{Text: "abc", BreakAfter: ptr(0)}, retryable: true, wantMsg: "lost"},
		{name: "cut after text", turn: &fakellm.Turn{Text: "The answer is forty-two.", ChunkSize: 4, BreakAfter: ptr(3)},
			partial: true, wantMsg: "after part of the answer", wantText: "The answ"},
		{name: "cut in tool arguments", turn: &fakellm.Turn{ToolCalls: []fakellm.ToolCall{{Name: "read_file", Arguments: `{"path":"a.go"}`}}, ChunkSize: 3, BreakAfter: ptr(3)},
			partial: true, wantMsg: "after part of the answer"},
		{name: "stall before text", cfg: backendCfg{IdleTimeout: 100 * time.Millisecond}, turn: &fakellm.Turn{Text: "late", StallMs: 3000},
			retryable: true, wantMsg: "model stream idle for 100ms"},
		{name: "stall after text", cfg: backendCfg{IdleTimeout: 100 * time.Millisecond}, turn: &fakellm.Turn{Text: "early late", ChunkSize: 6, StallMs: 3000, StallAfter: ptr(2)},
			partial: true, wantMsg: "model stream idle", wantText: "early "},
	}
	for _, api := range apis {
		for _, tt := range tests {
			t.Run(api.name+"/"+tt.name, func(t *testing.T) {
				var turns []fakellm.Turn
				if tt.turn != nil {
					turns = append(turns, *tt.turn)
				}
				_, url := serve(t, turns...)
				cfg := tt.cfg
				if cfg.Model == "" {
					cfg.Model = "fake-model"
				}
				var streamed strings.Builder
				resp, err := api.make(url, cfg).Stream(context.Background(), hello, func(d string) { streamed.WriteString(d) })
				var le *agent.LLMError
				if !errors.As(err, &le) {
					t.Fatalf("err = %v (%T), want *LLMError", err, err)
				}
				t.Log(le)
				if le.Status != tt.wantStatus || le.Retryable != tt.retryable || le.Partial != tt.partial || !strings.Contains(le.Message, tt.wantMsg) {
					t.Errorf("got status %d retryable %v partial %v message %q\nwant %d %v %v containing %q",
						le.Status, le.Retryable, le.Partial, le.Message, tt.wantStatus, tt.retryable, tt.partial, tt.wantMsg)
				}
				if d := le.RetryAfter - tt.retryAfter; d > 0 || d < -2*time.Second || (tt.retryAfter == 0) != (le.RetryAfter == 0) {
					t.Errorf("RetryAfter = %v, want about %v", le.RetryAfter, tt.retryAfter)
				}
				if resp.Content != tt.wantText || streamed.String() != tt.wantText {
					t.Errorf("partial content %q, streamed %q, want %q", resp.Content, streamed.String(), tt.wantText)
				}
			})
		}
	}
}

func TestKeyNeverInErrorsBothAPIs(t *testing.T) {
	const key = "sk-proj-TOPSECRET-0123456789abcdef"
	tests := []struct {
		name      string
		serverKey string // the fake echoes the key it was given, like some proxies
		turn      fakellm.Turn
	}{
		{"401 echoing the key", "sk-other", fakellm.Turn{Text: "x"}},
		{"400 quoting the key", "", fakellm.Turn{Error: &fakellm.ErrorReply{Status: 400, Message: "bad header Bearer " + key}}},
		{"500 quoting the key", "", fakellm.Turn{Error: &fakellm.ErrorReply{Status: 500, Message: "upstream rejected " + key}}},
		{"failed event quoting the key", "", fakellm.Turn{Text: "x", StreamError: &fakellm.ErrorReply{Message: "upstream rejected " + key}}},
	}
	for _, api := range apis {
		for _, tt := range tests {
			if tt.turn.StreamError != nil && api.name == "chat" {
				continue // fakellm sends stream errors on /v1/responses only
			}
			t.Run(api.name+"/"+tt.name, func(t *testing.T) {
				srv := fakellm.New(&fakellm.Script{Turns: []fakellm.Turn{tt.turn}})
				srv.APIKey = tt.serverKey
				url, err := srv.Start()
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				_, err = api.make(url, backendCfg{APIKey: key, Model: "m"}).Stream(context.Background(), hello, nil)
				if err == nil {
					t.Fatal("no error")
				}
				texts := []string{fmt.Sprintf("%v|%+v|%#v", err, err, err)}
				for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
					texts = append(texts, e.Error())
				}
				var le *agent.LLMError
				if errors.As(err, &le) {
					texts = append(texts, le.Message, fmt.Sprint(le.Err))
				}
				for _, s := range texts {
					if strings.Contains(s, "TOPSECRET") {
						t.Errorf("API key leaked: %s", s)
					}
				}
				if len(texts) < 4 {
					t.Errorf("error chain too short to have been checked: %q", texts)
				}
			})
		}
	}
	cfg := responses.Config{APIKey: key}
	if s := fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg); strings.Contains(s, "TOPSECRET") {
		t.Errorf("config prints the key: %s", s)
	}
}

func TestCancelMidStreamBothAPIs(t *testing.T) {
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			// The stream stalls for a minute after the first text: only a
			// cancel that reaches the HTTP read ends it early.
			_, url := serve(t, fakellm.Turn{Text: "first words, then silence", ChunkSize: 12, StallMs: 60_000, StallAfter: ptr(2)})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			resp, err := api.make(url, backendCfg{Model: "m"}).Stream(ctx, hello, func(string) { once.Do(cancel) })
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if resp.Content != "first words," {
				t.Errorf("partial content %q", resp.Content)
			}
		})
	}
}
