package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/agentls/agentls/internal/agent"
)

// scriptLLM is an in-process model: request i is answered by turns[i].
// Compaction requests (the CompactionPrompt) are answered apart, so they do
// not use up turns.
type scriptLLM struct {
	turns []turn

	mu        sync.Mutex
	reqs      []agent.Request
	summaries []agent.Request
}

type turn func(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error)

func (l *scriptLLM) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	l.mu.Lock()
	if len(req.Messages) > 0 && req.Messages[0].Content == CompactionPrompt {
		l.summaries = append(l.summaries, req)
		l.mu.Unlock()
		return agent.Response{Content: "summary of earlier turns", Usage: agent.Usage{InputTokens: 50, OutputTokens: 5}}, nil
	}
	l.reqs = append(l.reqs, req)
	i := len(l.reqs) - 1
	l.mu.Unlock()
	if i >= len(l.turns) {
		return agent.Response{}, fmt.Errorf("script: no turn %d", i+1)
	}
	return l.turns[i](ctx, req, onText)
}

func (l *scriptLLM) requests() []agent.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// say streams text in two deltas and ends the turn.
func say(text string) turn {
	return func(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
		half := len(text) / 2
		onText(text[:half])
		onText(text[half:])
		return agent.Response{Content: text, Usage: agent.Usage{InputTokens: 1000, OutputTokens: 100}}, nil
	}
}

// calls asks for tool calls, each given as "id name args".
func calls(cs ...string) turn {
	return func(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
		r := agent.Response{Usage: agent.Usage{InputTokens: 1000, OutputTokens: 100}}
		for _, c := range cs {
			f := strings.SplitN(c, " ", 3)
			r.ToolCalls = append(r.ToolCalls, agent.ToolCall{ID: f[0], Name: f[1], Arguments: f[2]})
		}
		return r, nil
	}
}

// fnTool is a tool made of a function.
type fnTool struct {
	name string
	ro   bool
	run  func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error)
}

