package fakellm

import (
	"encoding/json"
	"fmt"
)

// respEvent is one Responses API stream event; fields left zero are
// omitted, the type says which ones the event has.
type respEvent struct {
	Type           string          `json:"type"`
	SequenceNumber int             `json:"sequence_number"`
	Response       *respObject     `json:"response,omitempty"`
	OutputIndex    *int            `json:"output_index,omitempty"`
	ContentIndex   *int            `json:"content_index,omitempty"`
	ItemID         string          `json:"item_id,omitempty"`
	Item           *respItem       `json:"item,omitempty"`
	Part           *respPart       `json:"part,omitempty"`
	Delta          *string         `json:"delta,omitempty"`
	Text           *string         `json:"text,omitempty"`
	Arguments      *string         `json:"arguments,omitempty"`
	Input          *string         `json:"input,omitempty"`
	Code           string          `json:"code,omitempty"`
	Message        string          `json:"message,omitempty"`
	Param          json.RawMessage `json:"param,omitempty"`
}

type respObject struct {
	ID        string      `json:"id"`
	Object    string      `json:"object"`
	CreatedAt int64       `json:"created_at"`
	Status    string      `json:"status"`
	Model     string      `json:"model"`
	Output    []respItem  `json:"output"`
	Usage     *respUsage  `json:"usage"`
	Error     *respError  `json:"error"`
	Store     bool        `json:"store"`
	Reasoning *respReason `json:"reasoning,omitempty"`
}

type respReason struct {
	Effort string `json:"effort"`
}

type respError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type respItem struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Status string `json:"status"`
	Role   string `json:"role,omitempty"`
	// Content is a message's parts; a pointer so that a message item
	// carries "content": [] when it has none yet (clients such as Codex
	// need it to accept the text deltas that follow), while a function
	// call item has no content field.
	Content   *[]respPart `json:"content,omitempty"`
	CallID    string      `json:"call_id,omitempty"`
	Name      string      `json:"name,omitempty"`
	Arguments *string     `json:"arguments,omitempty"`
	// Input is a custom tool call's text.
	Input *string `json:"input,omitempty"`
	// Reasoning items: an empty summary and the encrypted content.
	Summary          *[]any  `json:"summary,omitempty"`
	EncryptedContent *string `json:"encrypted_content,omitempty"`
}

