package chat

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/agent"
)

// The request body is built here rather than by go-openai: go-openai
// encodes the whole conversation again on every request, and its
// MarshalJSON output is then compacted again by encoding/json. A task of n
// turns would encode O(n²) bytes. Here each message is encoded once (with
// go-openai's own types, so the bytes are the ones go-openai would send),
// kept, and the next request's body is the cached bytes appended.
//
// go-openai's validation runs on a request without messages or tools
// (validateChat); sse.go sends the body built here and reads the stream
// with go-openai's types and errors.

// msgCacheLimit bounds the encoded bytes kept; past it the older
// generation is dropped. A conversation larger than that still encodes each
// message at most twice per generation.
const msgCacheLimit = 8 << 20

// msgKey finds a cached message cheaply; a hit is confirmed by comparing
// the whole message.
type msgKey struct {
	role, content, toolCallID, firstCallID string
	calls                                  int
}

type msgEntry struct {
	msg agent.Message
	enc []byte
}

// bodyCache holds encoded messages in two generations: entries used by a
// request move to the current one, and when the current one is full the
// old one is dropped, so messages no conversation uses any more go away.
type bodyCache struct {
	mu        sync.Mutex
	cur, prev map[msgKey]msgEntry
	curBytes  int
	tools     []agent.ToolSpec
	toolsEnc  []byte
	// last is the previous request's messages by position: a request is
	// mostly the previous one plus new messages, and comparing a message
	// with the one at its position costs nothing when their strings share
	// bytes, where a map lookup hashes the whole content every turn.
	last  []msgEntry
	spare []msgEntry // the slice before last, reused for the next request
}

func keyOf(m *agent.Message) msgKey {
	k := msgKey{role: string(m.Role), content: m.Content, toolCallID: m.ToolCallID, calls: len(m.ToolCalls)}
	if len(m.ToolCalls) > 0 {
		k.firstCallID = m.ToolCalls[0].ID
	}
	return k
}

func sameMessage(a, b *agent.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || len(a.ToolCalls) != len(b.ToolCalls) ||
		!slices.Equal(a.Images, b.Images) {
		return false
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i] != b.ToolCalls[i] {
			return false
		}
	}
	return true
}

// message returns m, the request's message at position i, encoded as
// go-openai encodes it; the caller holds mu.
func (c *bodyCache) message(i int, m *agent.Message) (msgEntry, error) {
	if i < len(c.last) && sameMessage(&c.last[i].msg, m) {
		return c.last[i], nil
	}
	k := keyOf(m)
	if e, ok := c.cur[k]; ok && sameMessage(&e.msg, m) {
		return e, nil
	}
	if e, ok := c.prev[k]; ok && sameMessage(&e.msg, m) {
		c.put(k, e)
		return e, nil
	}
	enc, err := json.Marshal(openAIMessage(m))
	if err != nil {
		return msgEntry{}, err
	}
	cp := *m
	cp.ToolCalls = append([]agent.ToolCall(nil), m.ToolCalls...)
	cp.Images = append([]agent.Image(nil), m.Images...)
	e := msgEntry{msg: cp, enc: enc}
	c.put(k, e)
	return e, nil
}

func (c *bodyCache) put(k msgKey, e msgEntry) {
	if c.cur == nil || c.curBytes+len(e.enc) > msgCacheLimit {
		c.prev, c.cur, c.curBytes = c.cur, map[msgKey]msgEntry{}, 0
	}
	c.cur[k] = e
	c.curBytes += len(e.enc) + len(e.msg.Content)
}

// toolsJSON returns the tools encoded, reusing the last encoding while the
// tool set is the same; the caller holds mu.
func (c *bodyCache) toolsJSON(tools []agent.ToolSpec) ([]byte, error) {
	if c.toolsEnc != nil && sameTools(c.tools, tools) {
		return c.toolsEnc, nil
	}
	enc, err := json.Marshal(openAITools(tools))
	if err != nil {
		return nil, err
	}
	c.tools, c.toolsEnc = append([]agent.ToolSpec(nil), tools...), enc
	return enc, nil
}