const testSchema = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`

func (f fnTool) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: f.name, Description: "test tool " + f.name, Parameters: json.RawMessage(testSchema)}
}
func (f fnTool) ReadOnly() bool { return f.ro }
func (f fnTool) Run(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
	return f.run(ctx, args)
}

func pathArg(args json.RawMessage) string {
	var a struct{ Path string }
	json.Unmarshal(args, &a)
	return a.Path
}

// readTool answers "contents of <path>".
var readTool = fnTool{name: "read", ro: true, run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
	return agent.ToolResult{Output: "contents of " + pathArg(args)}, nil
}}

// editTool reports the path as changed.
var editTool = fnTool{name: "edit", run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
	p := pathArg(args)
	return agent.ToolResult{Output: "edited " + p, Changed: []string{p}}, nil
}}

type verifierFunc func(ctx context.Context, changed []string) (agent.VerifyReport, error)

func (f verifierFunc) Verify(ctx context.Context, changed []string) (agent.VerifyReport, error) {
	return f(ctx, changed)
}

// events collects what OnEvent receives.
type events struct {
	mu  sync.Mutex
	evs []agent.Event
}

func (e *events) on(ev agent.Event) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
}

func (e *events) list() []agent.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.evs)
}

// toolMessages returns the tool results of a request, as "id: content".
func toolMessages(req agent.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == agent.RoleTool {
			out = append(out, m.ToolCallID+": "+m.Content)
		}
	}
	return out
}

// runAsync runs a task in a goroutine; the result arrives on the channel.
func runAsync(ctx context.Context, d *Driver, task Assignment) <-chan agent.Result {
	ch := make(chan agent.Result, 1)
	go func() { ch <- d.Run(ctx, task) }()
	return ch
}

// wait receives from ch or fails after a generous bound: a hang is a bug,
// never a slow machine.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no answer after 10 s", what)
		panic("unreachable")
	}
}

// checkNoLeak waits until the goroutines a test started are gone.
func checkNoLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDriverPlainTask(t *testing.T) {
	before := runtime.NumGoroutine()
	llm := &scriptLLM{turns: []turn{
		calls(`c1 read {"path":"a.go"}`),
		calls(`c2 edit {"path":"a.go"}`),
		say("Renamed it."),
	}}
	var ev events
	var verified []string
	d := &Driver{
		LLM: llm, Model: "m", Tools: []agent.Tool{readTool, editTool},
		Verifier: verifierFunc(func(ctx context.Context, changed []string) (agent.VerifyReport, error) {
			verified = changed
			return agent.VerifyReport{Passed: true, Summary: "ok"}, nil
		}),
		Limits:  agent.DefaultLimits(),
		OnEvent: ev.on,
	}
	d.Price.Input, d.Price.Output = 2, 8
	res := d.Run(context.Background(), Assignment{Prompt: "rename", Seed: 1})

	if res.Status != agent.StatusOK || res.Reason != "done" || !res.Verified || res.Summary != "Renamed it." {
		t.Errorf("result %+v", res)
	}
	if !slices.Equal(res.FilesChanged, []string{"a.go"}) || !slices.Equal(verified, []string{"a.go"}) {
		t.Errorf("files changed %v, verified %v", res.FilesChanged, verified)
	}
	if res.Steps != 3 || res.Usage.InputTokens != 3000 || res.Usage.OutputTokens != 300 {
		t.Errorf("steps %d usage %+v", res.Steps, res.Usage)
	}
	if want := (3000*2.0 + 300*8.0) / 1e6; res.Cost != want {
		t.Errorf("cost %v, want %v", res.Cost, want)
	}
	reqs := llm.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if reqs[0].Model != "m" || len(reqs[0].Tools) != 2 || reqs[0].Messages[0].Content != SystemPrompt || reqs[0].Messages[1].Content != "rename" {
		t.Errorf("first request %+v", reqs[0])
	}
	if got := toolMessages(reqs[2]); !slices.Equal(got, []string{"c1: contents of a.go", "c2: edited a.go"}) {
		t.Errorf("tool results %q", got)
	}

	// Events arrive in order: states chain from idle back to idle, each
	// result follows its call, text arrives as streamed, end comes last
	// with the cost.
	evs := ev.list()
	state := agent.Idle
	var kinds []string
	var text string
	seen := map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case agent.KindState:
			if e.From != state {
				t.Errorf("state event %s→%s while in %s", e.From, e.To, state)
			}
			state = e.To
			kinds = append(kinds, string(e.To))
		case agent.KindText:
			text += e.Text
		case agent.KindToolCall:
			seen[e.Call.ID] = true
		case agent.KindToolResult:
			if !seen[e.Call.ID] {
				t.Errorf("result of %s before its call", e.Call.ID)
			}
		}
	}
	wantStates := "planning executing tools executing tools executing verifying reporting idle"
	if got := strings.Join(kinds, " "); got != wantStates {
		t.Errorf("states %s\nwant %s", got, wantStates)
	}
	if text != "Renamed it." {
		t.Errorf("streamed text %q", text)
	}
	last := evs[len(evs)-1]
	if last.Kind != agent.KindEnd || last.Result.Cost != res.Cost || last.Result.Status != agent.StatusOK {
		t.Errorf("last event %+v", last)
	}
	checkNoLeak(t, before)
}

// Read-only calls of one turn run together: each waits until all three
// started, which only happens if they overlap. They then finish in reverse
// order, and the results still reach the machine — its events and the
// model — in call order, so a replay sends the same events as its recording.
func TestDriverReadOnlyParallel(t *testing.T) {
	started := make(chan string, 3)
	release := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}), "c": make(chan struct{})}
	slow := fnTool{name: "read", ro: true, run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		p := pathArg(args)
		started <- p
		select {
		case <-release[p]:
		case <-ctx.Done():
			return agent.ToolResult{}, ctx.Err()
		}
		return agent.ToolResult{Output: "read " + p}, nil
	}}
	llm := &scriptLLM{turns: []turn{
		calls(`r1 read {"path":"a"}`, `r2 read {"path":"b"}`, `r3 read {"path":"c"}`),
		say("done"),
	}}
	results := make(chan string, 3)
	d := &Driver{LLM: llm, Tools: []agent.Tool{slow}, Limits: agent.DefaultLimits(), OnEvent: func(e agent.Event) {
		if e.Kind == agent.KindToolResult {
			results <- e.Call.ID
		}
	}}
	done := runAsync(context.Background(), d, Assignment{Prompt: "read all", Seed: 1})

	for range 3 {
		wait(t, started, "the three reads to start together")
	}
	// Release them last first.
	for _, p := range []string{"c", "b", "a"} {
		close(release[p])
	}
	for _, id := range []string{"r1", "r2", "r3"} {
		if got := wait(t, results, "result of "+id); got != id {
			t.Fatalf("result of %s arrived, want %s (call order)", got, id)
		}
	}
	res := wait(t, done, "the task")
	if res.Status != agent.StatusOK {
		t.Fatalf("result %+v", res)
	}
	want := []string{"r1: read a", "r2: read b", "r3: read c"}
	if got := toolMessages(llm.requests()[1]); !slices.Equal(got, want) {
		t.Errorf("tool results %q, want %q", got, want)
	}
}

// Mutating calls run one at a time in model order, and a read between two
// edits runs after the first and before the second.
func TestDriverMutatingSerial(t *testing.T) {
	var (
		mu      sync.Mutex
		order   []string
		active  atomic.Int32
		overlap atomic.Bool
	)
	record := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	edit := fnTool{name: "edit", run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		if active.Add(1) > 1 {
			overlap.Store(true)
		}
		defer active.Add(-1)
		record("edit " + pathArg(args))
		// Give a wrongly parallel driver every chance to start the next
		// edit while this one runs.
		for range 50 {
			runtime.Gosched()
		}
		if active.Load() > 1 {
			overlap.Store(true)
		}
		return agent.ToolResult{Output: "ok", Changed: []string{pathArg(args)}}, nil
	}}
	read := fnTool{name: "read", ro: true, run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		if active.Load() > 0 {
			overlap.Store(true)
		}
		record("read " + pathArg(args))
		return agent.ToolResult{Output: "text"}, nil
	}}
	llm := &scriptLLM{turns: []turn{
		calls(`e1 edit {"path":"1"}`, `e2 edit {"path":"2"}`, `r1 read {"path":"2"}`, `e3 edit {"path":"3"}`, `e4 edit {"path":"4"}`),
		say("done"),
	}}
	d := &Driver{LLM: llm, Tools: []agent.Tool{edit, read}, Limits: agent.DefaultLimits()}
	res := d.Run(context.Background(), Assignment{Prompt: "edit", Seed: 1})
	if overlap.Load() {
		t.Error("a mutating call overlapped another call")
	}
	want := []string{"edit 1", "edit 2", "read 2", "edit 3", "edit 4"}
	if !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if !slices.Equal(res.FilesChanged, []string{"1", "2", "3", "4"}) {
		t.Errorf("files changed %v", res.FilesChanged)
	}
}

// Every way a call can fail is an error for the model; the task goes on.
func TestDriverToolErrors(t *testing.T) {
	panicky := fnTool{name: "panicky", run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		panic("index out of range")
	}}
	slow := fnTool{name: "slow", run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		<-ctx.Done()
		return agent.ToolResult{}, ctx.Err()
	}}
	llm := &scriptLLM{turns: []turn{
		calls(`c1 nope {}`, `c2 read {"path":`, `c3 panicky {"path":"x"}`, `c4 slow {"path":"x"}`, `c5 read `),
		say("gave up on those"),
	}}
	d := &Driver{LLM: llm, Tools: []agent.Tool{readTool, panicky, slow}, Limits: agent.DefaultLimits(), ToolTimeout: 50 * time.Millisecond}
	res := d.Run(context.Background(), Assignment{Prompt: "try", Seed: 1})
	if res.Status != agent.StatusOK || res.Summary != "gave up on those" {
		t.Fatalf("result %+v", res)
	}
	got := toolMessages(llm.requests()[1])
	wants := [][]string{
		{"c1: error: ", `unknown tool "nope"`, "panicky, read, slow"},
		{"c2: error: ", "not valid JSON", testSchema},
		{"c3: error: ", "panicky crashed", "index out of range"},
		{"c4: error: ", "slow timed out after 50ms"},
		{"c5: contents of "}, // empty arguments are {}
	}
	if len(got) != len(wants) {
		t.Fatalf("tool results %q", got)
	}
	for i, w := range wants {
		for _, s := range w {
			if !strings.Contains(got[i], s) {
				t.Errorf("result %q lacks %q", got[i], s)
			}
		}
	}
}

// Cancelling the context ends the task promptly from wherever it is, and
// every goroutine of the run is gone afterwards.
func TestDriverCancel(t *testing.T) {
	blockedTool := fnTool{name: "block", run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		<-ctx.Done()
		return agent.ToolResult{}, ctx.Err()
	}}
	tests := []struct {
		name     string
		turns    []turn
		verifier Verifier
	}{
		{"streaming", []turn{func(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
			onText("partial")
			<-ctx.Done()
			return agent.Response{Content: "partial"}, ctx.Err()
		}}, nil},
		{"tool", []turn{calls(`c1 block {}`)}, nil},
		{"retry wait", []turn{func(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
			return agent.Response{}, &agent.LLMError{Status: 503, Retryable: true, RetryAfter: 50 * time.Second, Message: "busy"}
		}}, nil},
		{"verify", []turn{calls(`c1 edit {"path":"a"}`), say("done")}, verifierFunc(func(ctx context.Context, _ []string) (agent.VerifyReport, error) {
			<-ctx.Done()
			return agent.VerifyReport{}, ctx.Err()
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			var ev events
			busy := make(chan struct{})
			var once sync.Once
			d := &Driver{LLM: &scriptLLM{turns: tt.turns}, Tools: []agent.Tool{blockedTool, editTool}, Verifier: tt.verifier, Limits: agent.DefaultLimits(),
				OnEvent: func(e agent.Event) {
					ev.on(e)
					// Cancel once the task is in the blocking step.
					if e.Kind == agent.KindText || e.Kind == agent.KindRetry || (e.Kind == agent.KindState && (e.To == agent.Tools || e.To == agent.Verifying)) {
						once.Do(func() { close(busy) })
					}
				}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := runAsync(ctx, d, Assignment{Prompt: "t", Seed: 1})
			wait(t, busy, "the task to get busy")
			cancel()
			res := wait(t, done, "Run after cancel")
			if !res.Cancelled || res.Status != agent.StatusCancelled || res.Reason != "cancelled" {
				t.Errorf("result %+v", res)
			}
			evs := ev.list()
			if last := evs[len(evs)-1]; last.Kind != agent.KindEnd || !last.Result.Cancelled {
				t.Errorf("last event %+v", last)
			}
			checkNoLeak(t, before)
		})
	}
}

// actorLLM is an Actor whose one turn returns err.
type actorLLM struct{ err error }

func (a actorLLM) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	return a.Act(ctx, req, onText, nil)
}
func (a actorLLM) Act(context.Context, agent.Request, func(string), func(agent.Event)) (agent.Response, error) {
	return agent.Response{}, a.err
}

// An actor that gives up its own turn (ErrTurnCancelled, wrapped) cancels
// the task; any other error of its is a failed model call.
func TestDriverActorCancelsItsTurn(t *testing.T) {
	d := &Driver{LLM: actorLLM{fmt.Errorf("the agent cancelled: %w", ErrTurnCancelled)}, Limits: agent.DefaultLimits()}
	res := d.Run(context.Background(), Assignment{Prompt: "t", Seed: 1})
	if !res.Cancelled || res.Status != agent.StatusCancelled || res.Reason != "cancelled" {
		t.Errorf("result %+v, want cancelled", res)
	}
	d = &Driver{LLM: actorLLM{errors.New("the agent failed")}, Limits: agent.DefaultLimits()}
	if res := d.Run(context.Background(), Assignment{Prompt: "t", Seed: 1}); res.Status != agent.StatusError || res.Reason != "llm" {
		t.Errorf("result %+v, want an llm error", res)
	}
}

func TestDriverTaskTimeout(t *testing.T) {
	before := runtime.NumGoroutine()
	llm := &scriptLLM{turns: []turn{func(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
		<-ctx.Done()
		return agent.Response{}, ctx.Err()
	}}}
	d := &Driver{LLM: llm, Limits: agent.DefaultLimits(), TaskTimeout: 50 * time.Millisecond}
	res := d.Run(context.Background(), Assignment{Prompt: "t", Seed: 1})
	if res.Reason != "timeout" || res.Status != agent.StatusError || res.Cancelled || !strings.Contains(res.Error, "timed out after 50ms") {
		t.Errorf("result %+v", res)
	}
	checkNoLeak(t, before)
}

// Verify failures reach the model as a user message; an error running
// the checks counts as a failure.
func TestDriverVerifyRetry(t *testing.T) {
	n := 0
	v := verifierFunc(func(ctx context.Context, changed []string) (agent.VerifyReport, error) {
		n++
		switch n {
		case 1:
			return agent.VerifyReport{Summary: "1 problem", Feedback: "a.go:1:1: undefined: x"}, nil
		case 2:
			return agent.VerifyReport{}, errors.New("go: not found")
		}
		return agent.VerifyReport{Passed: true, Summary: "ok"}, nil
	})
	llm := &scriptLLM{turns: []turn{
		calls(`c1 edit {"path":"a.go"}`), say("edited"),
		say("fixed x"),
		say("retried"),
	}}
	d := &Driver{LLM: llm, Tools: []agent.Tool{editTool}, Verifier: v, Limits: agent.DefaultLimits()}
	res := d.Run(context.Background(), Assignment{Prompt: "t", Seed: 1})
	if !res.Verified || res.Summary != "retried" || n != 3 {
		t.Fatalf("result %+v after %d verify runs", res, n)
	}
	reqs := llm.requests()
	last := func(r agent.Request) string { return r.Messages[len(r.Messages)-1].Content }
	if m := last(reqs[2]); !strings.Contains(m, "a.go:1:1: undefined: x") {
		t.Errorf("feedback message %q", m)
	}
	if m := last(reqs[3]); !strings.Contains(m, "go: not found") {
		t.Errorf("feedback message %q", m)
	}
}

// A retryable model error is retried after a timer; the retry is an event.
func TestDriverLLMRetry(t *testing.T) {
	llm := &scriptLLM{turns: []turn{
		func(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
			return agent.Response{}, fmt.Errorf("stream: %w", &agent.LLMError{Status: 429, Retryable: true, Message: "slow down"})
		},
		say("ok"),
	}}
	var ev events
	l := agent.DefaultLimits()
	l.BackoffBase = time.Millisecond
	d := &Driver{LLM: llm, Limits: l, OnEvent: ev.on}
	res := d.Run(context.Background(), Assignment{Prompt: "t", Seed: 1})
	if res.Status != agent.StatusOK || len(llm.requests()) != 2 {
		t.Fatalf("result %+v after %d requests", res, len(llm.requests()))
	}
	retries := 0
	for _, e := range ev.list() {
		if e.Kind == agent.KindRetry {
			retries++
		}
	}
	if retries != 1 {
		t.Errorf("%d retry events", retries)
	}
}

// With a small window the driver asks the model for a summary of the
// dropped turns and sends the next request with it, within the window.
func TestDriverCompaction(t *testing.T) {
	big := fnTool{name: "read", ro: true, run: func(ctx context.Context, args json.RawMessage) (agent.ToolResult, error) {
		return agent.ToolResult{Output: strings.Repeat("log line\n", 400)}, nil
	}}
	var turns []turn
	for i := range 8 {
		turns = append(turns, calls(fmt.Sprintf(`c%d read {"path":"%d.log"}`, i, i)))
	}
	llm := &scriptLLM{turns: append(turns, say("done"))}
	l := agent.DefaultLimits()
	l.ContextTokens = 4000
	d := &Driver{LLM: llm, Tools: []agent.Tool{big}, Limits: l}
	res := d.Run(context.Background(), Assignment{Prompt: "read the logs", Seed: 1})
	if res.Status != agent.StatusOK {
		t.Fatalf("result %+v", res)
	}
	if len(llm.summaries) == 0 {
		t.Fatal("no summary requested")
	}
	found := false
	for _, r := range llm.requests() {
		var n int
		for i := range r.Messages {
			n += agent.MessageTokens(&r.Messages[i])
		}
		if n > l.ContextTokens {
			t.Errorf("a request of about %d tokens", n)
		}
		for _, m := range r.Messages {
			found = found || strings.Contains(m.Content, "summary of earlier turns")
		}
	}
	if !found {
		t.Error("the summary never reached the model")
	}
}

func TestWorkspacePlanner(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Use tabs."), 0o644)
	os.MkdirAll(filepath.Join(root, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentls", "instructions.md"), []byte(strings.Repeat("z", maxContextFile+10)), 0o644)
	p := WorkspacePlanner{Root: root, Recall: func(ctx context.Context, task string) []string {
		return []string{"renamed Foo (task: " + task + ")"}
	}}
	hist := []agent.Message{{Role: agent.RoleUser, Content: "earlier"}}
	got, err := p.Plan(context.Background(), Assignment{Prompt: "fix", Editor: "a.go:3", History: hist})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Prefix) != 2 || got.Prefix[1].Content != "Editor context:\na.go:3" || !reflect.DeepEqual(got.History, hist) {
		t.Fatalf("planned %+v", got)
	}
	sys := got.Prefix[0].Content
	for _, want := range []string{SystemPrompt, "## Project instructions (AGENTS.md)\nUse tabs.", "(.agentls/instructions.md)", "- renamed Foo (task: fix)"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(sys, strings.Repeat("z", maxContextFile+1)) {
		t.Error("instruction file not capped")
	}

	// Nothing to add: the bare system prompt, no editor message.
	got, _ = WorkspacePlanner{Root: t.TempDir()}.Plan(context.Background(), Assignment{Prompt: "x"})
	if len(got.Prefix) != 1 || !strings.HasPrefix(got.Prefix[0].Content, SystemPrompt+"\n\n## Environment\n") {
		t.Errorf("planned %+v", got)
	}
}

// A conversation hook that panics is a bug in the hook; the task still
// ends normally, and every recovered panic is logged with where it was
// (a hook's swallowed one was silent before).
func TestDriverHookPanicIsContained(t *testing.T) {
	llm := &scriptLLM{turns: []turn{calls(`c1 edit {"path":"a.go"}`), say("done")}}
	calls := 0
	core, logs := observer.New(zap.ErrorLevel)
	d := &Driver{LLM: llm, Model: "m", Tools: []agent.Tool{editTool}, Limits: agent.DefaultLimits(), Log: zap.New(core),
		OnConversation: func(context.Context, []agent.Message) { calls++; panic("conversation") }}
	res := d.Run(context.Background(), Assignment{Prompt: "x", Seed: 1})
	if res.Status != agent.StatusOK || len(res.FilesChanged) != 1 || calls < 2 {
		t.Fatalf("result %+v after %d hook calls", res, calls)
	}
	got := logs.FilterField(zap.String("in", "OnConversation")).All()
	if len(got) != calls || got[0].ContextMap()["panic"] != "conversation" || got[0].ContextMap()["stack"] == "" {
		t.Errorf("%d hook panics, logged %+v", calls, logs.All())
	}
}

// The conversation a continued session starts from is the history after
// the planner's prefix, handed over before each model call and at the end.
func TestDriverPersistsTheConversationAfterThePrefix(t *testing.T) {
	llm := &scriptLLM{turns: []turn{calls(`c1 edit {"path":"a.go"}`), say("done")}}
	var last []agent.Message
	n := 0
	d := &Driver{LLM: llm, Model: "m", Tools: []agent.Tool{editTool}, Limits: agent.DefaultLimits(),
		OnConversation: func(_ context.Context, h []agent.Message) { n++; last = h }}
	if res := d.Run(context.Background(), Assignment{Prompt: "x", Seed: 1}); res.Status != agent.StatusOK {
		t.Fatalf("result %+v", res)
	}
	if n != 3 || len(last) != 4 || last[0].Role != agent.RoleUser || last[0].Content != "x" || last[3].Content != "done" {
		t.Errorf("%d conversations, the last %+v", n, last)
	}
}

// The driver logs each input the machine ignored, with its state.
func TestDriverLogsIgnoredInputs(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	r := &run{d: &Driver{Log: zap.New(core)}, m: agent.NewMachine()}
	r.step(agent.ToolDone{ID: "late"})
	r.step(agent.Start{Task: "t", Limits: agent.DefaultLimits(), Seed: 1})
	got := logs.All()
	if len(got) != 1 || got[0].ContextMap()["input"] != "agent.ToolDone" || got[0].ContextMap()["state"] != string(agent.Idle) {
		t.Fatalf("logged %+v", got)
	}
}
