package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/llm/chat"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// recLookup is a tool whose answers the test controls, so a replay can be
// made to diverge. It is not ReadOnly: read-only calls of a turn run in
// parallel and their toolResult events come in any order, in a recorded
// run as in a live one (the conversation keeps the call order, so replays
// match either way).
type recLookup struct {
	mu      sync.Mutex
	answers map[string]string
	name    string
}

func (l *recLookup) Spec() agent.ToolSpec {
	n := l.name
	if n == "" {
		n = "lookup"
	}
	return agent.ToolSpec{Name: n, Description: "look a key up", Parameters: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)}
}
func (l *recLookup) ReadOnly() bool { return false }
func (l *recLookup) Run(_ context.Context, args json.RawMessage) (agent.ToolResult, error) {
	var a struct{ Key string }
	if err := json.Unmarshal(args, &a); err != nil {
		return agent.ToolResult{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.answers[a.Key]
	if !ok {
		return agent.ToolResult{}, fmt.Errorf("no key %q", a.Key)
	}
	return agent.ToolResult{Output: v}, nil
}

// recRun runs a task on llm and returns its events and result.
func recRun(t *testing.T, llm agent.LLM, tool agent.Tool, prompt string) ([]agent.Event, agent.Result) {
	t.Helper()
	var mu sync.Mutex
	var evs []agent.Event
	d := &driver.Driver{LLM: llm, Model: "fake-model", Tools: []agent.Tool{tool},
		Limits: agent.Limits{MaxSteps: 10, LLMAttempts: 3, BackoffBase: time.Millisecond, BackoffCap: 5 * time.Millisecond},
		OnEvent: func(ev agent.Event) {
			mu.Lock()
			evs = append(evs, ev)
			mu.Unlock()
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := d.Run(ctx, driver.Assignment{Prompt: prompt, Seed: 7})
	mu.Lock()
	defer mu.Unlock()
	return evs, res
}

func recServe(t *testing.T, key string, turns ...fakellm.Turn) (agent.LLM, *fakellm.Server) {
	t.Helper()
	srv := fakellm.New(&fakellm.Script{Turns: turns})
	srv.APIKey = key
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return chat.NewOpenAI(chat.OpenAIConfig{BaseURL: url, APIKey: key, Model: "fake-model"}), srv
}

var recConversation = []fakellm.Turn{
	{Text: "Looking it up.", ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"key":"color"}`}}, ChunkSize: 3},
	{ToolCalls: []fakellm.ToolCall{{ID: "c2", Name: "lookup", Arguments: `{"key":"size"}`}, {ID: "c3", Name: "lookup", Arguments: `{"key":"nope"}`}}},
	{Error: &fakellm.ErrorReply{Status: 503, Message: "overloaded", RetryAfter: "0"}},
	{Text: "The color is blue and the size is large; ünïcode ✓.", ChunkSize: 5},
}

func recAnswers() map[string]string { return map[string]string{"color": "blue", "size": "large"} }

// record runs the conversation against the fake server through a
// Recorder and returns the recording, the events and the result.
func record(t *testing.T) ([]byte, []agent.Event, agent.Result) {
	t.Helper()
	llm, srv := recServe(t, "", recConversation...)
	var buf bytes.Buffer
	rec := NewRecorder(llm, &buf, nil)
	evs, res := recRun(t, rec, &recLookup{answers: recAnswers()}, "what color and size?")
	if res.Status != agent.StatusOK || srv.Pending() != 0 {
		t.Fatalf("recorded run: %+v, %d turns left", res, srv.Pending())
	}
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	return buf.Bytes(), evs, res
}

func TestRecordReplaySameEvents(t *testing.T) {
	data, evs, res := record(t)
	// The fake server is closed: a replay that touched the network would
	// fail.
	rp, err := NewReplayer(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if rp.Len() != 4 { // the failed call is an exchange too
		t.Fatalf("recording has %d exchanges, want 4", rp.Len())
	}
	evs2, res2 := recRun(t, rp, &recLookup{answers: recAnswers()}, "what color and size?")
	if !reflect.DeepEqual(res, res2) {
		t.Errorf("results differ:\nrecorded %+v\nreplayed %+v", res, res2)
	}
	if !reflect.DeepEqual(evs, evs2) {
		for i := 0; i < len(evs) && i < len(evs2); i++ {
			if !reflect.DeepEqual(evs[i], evs2[i]) {
				t.Fatalf("event %d differs:\nrecorded %+v\nreplayed %+v", i, evs[i], evs2[i])
			}
		}
		t.Fatalf("recorded %d events, replayed %d", len(evs), len(evs2))
	}
	if rp.Remaining() != 0 || rp.Err() != nil {
		t.Errorf("remaining %d, err %v", rp.Remaining(), rp.Err())
	}
	var texts []string
	for _, e := range evs2 {
		if e.Kind == agent.KindText {
			texts = append(texts, e.Text)
		}
		if e.Kind == agent.KindRetry && !strings.Contains(e.Text, "overloaded") {
			t.Errorf("retry event %q does not carry the recorded error", e.Text)
		}
	}
	// The deltas are those the server streamed (3- and 5-byte chunks, never
	// splitting a UTF-8 sequence), not one block.
	if len(texts) < 10 || texts[0] != "Loo" {
		t.Errorf("replayed deltas %q", texts)
	}
}

func TestReplayDivergence(t *testing.T) {
	data, _, _ := record(t)
	cases := []struct {
		name     string
		tool     *recLookup
		prompt   string
		exchange int
		want     string
	}{
		{"tool output", &recLookup{answers: map[string]string{"color": "red", "size": "large"}}, "what color and size?", 2,
			`message 4 (tool result of lookup c1): content differs at byte 0: recorded "blue", got "red"`},
		{"prompt", &recLookup{answers: recAnswers()}, "what colour?", 1,
			`message 2 (user): content differs at byte 9: recorded "what color and size?", got "what colour?"`},
		{"tools", &recLookup{answers: recAnswers(), name: "find"}, "what color and size?", 1,
			`the tools offered differ: recorded [lookup], got [find]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rp, err := NewReplayer(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			_, res := recRun(t, rp, c.tool, c.prompt)
			if res.Status != agent.StatusError || res.Reason != "llm" {
				t.Fatalf("result %+v, want an llm error", res)
			}
			var re *ReplayError
			if !errors.As(rp.Err(), &re) || re.Exchange != c.exchange {
				t.Fatalf("Err() = %v, want a ReplayError at exchange %d", rp.Err(), c.exchange)
			}
			if !strings.Contains(res.Error, c.want) || !strings.Contains(res.Error, fmt.Sprintf("exchange %d", c.exchange)) {
				t.Errorf("error %q\nwant it to contain %q", res.Error, c.want)
			}
		})
	}
}

func TestReplayRunsPastTheRecording(t *testing.T) {
	data, _, _ := record(t)
	rp, err := NewReplayer(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = recRun(t, rp, &recLookup{answers: recAnswers()}, "what color and size?")
	_, err = rp.Stream(context.Background(), agent.Request{}, func(string) {})
	var re *ReplayError
	if !errors.As(err, &re) || re.Exchange != 5 || !strings.Contains(err.Error(), "recording ends after 4") {
		t.Fatalf("err = %v", err)
	}
}

func TestReplayTornRecording(t *testing.T) {
	data, _, _ := record(t)
	// kill -9 during the last response: its line is cut short.
	cut := data[:len(data)-20]
	rp, err := NewReplayer(bytes.NewReader(cut))
	if err != nil {
		t.Fatalf("a torn last line must be tolerated: %v", err)
	}
	_, res := recRun(t, rp, &recLookup{answers: recAnswers()}, "what color and size?")
	if !strings.Contains(res.Error, "exchange 4") || !strings.Contains(res.Error, "recording ends before this exchange's response") {
		t.Fatalf("result %+v", res)
	}
	// A bad line in the middle is not a crash's doing: it is an error.
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[2] = []byte("{not json\n")
	if _, err := NewReplayer(bytes.NewReader(bytes.Join(lines, nil))); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("corrupt middle line: err = %v", err)
	}
}

func TestRecordingSharesMessagesWithThePreviousRequest(t *testing.T) {
	data, _, _ := record(t)
	var bases []int
	var sizes []int
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var rl recLine
		if err := json.Unmarshal(l, &rl); err != nil {
			t.Fatal(err)
		}
		if rl.Type == "request" {
			bases = append(bases, rl.Base)
			sizes = append(sizes, len(rl.Messages))
			if rl.N > 1 && (!rl.SameTools || rl.Tools != nil) {
				t.Errorf("request %d repeats the tools", rl.N)
			}
		}
	}
	// 1: system+user; 2: +assistant+tool; 3: +assistant+2 tools; 4 (the
	// retry of 3): nothing new.
	if want := []int{0, 2, 4, 7}; !reflect.DeepEqual(bases, want) {
		t.Errorf("bases %v, want %v", bases, want)
	}
	if want := []int{2, 2, 3, 0}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("new messages per request %v, want %v", sizes, want)
	}
}