func sameTools(a, b []agent.ToolSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].Parameters, b[i].Parameters) {
			return false
		}
	}
	return true
}

// openAIMessage is m in go-openai's type, as the API wants it.
func openAIMessage(m *agent.Message) openai.ChatCompletionMessage {
	cm := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case agent.RoleUser:
		// With images the content is a list of parts: the text, then
		// each image as a data: URL.
		if len(m.Images) > 0 {
			cm.Content = ""
			if m.Content != "" {
				cm.MultiContent = append(cm.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content})
			}
			for _, im := range m.Images {
				cm.MultiContent = append(cm.MultiContent, openai.ChatMessagePart{
					Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: im.DataURL()},
				})
			}
		}
	case agent.RoleAssistant:
		for _, c := range m.ToolCalls {
			args := c.Arguments
			if args == "" {
				args = "{}" // an absent arguments field is a 400 too
			}
			cm.ToolCalls = append(cm.ToolCalls, openai.ToolCall{
				ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Name, Arguments: args},
			})
		}
	case agent.RoleTool:
		// The name field is left out: OpenAI's tool message has none.
		cm.ToolCallID = m.ToolCallID
		if cm.Content == "" {
			cm.Content = openAINoOutput
		}
	}
	return cm
}

func openAITools(tools []agent.ToolSpec) []openai.Tool {
	out := make([]openai.Tool, 0, len(tools))
	for _, t := range tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, openai.Tool{
			Type:     openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	return out
}

// requestBody is the JSON body of head (model, limits, streaming) with
// req's messages and tools, the same document go-openai would send for
// chatRequest(req).
func (c *bodyCache) requestBody(head openai.ChatCompletionRequest, req agent.Request) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs := c.spare[:0]
	size := 256
	for i := range req.Messages {
		e, err := c.message(i, &req.Messages[i])
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, e)
		size += len(e.enc) + 1
	}
	c.last, c.spare = msgs, c.last
	var tools []byte
	if len(req.Tools) > 0 {
		var err error
		if tools, err = c.toolsJSON(req.Tools); err != nil {
			return nil, err
		}
		size += len(tools)
	}
	model, err := json.Marshal(head.Model)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, size+len(model))
	b = append(b, `{"model":`...)
	b = append(b, model...)
	b = append(b, `,"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m.enc...)
	}
	b = append(b, ']')
	//lint:ignore SA1019 local and older servers know only max_tokens; reasoning models get max_completion_tokens below
	if head.MaxTokens > 0 {
		//lint:ignore SA1019 as above
		b = strconv.AppendInt(append(b, `,"max_tokens":`...), int64(head.MaxTokens), 10)
	}
	if head.MaxCompletionTokens > 0 {
		b = strconv.AppendInt(append(b, `,"max_completion_tokens":`...), int64(head.MaxCompletionTokens), 10)
	}
	b = append(b, `,"stream":true`...)
	if head.StreamOptions != nil && head.StreamOptions.IncludeUsage {
		b = append(b, `,"stream_options":{"include_usage":true}`...)
	}
	if tools != nil {
		b = append(append(b, `,"tools":`...), tools...)
	}
	return append(b, '}'), nil
}

// encodeRequest returns the request's head (no messages, no tools) for
// validation and the body that is sent.
func (o *OpenAI) encodeRequest(req agent.Request) (openai.ChatCompletionRequest, []byte, error) {
	head, err := o.chatRequest(agent.Request{Model: req.Model})
	if err != nil {
		return head, nil, err
	}
	body, err := o.body.requestBody(head, req)
	if err != nil {
		return head, nil, &agent.LLMError{Message: "encode request: " + err.Error(), Err: err}
	}
	return head, body, nil
}

// validateChat runs go-openai's checks on the request as it will be sent,
// tools included (some models refuse tools on this API), since go-openai
// only sees head.
func validateChat(head openai.ChatCompletionRequest, req agent.Request) error {
	if len(req.Tools) > 0 {
		head.Tools = make([]openai.Tool, len(req.Tools))
	}
	return openai.NewReasoningValidator().Validate(head)
}
