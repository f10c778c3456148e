package responses

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/agent"
)

// noOutput replaces an empty tool result: the API requires an output.
const noOutput = "(no output)"

// Input items that go-openai has no type for.
type functionCallItem struct {
	Type      string `json:"type"` // "function_call"
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionCallOutputItem struct {
	Type   string `json:"type"` // "function_call_output" or "custom_tool_call_output"
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// customCallItem is a call of a custom (freeform) tool: its text is the
// call's input, not JSON arguments.
type customCallItem struct {
	Type   string `json:"type"` // "custom_tool_call"
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Input  string `json:"input"`
}

// freeformInput is the text of a freeform tool's call: its arguments'
// input field, or the arguments themselves when they are not that object.
func freeformInput(args string) string {
	var a struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Input != nil {
		return *a.Input
	}
	return args
}

// request maps the conversation to input items. The system messages that
// open the conversation become instructions; later ones (summaries after
// compaction) stay in place as developer messages.
func (b *Backend) request(req agent.Request) (openai.CreateResponseRequest, error) {
	model := req.Model
	if model == "" {
		model = b.cfg.Model
	}
	if model == "" {
		return openai.CreateResponseRequest{}, &agent.LLMError{Message: "no model configured (set llm.model or AGENTLS_MODEL)"}
	}
	store := false
	rr := openai.CreateResponseRequest{
		Model:           model,
		Stream:          true,
		Store:           &store,
		MaxOutputTokens: b.cfg.MaxTokens,
		PromptCacheKey:  req.CacheKey,
	}
	if b.cfg.ReasoningEffort != "" {
		rr.Reasoning = &openai.ResponseReasoning{Effort: b.cfg.ReasoningEffort}
	}
	if b.cfg.ReasoningEffort != "" || IsReasoningModel(model) {
		rr.Include = []openai.ResponseInclude{openai.ResponseIncludeReasoningEncryptedContent}
	}
	msgs := req.Messages
	var instructions string
	for len(msgs) > 0 && msgs[0].Role == agent.RoleSystem {
		if instructions != "" {
			instructions += "\n\n"
		}
		instructions += msgs[0].Content
		msgs = msgs[1:]
	}
	rr.Instructions = instructions
	freeform := map[string]bool{}
	for _, t := range req.Tools {
		if t.Freeform {
			freeform[t.Name] = true
		}
	}
	custom := map[string]bool{} // call ids of custom tool calls
	input := []any{}
	for _, m := range msgs {
		switch m.Role {
		case agent.RoleSystem:
			input = append(input, openai.ResponseInputMessage{Type: "message", Role: "developer", Content: m.Content})
		case agent.RoleUser:
			input = append(input, openai.ResponseInputMessage{Type: "message", Role: "user", Content: userContent(m)})
		case agent.RoleAssistant:
			// The reasoning that led to this turn comes first, as it did
			// in the output.
			for _, r := range m.Reasoning {
				input = append(input, replayItem(r))
			}
			if m.Content != "" {
				input = append(input, openai.ResponseInputMessage{Type: "message", Role: "assistant", Content: m.Content})
			}
			for _, c := range m.ToolCalls {
				if freeform[c.Name] {
					custom[c.ID] = true
					input = append(input, customCallItem{Type: "custom_tool_call", CallID: c.ID, Name: c.Name, Input: freeformInput(c.Arguments)})
					continue
				}
				args := c.Arguments
				if args == "" {
					args = "{}"
				}
				input = append(input, functionCallItem{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: args})
			}
		case agent.RoleTool:
			out := m.Content
			if out == "" {
				out = noOutput
			}
			kind := "function_call_output"
			if custom[m.ToolCallID] {
				kind = "custom_tool_call_output"
			}
			input = append(input, functionCallOutputItem{Type: kind, CallID: m.ToolCallID, Output: out})
		}
	}
	rr.Input = input
	for _, t := range req.Tools {
		if t.Freeform {
			// A custom tool: the model writes the input as free text
			// (a patch), with no JSON to escape.
			p := map[string]any{"name": t.Name}
			if t.Description != "" {
				p["description"] = t.Description
			}
			if t.Grammar != "" {
				p["format"] = map[string]any{"type": "grammar", "syntax": "lark", "definition": t.Grammar}
			}
			rr.Tools = append(rr.Tools, openai.Tool{Type: "custom", Parameters: p})
			continue
		}
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		// strict false: function tools are strict by default in this API,
		// and our schemas (optional fields, open objects) are not.
		p := map[string]any{"name": t.Name, "parameters": params, "strict": false}
		if t.Description != "" {
			p["description"] = t.Description
		}
		rr.Tools = append(rr.Tools, openai.Tool{Type: openai.ToolTypeFunction, Parameters: p})
	}
	return rr, nil
}

// userContent is a user message's content: its text, or with images a list
// of parts, input_text then one input_image (a data: URL) per image.
func userContent(m agent.Message) any {
	if len(m.Images) == 0 {
		return m.Content
	}
	parts := []any{}
	if m.Content != "" {
		parts = append(parts, openai.ResponseInputText{Type: "input_text", Text: m.Content})
	}
	for _, im := range m.Images {
		parts = append(parts, openai.ResponseInputImage{Type: "input_image", ImageURL: im.DataURL()})
	}
	return parts
}
