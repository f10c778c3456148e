//lint:file-ignore ST1005 the error messages are OpenAI's, word for word, as clients see them

package fakellm

// POST /v1/responses: the same scripts as chat completions, streamed as
// OpenAI's Responses API events. The request's input items are converted
// to chat messages so that recording, the conversation checks and Expect
// work unchanged.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ResponsesRequest is what a /v1/responses request carried beyond its
// messages (which are in RecordedRequest.Body, instructions first as a
// system message).
type ResponsesRequest struct {
	Instructions       string `json:"instructions,omitempty"`
	Store              *bool  `json:"store,omitempty"`
	ReasoningEffort    string `json:"reasoningEffort,omitempty"`
	PreviousResponseID string `json:"previousResponseId,omitempty"`
	MaxOutputTokens    int    `json:"maxOutputTokens,omitempty"`
	// PromptCacheKey is prompt_cache_key, which routes requests that
	// share a prefix to the same cache.
	PromptCacheKey string `json:"promptCacheKey,omitempty"`
	// Include is the request's include list.
	Include []string `json:"include,omitempty"`
	// Items lists the input items in order as "type" or "type:detail":
	// message:role, function_call:call_id, function_call_output:call_id,
	// reasoning:encrypted_content.
	Items []string `json:"items,omitempty"`
}

type wireResponsesRequest struct {
	Model              string          `json:"model"`
	Instructions       string          `json:"instructions"`
	Input              json.RawMessage `json:"input"`
	Tools              []wireRespTool  `json:"tools"`
	Stream             bool            `json:"stream"`
	Store              *bool           `json:"store"`
	PreviousResponseID string          `json:"previous_response_id"`
	MaxOutputTokens    int             `json:"max_output_tokens"`
	Include            []string        `json:"include"`
	PromptCacheKey     string          `json:"prompt_cache_key"`
	Reasoning          *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
}

type wireRespTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
	Format      json.RawMessage `json:"format"`
}

type wireRespItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments *string         `json:"arguments"`
	Output    *string         `json:"output"`
	// custom tool calls
	Input *string `json:"input"`
	// reasoning items
	EncryptedContent *string         `json:"encrypted_content"`
	Summary          json.RawMessage `json:"summary"`
	Status           string          `json:"status"`
}

