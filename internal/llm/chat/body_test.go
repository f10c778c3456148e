package chat

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// The body is the document go-openai would have sent for the same request,
// through appends, edits and compactions, and a request that starts with
// the previous one's messages starts with its bytes (a prompt cache's
// prefix).
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
		_, body, err := o.encodeRequest(req)
		if err != nil {
			t.Fatal(err)
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
	_, short, _ := o.encodeRequest(agent.Request{Messages: msgs[:3], Tools: tools})
	_, long, _ := o.encodeRequest(agent.Request{Messages: msgs, Tools: tools})
	cut := strings.Index(string(short), `,"max_tokens"`)
	if cut < 0 || !strings.HasPrefix(string(long), strings.TrimSuffix(string(short[:cut]), "]")) {
		t.Errorf("the longer request does not start with the shorter one's messages:\n%s\n%s", short, long)
	}
}

// A model that refuses tools on this API is refused before sending, as
// go-openai refused it when it saw the tools itself.
func TestRequestValidatedWithTools(t *testing.T) {
	o := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-6-sol"})
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "x"}}, Tools: []agent.ToolSpec{{Name: "t"}}}
	cr, _, err := o.encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if validateChat(cr) == nil {
		t.Error("a model that refuses tools was sent tools")
	}
	req.Tools = nil
	if cr, _, _ = o.encodeRequest(req); validateChat(cr) != nil {
		t.Errorf("the same model without tools refused: %v", validateChat(cr))
	}
}

// A user message with images goes as content parts: its text, then each
// image as a data: URL; the same message without them stays a string.
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
