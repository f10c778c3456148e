//lint:file-ignore ST1005 the error messages are OpenAI's, word for word, as clients see them

package fakellm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/textcut"
)

// RecordedRequest is one chat completion request as the server received it.
type RecordedRequest struct {
	// Turn is the index of the turn that answered, -1 when the script
	// was exhausted, or 1000+i when aside i answered.
	Turn int `json:"turn"`
	// Authorization is "" when the header was absent, else its scheme
	// followed by "[redacted]": tests may check a key was sent, never which.
	Authorization string      `json:"authorization,omitempty"`
	Body          ChatRequest `json:"body"`
	// API is "responses" for POST /v1/responses ("" for chat), whose
	// other fields are in Responses.
	API       string            `json:"api,omitempty"`
	Responses *ResponsesRequest `json:"responses,omitempty"`
}

// ChatRequest is the decoded body of POST /v1/chat/completions, flattened:
// message content parts are joined into one string.
type ChatRequest struct {
	Model               string         `json:"model"`
	Messages            []Message      `json:"messages"`
	Tools               []Tool         `json:"tools,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *StreamOptions `json:"stream_options,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
}

// StreamOptions is the request's stream_options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is one request message. HasContent tells a missing content field
// from an empty one: OpenAI rejects tool messages without content.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	HasContent bool       `json:"hasContent"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	Name       string     `json:"name,omitempty"`
	// Images are the image parts' URLs (data: URLs as clients send them),
	// from chat's image_url parts and the Responses API's input_image.
	Images []string `json:"images,omitempty"`
}

// Tool is a tool offered in the request.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// Custom is a freeform (custom) tool of the Responses API: its calls
	// carry one string, recorded as the arguments {"input": …}.
	Custom bool `json:"custom,omitempty"`
	// Grammar is a custom tool's format: the grammar its input is held to.
	Grammar string `json:"grammar,omitempty"`
}

// The wire shapes, only for decoding.
type wireRequest struct {
	Model               string         `json:"model"`
	Messages            []wireMessage  `json:"messages"`
	Tools               []wireTool     `json:"tools"`
	Stream              bool           `json:"stream"`
	StreamOptions       *StreamOptions `json:"stream_options"`
	MaxTokens           int            `json:"max_tokens"`
	MaxCompletionTokens int            `json:"max_completion_tokens"`
	Temperature         *float64       `json:"temperature"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []wireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string  `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// decodeRequest decodes a chat request and checks it the way OpenAI does, so
// a client bug that OpenAI would answer with 400 fails here too.
func decodeRequest(body []byte) (ChatRequest, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return ChatRequest{}, fmt.Errorf("request body is not valid JSON: %v", err)
	}
	r := ChatRequest{
		Model:               w.Model,
		Stream:              w.Stream,
		StreamOptions:       w.StreamOptions,
		MaxTokens:           w.MaxTokens,
		MaxCompletionTokens: w.MaxCompletionTokens,
		Temperature:         w.Temperature,
	}
	for _, t := range w.Tools {
		r.Tools = append(r.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	for i, wm := range w.Messages {
		m := Message{Role: wm.Role, ToolCallID: wm.ToolCallID, Name: wm.Name}
		text, images, has, err := flattenContent(wm.Content)
		if err != nil {
			return r, fmt.Errorf("messages[%d].content: %v", i, err)
		}
		m.Content, m.Images, m.HasContent = text, images, has
		for j, c := range wm.ToolCalls {
			if c.Function.Arguments == nil {
				return r, fmt.Errorf("Missing required parameter: 'messages[%d].tool_calls[%d].function.arguments'", i, j)
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: *c.Function.Arguments})
		}
		r.Messages = append(r.Messages, m)
	}
	return r, r.check()
}

// flattenContent accepts a string, null, or an array of content parts:
// text parts are joined into one string, image parts (chat's image_url
// {url}, the Responses API's input_image with image_url) give their URLs.
func flattenContent(raw json.RawMessage) (string, []string, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil, true, nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		ImageURL json.RawMessage `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, false, fmt.Errorf("neither a string nor an array of parts")
	}
	var b strings.Builder
	var images []string
	for i, p := range parts {
		switch p.Type {
		case "image_url", "input_image":
			var url string
			if p.Type == "image_url" {
				var u struct {
					URL string `json:"url"`
				}
				_ = json.Unmarshal(p.ImageURL, &u)
				url = u.URL
			} else {
				_ = json.Unmarshal(p.ImageURL, &url)
			}
			if url == "" {
				return "", nil, false, fmt.Errorf("Missing required parameter: 'content[%d].image_url'", i)
			}
			images = append(images, url)
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String(), images, true, nil
}

// check enforces the conversation rules OpenAI enforces.
func (r ChatRequest) check() error {
	if r.Model == "" {
		return fmt.Errorf("you must provide a model parameter")
	}
	if len(r.Messages) == 0 {
		return fmt.Errorf("'messages' must contain at least one message")
	}
	var pending map[string]bool // tool call ids still waiting for their result
	for i, m := range r.Messages {
		if m.Role != "tool" && len(pending) > 0 {
			return fmt.Errorf("an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; messages[%d] (%s) came before the results for %s", i, m.Role, sortedKeys(pending))
		}
		switch m.Role {
		case "system", "developer", "user":
			if !m.HasContent {
				return fmt.Errorf("Missing required parameter: 'messages[%d].content'", i)
			}
		case "assistant":
			if len(m.ToolCalls) > 0 {
				pending = map[string]bool{}
				for j, c := range m.ToolCalls {
					if c.ID == "" {
						return fmt.Errorf("Missing required parameter: 'messages[%d].tool_calls[%d].id'", i, j)
					}
					pending[c.ID] = true
				}
			}
		case "tool":
			if !m.HasContent {
				return fmt.Errorf("Missing required parameter: 'messages[%d].content'", i)
			}
			if !pending[m.ToolCallID] {
				return fmt.Errorf("Invalid parameter: messages[%d] with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id %q)", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		default:
			return fmt.Errorf("Invalid value: '%s'. Supported values are: 'system', 'developer', 'assistant', 'user' and 'tool' (messages[%d].role)", m.Role, i)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing %s", sortedKeys(pending))
	}
	return nil
}

func sortedKeys(m map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// lastContent returns the content of the last message with role.
func (r ChatRequest) lastContent(role string) (string, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == role {
			return r.Messages[i].Content, true
		}
	}
	return "", false
}

// expectMismatch returns what diverged from e, or "".
func (r ChatRequest) expectMismatch(turn int, e *Expect) string {
	if e == nil {
		return ""
	}
	for _, c := range []struct{ role, want string }{
		{"user", e.LastUserContains},
		{"tool", e.LastToolContains},
	} {
		if c.want == "" {
			continue
		}
		got, ok := r.lastContent(c.role)
		if !ok {
			return fmt.Sprintf("fakellm: turn %d expected a %s message containing %q, but the request has no %s message", turn, c.role, c.want, c.role)
		}
		if !strings.Contains(got, c.want) {
			return fmt.Sprintf("fakellm: turn %d expected the last %s message to contain %q, got %q", turn, c.role, c.want, clip(got, 300))
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Head(s, n) + "…"
}