type respPart struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type respUsage struct {
	InputTokens         int `json:"input_tokens"`
	InputTokensDetails  any `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails any `json:"output_tokens_details"`
	TotalTokens         int `json:"total_tokens"`
}

// responseSteps renders the turn as Responses API events grouped into
// steps. Faults count steps the way chat counts chunks: step 0 is the
// preamble (response.created and response.in_progress), then one step per
// text or argument delta, the events that open or close an item riding
// with their first or last delta, then response.completed.
func (a answer) responseSteps() [][]byte {
	size := a.turn.ChunkSize
	if size <= 0 {
		size = 8
	}
	seq := 0
	var steps [][]byte
	var cur []byte
	emit := func(ev respEvent) {
		ev.SequenceNumber = seq
		seq++
		cur = fmt.Appendf(cur, "event: %s\ndata: %s\n\n", ev.Type, mustJSON(ev))
	}
	flush := func() { steps = append(steps, cur); cur = nil }
	obj := respObject{ID: fmt.Sprintf("resp_fake_%s", a.id), Object: "response", CreatedAt: a.created, Status: "in_progress", Model: a.model, Output: []respItem{}}
	first := obj
	emit(respEvent{Type: "response.created", Response: &first})
	emit(respEvent{Type: "response.in_progress", Response: &first})
	flush()

	var output []respItem
	for i, enc := range a.turn.Reasoning {
		out, enc := len(output), enc
		item := respItem{ID: fmt.Sprintf("rs_%s_%d", a.id, i), Type: "reasoning", Status: "in_progress", Summary: &[]any{}}
		emit(respEvent{Type: "response.output_item.added", OutputIndex: &out, Item: &item})
		flush()
		done := item
		done.Status, done.EncryptedContent = "completed", &enc
		emit(respEvent{Type: "response.output_item.done", OutputIndex: &out, Item: &done})
		output = append(output, done)
	}
	if a.turn.Text != "" {
		out, zero := len(output), 0
		item := respItem{ID: "msg_" + a.id, Type: "message", Status: "in_progress", Role: "assistant", Content: &[]respPart{}}
		emit(respEvent{Type: "response.output_item.added", OutputIndex: &out, Item: &item})
		emit(respEvent{Type: "response.content_part.added", OutputIndex: &out, ContentIndex: &zero, ItemID: item.ID, Part: &respPart{Type: "output_text", Annotations: []any{}}})
		for _, piece := range splitUTF8(a.turn.Text, size) {
			emit(respEvent{Type: "response.output_text.delta", OutputIndex: &out, ContentIndex: &zero, ItemID: item.ID, Delta: &piece})
			flush()
		}
		text := a.turn.Text
		part := respPart{Type: "output_text", Text: text, Annotations: []any{}}
		emit(respEvent{Type: "response.output_text.done", OutputIndex: &out, ContentIndex: &zero, ItemID: item.ID, Text: &text})
		emit(respEvent{Type: "response.content_part.done", OutputIndex: &out, ContentIndex: &zero, ItemID: item.ID, Part: &part})
		item.Status, item.Content = "completed", &[]respPart{part}
		emit(respEvent{Type: "response.output_item.done", OutputIndex: &out, Item: &item})
		output = append(output, item)
	}
	for i, c := range a.calls {
		out, empty := len(output), ""
		if a.custom[c.Name] {
			// A freeform tool: the call's text is the arguments' input
			// field (scripts write arguments for both kinds alike).
			var in struct {
				Input *string `json:"input"`
			}
			input := c.Arguments
			if json.Unmarshal([]byte(c.Arguments), &in) == nil && in.Input != nil {
				input = *in.Input
			}
			item := respItem{ID: fmt.Sprintf("ctc_%s_%d", a.id, i), Type: "custom_tool_call", Status: "in_progress", CallID: c.ID, Name: c.Name, Input: &empty}
			emit(respEvent{Type: "response.output_item.added", OutputIndex: &out, Item: &item})
			for _, frag := range splitUTF8(input, size) {
				emit(respEvent{Type: "response.custom_tool_call_input.delta", OutputIndex: &out, ItemID: item.ID, Delta: &frag})
				flush()
			}
			emit(respEvent{Type: "response.custom_tool_call_input.done", OutputIndex: &out, ItemID: item.ID, Input: &input})
			done := item
			done.Status, done.Input = "completed", &input
			emit(respEvent{Type: "response.output_item.done", OutputIndex: &out, Item: &done})
			output = append(output, done)
			continue
		}
		item := respItem{ID: fmt.Sprintf("fc_%s_%d", a.id, i), Type: "function_call", Status: "in_progress", CallID: c.ID, Name: c.Name, Arguments: &empty}
		emit(respEvent{Type: "response.output_item.added", OutputIndex: &out, Item: &item})
		for _, frag := range splitUTF8(c.Arguments, size) {
			emit(respEvent{Type: "response.function_call_arguments.delta", OutputIndex: &out, ItemID: item.ID, Delta: &frag})
			flush()
		}
		args := c.Arguments
		emit(respEvent{Type: "response.function_call_arguments.done", OutputIndex: &out, ItemID: item.ID, Arguments: &args})
		done := item
		done.Status, done.Arguments = "completed", &args
		emit(respEvent{Type: "response.output_item.done", OutputIndex: &out, Item: &done})
		output = append(output, done)
	}

	final := obj
	final.Output = output
	if output == nil {
		final.Output = []respItem{}
	}
	switch e := a.turn.StreamError; {
	case e != nil && e.Type == "error":
		emit(respEvent{Type: "error", Code: e.Code, Message: e.Message, Param: json.RawMessage("null")})
	case e != nil:
		final.Status = "failed"
		code := e.Code
		if code == "" {
			code = "server_error"
		}
		final.Error = &respError{Code: code, Message: e.Message}
		emit(respEvent{Type: "response.failed", Response: &final})
	default:
		final.Status = "completed"
		if !a.turn.OmitUsage {
			u := a.usage
			final.Usage = &respUsage{
				InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens,
				InputTokensDetails:  map[string]int{"cached_tokens": 0},
				OutputTokensDetails: map[string]int{"reasoning_tokens": u.ReasoningTokens},
			}
		}
		emit(respEvent{Type: "response.completed", Response: &final})
	}
	flush()
	return steps
}