func TestRecorderRedactsTheKey(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	llm, _ := recServe(t, key, fakellm.Turn{Text: "the key you pasted is " + key})
	var buf bytes.Buffer
	rec := NewRecorder(llm, &buf, func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") })
	resp, err := rec.Stream(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "my key is " + key}}}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Content, key) {
		t.Fatal("the caller must get the answer unredacted")
	}
	if bytes.Contains(buf.Bytes(), []byte(key)) || bytes.Count(buf.Bytes(), []byte("[redacted]")) < 2 {
		t.Fatalf("recording:\n%s", buf.Bytes())
	}
}

func TestReplayLLMErrorKeepsItsClass(t *testing.T) {
	llm, _ := recServe(t, "", fakellm.Turn{Error: &fakellm.ErrorReply{Status: 401, Message: "bad key"}})
	var buf bytes.Buffer
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}
	_, err1 := NewRecorder(llm, &buf, nil).Stream(context.Background(), req, func(string) {})
	rp, err := NewReplayer(&buf)
	if err != nil {
		t.Fatal(err)
	}
	_, err2 := rp.Stream(context.Background(), req, func(string) {})
	var a, b *agent.LLMError
	if !errors.As(err1, &a) || !errors.As(err2, &b) {
		t.Fatalf("errors %v / %v", err1, err2)
	}
	if a.Status != b.Status || a.Retryable != b.Retryable || a.Message != b.Message || b.Status != 401 {
		t.Fatalf("recorded %+v, replayed %+v", a, b)
	}
}

