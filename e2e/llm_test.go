package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// The loop against a misbehaving model server, through the real binary.
func TestLLMFailures(t *testing.T) {
	big := strings.Repeat("x", 100) + "\\n"
	cases := []struct {
		name     string
		script   string
		settings map[string]any
		status   string
		reason   string
		errHas   string
		check    func(t *testing.T, s *session, r lspclient.TaskResult)
	}{
		{name: "429 then 503 then success", status: "ok", script: `{"turns":[
			{"error":{"status":429,"message":"slow down","retryAfter":"0"}},
			{"error":{"status":503,"message":"overloaded"}},
			{"text":"finally"}]}`,
			check: func(t *testing.T, s *session, r lspclient.TaskResult) {
				if n := len(s.LLM.Requests()); n != 3 {
					t.Errorf("%d requests, want 3", n)
				}
				retries := 0
				for _, ev := range s.Events(r.TaskID) {
					if ev["kind"] == "retry" {
						retries++
					}
				}
				if retries != 2 {
					t.Errorf("%d retry events", retries)
				}
			}},
		{name: "three 500s give up", status: "error", reason: "llm", errHas: "gave up after 3 attempts", script: `{"turns":[
			{"error":{"status":500,"message":"boom"}},{"error":{"status":500,"message":"boom"}},{"error":{"status":500,"message":"boom"}}]}`},
		{name: "Retry-After over 60 s fails at once", status: "error", reason: "llm", errHas: "wait 2m0s", script: `{"turns":[
			{"error":{"status":429,"message":"quota","retryAfter":"120"}}]}`},
		{name: "401 not retried", status: "error", errHas: "API key rejected", script: `{"turns":[
			{"error":{"status":401,"message":"bad key"}},{"text":"never"}]}`,
			check: func(t *testing.T, s *session, r lspclient.TaskResult) {
				if n := len(s.LLM.Requests()); n != 1 {
					t.Errorf("401 retried: %d requests", n)
				}
				if strings.Contains(r.Error, "sk-test") {
					t.Error("key in error")
				}
			}},
		{name: "404 names the model", status: "error", errHas: "test-model", script: `{"turns":[
			{"error":{"status":404,"message":"no such model"}}]}`},
		{name: "connection reset then success", status: "ok", script: `{"turns":[{"reset":true},{"text":"hi"}]}`},
		{name: "broken stream after text keeps the text", status: "error", reason: "llm", script: `{"turns":[
			{"text":"partial answer that breaks","chunkSize":4,"breakAfter":3}]}`,
			check: func(t *testing.T, s *session, r lspclient.TaskResult) {
				if n := len(s.LLM.Requests()); n != 1 {
					t.Errorf("stream retried after text: %d requests", n)
				}
				text := ""
				for _, ev := range s.Events(r.TaskID) {
					if ev["kind"] == "text" {
						text += ev["text"].(string)
					}
				}
				if text == "" {
					t.Error("partial text not streamed")
				}
			}},
		{name: "idle stream times out and is retried", status: "ok", settings: map[string]any{"llm": map[string]any{"idleTimeoutSeconds": 1}},
			script: `{"turns":[{"text":"stalls","stallMs":3000},{"text":"second try"}]}`},
		{name: "malformed tool JSON and unknown tool go back to the model", status: "ok", script: `{"turns":[
			{"toolCalls":[{"id":"c1","name":"read_file","arguments":"{\"path\": "},{"id":"c2","name":"teleport","arguments":"{}"},{"id":"c3","name":"read_file","arguments":"{\"file\":\"x\"}"}]},
			{"text":"recovered"}]}`,
			check: func(t *testing.T, s *session, r lspclient.TaskResult) {
				var results []string
				for _, m := range s.LLM.Requests()[1].Body.Messages {
					if m.Role == "tool" {
						results = append(results, m.Content)
					}
				}
				if len(results) != 3 || !strings.Contains(results[0], "not valid JSON") || !strings.Contains(results[1], "unknown tool") ||
					!strings.Contains(results[2], `"path"`) {
					t.Errorf("tool errors %q", results)
				}
			}},
		{name: "1 MB tool output is capped", status: "ok", script: `{"turns":[
			{"toolCalls":[{"id":"c1","name":"read_file","arguments":"{\"path\":\"big.txt\",\"limit\":100000}"}]},
			{"text":"read"}]}`,
			check: func(t *testing.T, s *session, r lspclient.TaskResult) {
				msgs := s.LLM.Requests()[1].Body.Messages
				out := msgs[len(msgs)-1].Content
				if len(out) > 300_000 {
					t.Errorf("tool output of %d bytes reached the model", len(out))
				}
			}},
		{name: "maxSteps", status: "error", reason: "maxSteps", settings: map[string]any{"agent": map[string]any{"maxSteps": 2}}, script: `{"turns":[
			{"toolCalls":[{"id":"c1","name":"list_files","arguments":"{}"}]},
			{"toolCalls":[{"id":"c2","name":"read_file","arguments":"{\"path\":\"big.txt\",\"limit\":1}"}]},
			{"text":"never"}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, setup{script: tc.script, settings: tc.settings,
				files: map[string]string{"big.txt": strings.Repeat(strings.ReplaceAll(big, "\\n", "\n"), 10_000)}})
			r := s.run(t, map[string]any{"task": "go"})
			if r.Status != tc.status || tc.reason != "" && r.Reason != tc.reason || !strings.Contains(r.Error, tc.errHas) {
				t.Fatalf("got status %q reason %q error %q; want %q %q %q", r.Status, r.Reason, r.Error, tc.status, tc.reason, tc.errHas)
			}
			if tc.check != nil {
				tc.check(t, s, r)
			}
		})
	}
}

// 300 turns of history stay within the context window.
func TestLongHistoryCompacts(t *testing.T) {
	var turns []string
	for i := 0; i < 300; i++ {
		turns = append(turns, fmt.Sprintf(`{"toolCalls":[{"id":"c%d","name":"read_file","arguments":"{\"path\":\"big.txt\",\"offset\":%d,\"limit\":40}"}]}`, i, i+1))
	}
	turns = append(turns, `{"text":"summary of earlier work"}`, `{"text":"done"}`)
	s := start(t, setup{script: `{"turns":[` + strings.Join(turns, ",") + `]}`,
		settings: map[string]any{"agent": map[string]any{"maxSteps": 400}, "llm": map[string]any{"contextTokens": 16000}},
		files:    map[string]string{"big.txt": strings.Repeat(strings.Repeat("y", 100)+"\n", 1000)}})
	r := s.run(t, map[string]any{"task": "read it all"})
	// The fake model answers the summary call with the next scripted turn,
	// so the task may end early; what matters is that no request overflowed.
	_ = r
	largest := 0
	for _, q := range s.LLM.Requests() {
		n := 0
		for _, m := range q.Body.Messages {
			n += len(m.Content) + 16
		}
		largest = max(largest, n)
	}
	compactions := 0
	for _, ev := range s.Events("") {
		if ev["kind"] == "compaction" {
			compactions++
		}
	}
	t.Logf("%d requests, largest %d bytes, %d compactions", len(s.LLM.Requests()), largest, compactions)
	if compactions == 0 {
		t.Error("no compaction in 300 turns with a 16k window")
	}
	if largest > 16000*4 {
		t.Errorf("a request of %d bytes exceeds a 16k-token window", largest)
	}
}
