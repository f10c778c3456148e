// Package llmfaults holds what both OpenAI-protocol backends (chat
// completions and Responses) must do alike, played through the fake model
// server: the table of faults and how each is reported, key scrubbing,
// cancellation, connection reuse and usage estimates. Each backend's tests
// run it against their own backend, and add the cases only their wire API
// has.
package llmfaults

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
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// Config is what a case sets of the backend under test.
type Config struct {
	APIKey      string
	Model       string // "fake-model" when empty
	IdleTimeout time.Duration
}

// Backend builds the backend under test for a fake server's URL.
type Backend func(url string, c Config) agent.LLM

// Case is one fault and the *agent.LLMError it must produce.
type Case struct {
	Name       string
	Cfg        Config
	Turn       *fakellm.Turn // nil: the script is exhausted
	WantStatus int
	Retryable  bool
	Partial    bool
	RetryAfter time.Duration
	WantMsg    string // a part of the message
	WantText   string // the content returned beside the error, and streamed
}

func ptr[T any](v T) *T { return &v }

// Common lists the faults whose report does not depend on the wire API.
func Common() []Case {
	return []Case{
		{Name: "429 with Retry-After", Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 429, Message: "Rate limit reached", RetryAfter: "2"}},
			WantStatus: 429, Retryable: true, RetryAfter: 2 * time.Second, WantMsg: "rate limited by http://127.0.0.1:"},
		{Name: "408", Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 408, Message: "slow"}},
			WantStatus: 408, Retryable: true, WantMsg: "timed out"},
		{Name: "500", Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 500, Message: "The server had an error"}},
			WantStatus: 500, Retryable: true, WantMsg: "The server had an error"},
		{Name: "503 with date Retry-After", Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 503, Message: "overloaded",
			RetryAfter: time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}},
			WantStatus: 503, Retryable: true, RetryAfter: time.Hour, WantMsg: "overloaded"},
		{Name: "401", Cfg: Config{APIKey: "sk-test"}, Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 401, Message: "Incorrect API key provided: sk-test"}},
			WantStatus: 401, WantMsg: "API key rejected by http://127.0.0.1:"},
		{Name: "401 names every place a key comes from", Cfg: Config{APIKey: "sk-test"}, Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 401, Message: "bad key"}},
			WantStatus: 401, WantMsg: "AGENTLS_API_KEY or OPENAI_API_KEY, or llm.apiKey"},
		{Name: "401 without a key", Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 401, Message: "You didn't provide an API key."}},
			WantStatus: 401, WantMsg: "no API key configured, and http://127.0.0.1:"},
		{Name: "401 without a key names every place", Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 401, Message: "no key"}},
			WantStatus: 401, WantMsg: "set AGENTLS_API_KEY or OPENAI_API_KEY, or llm.apiKey"},
		{Name: "404", Cfg: Config{Model: "gpt-nope"}, Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 404, Message: "The model `gpt-nope` does not exist"}},
			WantStatus: 404, WantMsg: "model 'gpt-nope' not found at http://127.0.0.1:"},
		{Name: "400", Turn: &fakellm.Turn{Error: &fakellm.ErrorReply{Status: 400, Message: "context_length_exceeded: too many tokens"}},
			WantStatus: 400, WantMsg: "context_length_exceeded: too many tokens"},
		{Name: "script exhausted", WantStatus: 500, Retryable: true, WantMsg: "script exhausted"},
		{Name: "reset", Turn: &fakellm.Turn{Reset: true}, Retryable: true, WantMsg: "connection to http://127.0.0.1:"},
		{Name: "cut before any event", Turn: &fakellm.Turn{Text: "abc", BreakAfter: ptr(0)}, Retryable: true, WantMsg: "lost"},
		{Name: "cut after text", Turn: &fakellm.Turn{Text: "The answer is forty-two.", ChunkSize: 4, BreakAfter: ptr(3)},
			Partial: true, WantMsg: "after part of the answer", WantText: "The answ"},
		{Name: "cut in tool arguments", Turn: &fakellm.Turn{ToolCalls: []fakellm.ToolCall{{Name: "read_file", Arguments: `{"path":"a.go"}`}}, ChunkSize: 3, BreakAfter: ptr(3)},
			Partial: true, WantMsg: "after part of the answer"},
		{Name: "stall before text", Cfg: Config{IdleTimeout: 100 * time.Millisecond}, Turn: &fakellm.Turn{Text: "late", StallMs: 3000},
			Retryable: true, WantMsg: "model stream idle for 100ms"},
		{Name: "stall after text", Cfg: Config{IdleTimeout: 100 * time.Millisecond}, Turn: &fakellm.Turn{Text: "early late", ChunkSize: 6, StallMs: 3000, StallAfter: ptr(2)},
			Partial: true, WantMsg: "model stream idle", WantText: "early "},
	}
}

