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

// A reasoning model on the Responses API: the request asks for encrypted
// reasoning, and the reasoning items of each turn are replayed in order
// before the function call they preceded, on the next request of the task
// and in a continued session.
func TestResponsesReasoningReplayed(t *testing.T) {
	s := start(t, setup{workspace: "hello",
		settings: map[string]any{"llm": map[string]any{"api": "responses"}},
		env:      []string{"AGENTLS_MODEL=gpt-5-codex"},
		script: `{"turns":[
			{"reasoning":["enc-A","enc-B"],"toolCalls":[{"id":"call_1","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
			{"reasoning":["enc-C"],"toolCalls":[{"id":"call_2","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
			{"reasoning":["enc-D"],"text":"It says hello."},
			{"text":"Still hello."}]}`})
	r := s.run(t, map[string]any{"task": "what does hello.txt say?", "session": "reasoned"})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	var cont struct{ TaskID string }
	if err := s.Command(s.ctx, "agentls.continue", map[string]any{"session": "reasoned", "task": "and now?"}, &cont); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Wait(s.ctx, cont.TaskID, testWait); err != nil || r.Status != "ok" {
		t.Fatalf("continued: %+v %v", r, err)
	}
	reqs := s.LLM.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, req := range reqs {
		if x := req.Responses; x == nil || strings.Join(x.Include, ",") != "reasoning.encrypted_content" {
			t.Errorf("request %d did not ask for encrypted reasoning: %+v", i, x)
		}
	}
	items := func(i int) string {
		var out []string
		for _, it := range reqs[i].Responses.Items {
			if !strings.HasPrefix(it, "message:") {
				out = append(out, it)
			}
		}
		return strings.Join(out, " ")
	}
	want1 := "reasoning:enc-A reasoning:enc-B function_call:call_1 function_call_output:call_1"
	want2 := want1 + " reasoning:enc-C function_call:call_2 function_call_output:call_2"
	if got := items(1); got != want1 {
		t.Errorf("request 2 items: %s\nwant %s", got, want1)
	}
	if got := items(2); got != want2 {
		t.Errorf("request 3 items: %s\nwant %s", got, want2)
	}
	if got := items(3); !strings.HasPrefix(got, want2+" reasoning:enc-D") {
		t.Errorf("continued session's items: %s\nwant %s reasoning:enc-D …", got, want2)
	}
}
