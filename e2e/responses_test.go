package e2e

import (
	"strings"
	"testing"
)

// With llm.api "responses", a task with one tool call runs through the
// real binary over /v1/responses: the call streams in argument deltas, its
// result goes back as a function_call_output, and the task ends ok.
func TestResponsesAPITask(t *testing.T) {
	s := start(t, setup{workspace: "hello",
		settings: map[string]any{"llm": map[string]any{"api": "responses", "reasoningEffort": "low"}},
		script: `{"turns":[
			{"text":"Reading.","chunkSize":3,"toolCalls":[{"id":"call_read","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}],
			 "usage":{"prompt_tokens":100,"completion_tokens":40,"reasoning_tokens":30}},
			{"expect":{"lastToolContains":"hello world"},"text":"The file says hello world.",
			 "usage":{"prompt_tokens":150,"completion_tokens":20,"reasoning_tokens":5}}]}`})
	r := s.run(t, map[string]any{"task": "what does hello.txt say?"})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	reqs := s.LLM.Requests()
	if len(reqs) != 2 || s.LLM.Pending() != 0 {
		t.Fatalf("%d requests, %d turns left", len(reqs), s.LLM.Pending())
	}
	for i, req := range reqs {
		x := req.Responses
		if req.API != "responses" || x == nil || x.ReasoningEffort != "low" || x.Store == nil || *x.Store || x.Instructions == "" {
			t.Errorf("request %d: api %q extra %+v", i, req.API, x)
		}
	}
	msgs := reqs[1].Body.Messages
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || last.ToolCallID != "call_read" || !strings.Contains(last.Content, "hello world") {
		t.Errorf("the tool result went back as %+v", last)
	}
	if r.Usage.InputTokens != 250 || r.Usage.OutputTokens != 60 {
		t.Errorf("usage %+v, want the server's 250 in, 60 out", r.Usage)
	}
}
