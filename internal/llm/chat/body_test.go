package chat

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// The body built from cached messages is the document go-openai would have
// sent for the same request, through appends, edits and compactions.
func TestRequestBodyMatchesGoOpenAI(t *testing.T) {
	o := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m", MaxTokens: 99})
	tools := []agent.ToolSpec{
		{Name: "read_file", Description: "reads <a> & \"b\"", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "noargs", Description: "no parameters"},
	}
	msgs := []agent.Message{
		{Role: agent.RoleSystem, Content: "system <prompt> & \u2028 stuff"},
		{Role: agent.RoleUser, Content: "fix it 😀"},
		{Role: agent.RoleAssistant, Content: "", ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}, {ID: "c2", Name: "noargs"}}},
		{Role: agent.RoleTool, ToolCallID: "c1", Name: "read_file", Content: "package a\n\tfunc()\x00"},
		{Role: agent.RoleTool, ToolCallID: "c2", Name: "noargs", Content: ""},
		{Role: agent.RoleAssistant, Content: "done"},
	}
	check := func(name string, req agent.Request) {
		t.Helper()
		head, body, err := o.encodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		if head.Messages != nil || head.Tools != nil {
			t.Fatalf("%s: go-openai is handed messages or tools", name)
		}
		full, err := o.chatRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(full)
		var got, exp any
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("%s: body is not JSON: %v\n%s", name, err, body)
		}
		_ = json.Unmarshal(want, &exp)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s:\n got %s\nwant %s", name, body, want)
		}
	}
	for n := 1; n <= len(msgs); n++ {
		check("prefix", agent.Request{Messages: msgs[:n], Tools: tools})
	}
	// An edited message (same role and call id, new content) is not served
	// from the cache.
	edited := append([]agent.Message(nil), msgs...)
	edited[3].Content = "package b"
	check("edited", agent.Request{Messages: edited, Tools: tools})
	edited[2].ToolCalls = []agent.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"b.go"}`}, {ID: "c2", Name: "noargs"}}
	check("edited call", agent.Request{Messages: edited, Tools: tools[:1]})
	check("compacted", agent.Request{Model: "other", Messages: []agent.Message{msgs[0], {Role: agent.RoleUser, Content: "summary"}}})
	// Each message was encoded once: the same request again reuses the bytes.
	_, a, _ := o.encodeRequest(agent.Request{Messages: msgs, Tools: tools})
	o.body.mu.Lock()
	enc := o.body.cur[keyOf(&msgs[1])].enc
	o.body.mu.Unlock()
	_, b, _ := o.encodeRequest(agent.Request{Messages: msgs, Tools: tools})
	o.body.mu.Lock()
	again := o.body.cur[keyOf(&msgs[1])].enc
	o.body.mu.Unlock()
	if string(a) != string(b) || len(enc) == 0 || &enc[0] != &again[0] {
		t.Error("the second request re-encoded its messages")
	}
}

// A model that refuses tools on this API is refused before sending, as
// go-openai refused it when it saw the tools itself.
func TestRequestValidatedWithTools(t *testing.T) {
	o := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-6-sol"})
	head, _, err := o.encodeRequest(agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "x"}}, Tools: []agent.ToolSpec{{Name: "t"}}})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := o.chatRequest(agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "x"}}, Tools: []agent.ToolSpec{{Name: "t"}}})
	want := validateChat(full, agent.Request{})
	got := validateChat(head, agent.Request{Tools: []agent.ToolSpec{{Name: "t"}}})
	if want == nil {
		t.Fatal("go-openai accepts tools for this model: the case tests nothing")
	}
	if (want == nil) != (got == nil) || (got != nil && got.Error() != want.Error()) {
		t.Errorf("validation %v, go-openai's %v", got, want)
	}
}

// A user message with images goes as content parts: its text, then each
// image as a data: URL; the same message without them stays a string, and
// the cache never serves one for the other.
func TestRequestBodySendsImagesAsParts(t *testing.T) {
	o := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	img := agent.Image{MIME: "image/png", Data: "iVBORw0KGgo=", Name: "shot.png"}
	with := []agent.Message{{Role: agent.RoleSystem, Content: "s"}, {Role: agent.RoleUser, Content: "what is this?", Images: []agent.Image{img}}}
	without := []agent.Message{with[0], {Role: agent.RoleUser, Content: "what is this?"}}
	decode := func(req agent.Request) any {
		t.Helper()
		_, body, err := o.encodeRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		return doc.Messages[1].Content
	}
	if got := decode(agent.Request{Messages: without}); got != "what is this?" {
		t.Errorf("text-only content = %#v, want the string", got)
	}
	want := []any{
		map[string]any{"type": "text", "text": "what is this?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw0KGgo="}},
	}
	if got := decode(agent.Request{Messages: with}); !reflect.DeepEqual(got, want) {
		t.Errorf("content = %#v\nwant %#v", got, want)
	}
	if got := decode(agent.Request{Messages: without}); got != "what is this?" {
		t.Errorf("after an image, text-only content = %#v: served from the cache", got)
	}
}