// Run plays each case against a fresh fake server and checks the error,
// its Retry-After, and the text returned and streamed beside it.
func Run(t *testing.T, backend Backend, cases []Case) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			var turns []fakellm.Turn
			if tt.Turn != nil {
				turns = append(turns, *tt.Turn)
			}
			_, url := Serve(t, turns...)
			cfg := tt.Cfg
			if cfg.Model == "" {
				cfg.Model = "fake-model"
			}
			var streamed strings.Builder
			resp, err := backend(url, cfg).Stream(context.Background(), Hello, func(d string) { streamed.WriteString(d) })
			var le *agent.LLMError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *LLMError", err, err)
			}
			t.Log(le)
			if le.Status != tt.WantStatus || le.Retryable != tt.Retryable || le.Partial != tt.Partial || !strings.Contains(le.Message, tt.WantMsg) {
				t.Errorf("got status %d retryable %v partial %v message %q\nwant %d %v %v containing %q",
					le.Status, le.Retryable, le.Partial, le.Message, tt.WantStatus, tt.Retryable, tt.Partial, tt.WantMsg)
			}
			// Dates have a one-second resolution.
			if d := le.RetryAfter - tt.RetryAfter; d > 0 || d < -2*time.Second || (tt.RetryAfter == 0) != (le.RetryAfter == 0) {
				t.Errorf("RetryAfter = %v, want about %v", le.RetryAfter, tt.RetryAfter)
			}
			if resp.Content != tt.WantText || streamed.String() != tt.WantText {
				t.Errorf("partial content %q, streamed %q, want %q", resp.Content, streamed.String(), tt.WantText)
			}
		})
	}
}

// Hello is the request every case sends.
var Hello = agent.Request{Messages: []agent.Message{
	{Role: agent.RoleSystem, Content: "You are a test."},
	{Role: agent.RoleUser, Content: "hello"},
}}

// TheKey is the API key KeyNeverLeaks gives the backend; no text of an
// error may contain it.
const TheKey = "sk-proj-TOPSECRET-0123456789abcdef"

// KeyCase is a server that quotes or echoes the key.
type KeyCase struct {
	Name      string
	ServerKey string // the fake echoes the key it was given, like some proxies
	Turn      fakellm.Turn
}

// KeyCases lists the leaks both wire APIs could have.
func KeyCases() []KeyCase {
	return []KeyCase{
		{"401 echoing the key", "sk-other", fakellm.Turn{Text: "x"}},
		{"400 quoting the key", "", fakellm.Turn{Error: &fakellm.ErrorReply{Status: 400, Message: "bad header Bearer " + TheKey}}},
		{"500 quoting the key", "", fakellm.Turn{Error: &fakellm.ErrorReply{Status: 500, Message: "upstream rejected " + TheKey}}},
	}
}

// KeyNeverLeaks plays each case with TheKey configured and checks that no
// text of the error chain contains it.
func KeyNeverLeaks(t *testing.T, backend Backend, cases []KeyCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			srv := fakellm.New(&fakellm.Script{Turns: []fakellm.Turn{tt.Turn}})
			srv.APIKey = tt.ServerKey
			url, err := srv.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			_, err = backend(url, Config{APIKey: TheKey, Model: "m"}).Stream(context.Background(), Hello, nil)
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
				if strings.Contains(s, TheKey) || strings.Contains(s, "TOPSECRET") {
					t.Errorf("API key leaked: %s", s)
				}
			}
			if len(texts) < 4 {
				t.Errorf("error chain too short to have been checked: %q", texts)
			}
		})
	}
}

// CancelMidStream cancels the caller's context while the stream stalls
// after its first text: only a cancel that reaches the HTTP read ends the
// call before the stall's minute is over.
func CancelMidStream(t *testing.T, backend Backend) {
	t.Helper()
	_, url := Serve(t, fakellm.Turn{Text: "first words, then silence", ChunkSize: 12, StallMs: 60_000, StallAfter: ptr(2)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelledAt := make(chan time.Time, 1)
	var once sync.Once
	resp, err := backend(url, Config{Model: "m"}).Stream(ctx, Hello, func(string) {
		once.Do(func() {
			time.AfterFunc(20*time.Millisecond, func() { cancelledAt <- time.Now(); cancel() })
		})
	})
	took := time.Since(<-cancelledAt)
	t.Logf("Stream returned %v after cancel", took)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if took > 2*time.Second {
		t.Errorf("Stream took %v to return after cancel", took)
	}
	if resp.Content != "first words," {
		t.Errorf("partial content %q", resp.Content)
	}
}

// Serve serves turns on a fresh fake server, closed when the test ends,
// and returns it with its base URL.
func Serve(t testing.TB, turns ...fakellm.Turn) (*fakellm.Server, string) {
	t.Helper()
	srv := fakellm.New(&fakellm.Script{Turns: turns})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, url
}

// ReusesTheConnection checks that three turns share one connection. The
// delay holds back the end of the body after the last event: a client that
// closes there throws its connection away.
func ReusesTheConnection(t *testing.T, backend Backend) {
	t.Helper()
	turn := fakellm.Turn{Text: "again", ChunkSize: 2, ChunkDelayMs: 5}
	srv, url := Serve(t, turn, turn, turn)
	llm := backend(url, Config{Model: "m"})
	for range 3 {
		if _, err := llm.Stream(context.Background(), Hello, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Connections(); n != 1 {
		t.Errorf("3 turns used %d connections, want 1", n)
	}
}

// EstimatesUsage checks the usage guessed for a server that sends none.
func EstimatesUsage(t *testing.T, backend Backend) {
	t.Helper()
	_, url := Serve(t, fakellm.Turn{Text: strings.Repeat("x", 400), OmitUsage: true})
	resp, err := backend(url, Config{Model: "m"}).Stream(context.Background(), Hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Usage.Estimated || resp.Usage.OutputTokens != 100 || resp.Usage.InputTokens == 0 {
		t.Errorf("usage %+v, want an estimate of 100 output tokens", resp.Usage)
	}
}
