package chat

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/agent"
)

// The request body is go-openai's request type marshalled with
// encoding/json: the whole conversation is encoded again on every request.
// A per-message cache of encodings once saved that work; measured against a
// model streaming at a realistic rate it was not a cost a user could feel,
// and it was a second copy of every message to keep in step. sse.go sends
// the body and reads the stream with go-openai's types and errors.

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

// encodeRequest returns the request in go-openai's type, for validation,
// and the body that is sent.
func (o *OpenAI) encodeRequest(req agent.Request) (openai.ChatCompletionRequest, []byte, error) {
	cr, err := o.chatRequest(req)
	if err != nil {
		return cr, nil, err
	}
	body, err := json.Marshal(cr)
	if err != nil {
		return cr, nil, &agent.LLMError{Message: "encode request: " + err.Error(), Err: err}
	}
	return cr, body, nil
}

// validateChat runs go-openai's checks on the request as it will be sent,
// tools included (some models refuse tools on this API).
func validateChat(cr openai.ChatCompletionRequest) error {
	return openai.NewReasoningValidator().Validate(cr)
}