func TestReplayStopsWhenCancelled(t *testing.T) {
	data, _, _ := record(t)
	rp, err := NewReplayer(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = rp.Stream(ctx, rp.ex[0].req, func(string) {
		n++
		cancel()
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("err %v after %d deltas", err, n)
	}
}

func BenchmarkReplayerLoad(b *testing.B) {
	// A long task: 100 exchanges over a growing conversation.
	var buf bytes.Buffer
	rec := NewRecorder(recReplyLLM{}, &buf, nil)
	msgs := []agent.Message{{Role: agent.RoleSystem, Content: strings.Repeat("s", 2000)}, {Role: agent.RoleUser, Content: "go"}}
	for i := range 100 {
		if _, err := rec.Stream(context.Background(), agent.Request{Messages: msgs}, func(string) {}); err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, agent.Message{Role: agent.RoleAssistant, Content: fmt.Sprint("turn ", i)}, agent.Message{Role: agent.RoleUser, Content: strings.Repeat("x", 1000)})
	}
	for b.Loop() {
		if _, err := NewReplayer(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "recording-bytes")
}

// recReplyLLM answers every call with two deltas, for the benchmark.
type recReplyLLM struct{}

func (recReplyLLM) Stream(_ context.Context, _ agent.Request, onText func(string)) (agent.Response, error) {
	onText("ok ")
	onText("done")
	return agent.Response{Content: "ok done"}, nil
}