// decodeResponsesRequest converts a Responses request to the chat shape and
// checks it as OpenAI would.
func decodeResponsesRequest(body []byte) (ChatRequest, ResponsesRequest, error) {
	var w wireResponsesRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return ChatRequest{}, ResponsesRequest{}, fmt.Errorf("request body is not valid JSON: %v", err)
	}
	extra := ResponsesRequest{Instructions: w.Instructions, Store: w.Store, PreviousResponseID: w.PreviousResponseID, MaxOutputTokens: w.MaxOutputTokens, Include: w.Include, PromptCacheKey: w.PromptCacheKey}
	if w.Reasoning != nil {
		extra.ReasoningEffort = w.Reasoning.Effort
	}
	r := ChatRequest{Model: w.Model, Stream: w.Stream}
	for i, t := range w.Tools {
		if t.Type == "custom" {
			if t.Name == "" || len(t.Parameters) > 0 {
				return r, extra, fmt.Errorf("tools[%d]: a custom tool has a name and no parameters", i)
			}
			tl := Tool{Name: t.Name, Description: t.Description, Custom: true}
			if len(t.Format) > 0 && string(t.Format) != "null" {
				var f struct{ Type, Syntax, Definition string }
				if err := json.Unmarshal(t.Format, &f); err != nil || f.Type != "grammar" || (f.Syntax != "lark" && f.Syntax != "regex") || f.Definition == "" {
					return r, extra, fmt.Errorf("tools[%d]: a custom tool's format is {\"type\": \"grammar\", \"syntax\": \"lark\" or \"regex\", \"definition\": …}, got %s", i, t.Format)
				}
				tl.Grammar = f.Definition
			}
			r.Tools = append(r.Tools, tl)
			continue
		}
		if t.Type != "function" {
			return r, extra, fmt.Errorf("tools[%d]: fakellm serves only function tools, got %q", i, t.Type)
		}
		// Function tools are strict unless told otherwise, and a strict
		// schema must close every object.
		if (t.Strict == nil || *t.Strict) && !bytes.Contains(t.Parameters, []byte(`"additionalProperties":false`)) {
			return r, extra, fmt.Errorf("Invalid schema for function '%s': In context=(), 'additionalProperties' is required to be supplied and to be false (tools[%d] is strict by default; send \"strict\": false)", t.Name, i)
		}
		r.Tools = append(r.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	if w.Instructions != "" {
		r.Messages = append(r.Messages, Message{Role: "system", Content: w.Instructions, HasContent: true})
	}
	var text string
	if err := json.Unmarshal(w.Input, &text); err == nil {
		r.Messages = append(r.Messages, Message{Role: "user", Content: text, HasContent: true})
		return r, extra, r.check()
	}
	var items []wireRespItem
	if err := json.Unmarshal(w.Input, &items); err != nil {
		return r, extra, fmt.Errorf("'input' must be a string or an array of items")
	}
	for i, it := range items {
		switch it.Type {
		case "", "message":
			extra.Items = append(extra.Items, "message:"+it.Role)
		case "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output":
			extra.Items = append(extra.Items, it.Type+":"+it.CallID)
		case "reasoning":
			if it.EncryptedContent == nil || it.Summary == nil {
				return r, extra, fmt.Errorf("Missing required parameter: 'input[%d]' (a reasoning item needs summary, and encrypted_content when store is false)", i)
			}
			if it.Status != "" {
				return r, extra, fmt.Errorf("Unknown parameter: 'input[%d].status'", i)
			}
			extra.Items = append(extra.Items, "reasoning:"+*it.EncryptedContent)
		}
		switch it.Type {
		case "", "message":
			text, images, has, err := flattenContent(it.Content)
			if err != nil {
				return r, extra, fmt.Errorf("input[%d].content: %v", i, err)
			}
			r.Messages = append(r.Messages, Message{Role: it.Role, Content: text, Images: images, HasContent: has})
		case "function_call":
			if it.CallID == "" || it.Name == "" || it.Arguments == nil {
				return r, extra, fmt.Errorf("Missing required parameter: 'input[%d]' needs call_id, name and arguments", i)
			}
			call := ToolCall{ID: it.CallID, Name: it.Name, Arguments: *it.Arguments}
			// Calls following an assistant message belong to it, as in chat.
			if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "assistant" {
				r.Messages[n-1].ToolCalls = append(r.Messages[n-1].ToolCalls, call)
			} else {
				r.Messages = append(r.Messages, Message{Role: "assistant", HasContent: false, ToolCalls: []ToolCall{call}})
			}
		case "custom_tool_call":
			if it.CallID == "" || it.Name == "" || it.Input == nil {
				return r, extra, fmt.Errorf("Missing required parameter: 'input[%d]' needs call_id, name and input", i)
			}
			args, _ := json.Marshal(map[string]string{"input": *it.Input})
			call := ToolCall{ID: it.CallID, Name: it.Name, Arguments: string(args)}
			if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "assistant" {
				r.Messages[n-1].ToolCalls = append(r.Messages[n-1].ToolCalls, call)
			} else {
				r.Messages = append(r.Messages, Message{Role: "assistant", HasContent: false, ToolCalls: []ToolCall{call}})
			}
		case "function_call_output", "custom_tool_call_output":
			if it.Output == nil {
				return r, extra, fmt.Errorf("Missing required parameter: 'input[%d].output'", i)
			}
			r.Messages = append(r.Messages, Message{Role: "tool", ToolCallID: it.CallID, Content: *it.Output, HasContent: true})
		case "reasoning":
		default:
			return r, extra, fmt.Errorf("Invalid value: '%s' (input[%d].type)", it.Type, i)
		}
	}
	return r, extra, r.check()
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, ErrorReply{Message: "fakellm: read body: " + err.Error()})
		return
	}
	req, extra, reqErr := decodeResponsesRequest(body)
	idx, turn, ok := s.begin(w, r, RecordedRequest{API: "responses", Body: req, Responses: &extra})
	if !ok {
		return
	}
	ctx := r.Context()
	if reqErr == nil && !req.Stream {
		reqErr = fmt.Errorf("fakellm: /v1/responses answers only streaming requests (\"stream\": true)")
	}
	if s.rejected(w, idx, turn, req, reqErr) {
		return
	}
	s.logf("turn %d (responses): %d text bytes, %d tool calls", idx, len(turn.Text), len(turn.ToolCalls))
	a := newAnswer(idx, turn, req)
	// Unlike chat there is no [DONE]: the stream ends after
	// response.completed, and a break placed past it cuts the body's end.
	steps := a.responseSteps()
	s.sse(ctx, w, turn, steps, len(steps))
}

func redactedAuth(h string) string {
	if scheme, _, ok := strings.Cut(h, " "); ok {
		return scheme + " [redacted]"
	} else if h != "" {
		return "[redacted]"
	}
	return ""
}
