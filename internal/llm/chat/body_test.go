package chat

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/testkit/fakellm"
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

// The body's buffer is used again for the next request once the transport
// has written it, and not before: a server that answers before reading a
// large body leaves the transport writing it after Stream returned, and
// the next request must not build its body in those bytes (go test -race
// reports it if it does).
func TestBodyBufferReusedOnlyAfterWrite(t *testing.T) {
	llm, _ := oaiServe(t, OpenAIConfig{}, fakellm.Turn{Text: "one"}, fakellm.Turn{Text: "two"})
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hello"}}}
	if _, err := llm.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	llm.body.mu.Lock()
	free := cap(llm.body.free)
	llm.body.mu.Unlock()
	if free == 0 {
		t.Fatal("the body of a written request was not kept for the next")
	}
	if _, err := llm.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}

	// A server that answers at once and reads the body only after a while:
	// the transport is still writing it when Stream has returned.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				length := 0
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if line == "\r\n" {
						break
					}
					if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length:"); ok {
						length, _ = strconv.Atoi(strings.TrimSpace(v))
					}
				}
				events := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"early\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(events), events)
				time.Sleep(300 * time.Millisecond)
				_, _ = io.CopyN(io.Discard, br, int64(length))
			}()
		}
	}()
	early := NewOpenAI(OpenAIConfig{BaseURL: "http://" + ln.Addr().String(), Model: "m"})
	// The next request is the last one plus a short message: its body is
	// built at once, the big message's bytes copied from the cache.
	big := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: strings.Repeat("x", 32<<20)}}}
	for i := range 3 {
		resp, err := early.Stream(context.Background(), big, nil)
		if err != nil || resp.Content != "early" {
			t.Fatalf("round %d: %q %v", i, resp.Content, err)
		}
		big.Messages = append(big.Messages, agent.Message{Role: agent.RoleUser, Content: fmt.Sprint("next ", i)})
	}
}
