package responses

import (
	"encoding/json"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/agent"
)

// accumulator assembles a streamed response from its events.
type accumulator struct {
	onText   func(string)
	text     []byte
	calls    []agent.ToolCall
	byItem   map[string]int // function_call item id → position in calls
	byOutput map[int]int    // output_index → position in calls
	streamed map[string]bool
	usage    *openai.ResponseUsage
	finish   string
	partial  bool // output had arrived: a retry would repeat it
	// reasoning gathers the response's reasoning items from the raw
	// stream (reasoning.go).
	reasoning *collector
	// customIn holds the text of custom tool calls by position in
	// calls, from the input deltas; the finished item's input (taken
	// from the raw stream) wins.
	customIn map[int]*string
	done     bool // the final event arrived
}

func newAccumulator(onText func(string)) *accumulator {
	return &accumulator{onText: onText, byItem: map[string]int{}, byOutput: map[int]int{}, streamed: map[string]bool{}}
}

// add takes one event; it returns the server's message when the event
// says the response failed.
func (a *accumulator) add(ev openai.ResponseStreamEvent) *string {
	switch ev.Type {
	case openai.ResponseStreamEventOutputTextDelta, openai.ResponseStreamEventRefusalDelta:
		a.streamed[ev.ItemID] = true
		a.addText(ev.Delta)
	case openai.ResponseStreamEventOutputItemAdded:
		if ev.Item != nil && ev.Item.Type == "function_call" {
			a.call(ev.Item.ID, ev.OutputIndex, ev.Item)
		}
		if ev.Item != nil && ev.Item.Type == "custom_tool_call" {
			a.call(ev.Item.ID, ev.OutputIndex, ev.Item)
			a.customCall(ev.Item.ID, ev.OutputIndex)
		}
	case "response.custom_tool_call_input.delta":
		a.partial = true
		a.call(ev.ItemID, ev.OutputIndex, nil)
		*a.customCall(ev.ItemID, ev.OutputIndex) += ev.Delta
	case openai.ResponseStreamEventFunctionArgumentsDelta:
		a.partial = true
		c := a.call(ev.ItemID, ev.OutputIndex, nil)
		c.Arguments += ev.Delta
	case openai.ResponseStreamEventFunctionArgumentsDone:
		if ev.Arguments != "" {
			a.call(ev.ItemID, ev.OutputIndex, nil).Arguments = ev.Arguments
		}
	case openai.ResponseStreamEventOutputItemDone:
		a.itemDone(ev)
	case openai.ResponseStreamEventCompleted, openai.ResponseStreamEventIncomplete:
		a.done = true
		if ev.Response != nil {
			a.usage = ev.Response.Usage
			if d := ev.Response.IncompleteDetails; d != nil {
				switch d.Reason {
				case "max_output_tokens":
					a.finish = "length"
				case "content_filter":
					a.finish = "content_filter"
				}
			}
		}
	case openai.ResponseStreamEventFailed:
		msg := "the response failed"
		if ev.Response != nil && ev.Response.Error != nil {
			msg = ev.Response.Error.Message + " (" + ev.Response.Error.Code + ")"
		}
		return &msg
	case openai.ResponseStreamEventError:
		msg := ev.Message
		if ev.Code != "" {
			msg += " (" + ev.Code + ")"
		}
		return &msg
	}
	return nil
}

func (a *accumulator) addText(s string) {
	if s == "" {
		return
	}
	a.partial = true
	a.text = append(a.text, s...)
	if a.onText != nil {
		a.onText(s)
	}
}

// call finds the function call for an item, by id or else by output
// index, and starts one when neither is known.
func (a *accumulator) call(itemID string, out int, item *openai.ResponseOutputItem) *agent.ToolCall {
	pos, ok := a.byItem[itemID]
	if !ok || itemID == "" {
		pos, ok = a.byOutput[out]
	}
	if !ok {
		a.calls = append(a.calls, agent.ToolCall{})
		pos = len(a.calls) - 1
		a.partial = true
	}
	if itemID != "" {
		a.byItem[itemID] = pos
	}
	a.byOutput[out] = pos
	c := &a.calls[pos]
	if item != nil {
		if c.ID == "" {
			c.ID = item.CallID
		}
		if c.Name == "" {
			c.Name = item.Name
		}
		if c.Arguments == "" {
			c.Arguments = item.Arguments
		}
	}
	return c
}

// itemDone completes an item from its final form: servers that send no
// deltas still get their text and calls through.
func (a *accumulator) itemDone(ev openai.ResponseStreamEvent) {
	it := ev.Item
	if it == nil {
		return
	}
	switch it.Type {
	case "function_call":
		c := a.call(it.ID, ev.OutputIndex, it)
		if it.Arguments != "" {
			c.Arguments = it.Arguments
		}
	case "message":
		if a.streamed[it.ID] {
			return
		}
		for _, p := range it.Content {
			a.addText(p.Text + p.Refusal)
		}
	}
}

// customCall marks the call at an item as a custom tool call and returns
// its input text so far.
func (a *accumulator) customCall(itemID string, out int) *string {
	pos, ok := a.byItem[itemID]
	if !ok || itemID == "" {
		pos = a.byOutput[out]
	}
	if a.customIn == nil {
		a.customIn = map[int]*string{}
	}
	if a.customIn[pos] == nil {
		a.customIn[pos] = new(string)
	}
	return a.customIn[pos]
}

func (a *accumulator) response(req agent.Request) agent.Response {
	r := agent.Response{Content: string(a.text), FinishReason: a.finish}
	var final map[string]string
	if a.reasoning != nil {
		r.Reasoning = a.reasoning.taken()
		final = a.reasoning.customInputs()
	}
	for pos, in := range a.customIn {
		text := *in
		if f, ok := final[a.calls[pos].ID]; ok {
			text = f
		}
		args, _ := json.Marshal(map[string]string{"input": text})
		a.calls[pos].Arguments = string(args)
	}
	for i, c := range a.calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i) // the result must name its call
		}
		r.ToolCalls = append(r.ToolCalls, c)
	}
	if r.FinishReason == "" {
		r.FinishReason = "stop"
		if len(r.ToolCalls) > 0 {
			r.FinishReason = "tool_calls"
		}
	}
	if u := a.usage; u != nil {
		r.Usage = agent.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
		if u.OutputTokensDetails != nil {
			r.Usage.ReasoningTokens = u.OutputTokensDetails.ReasoningTokens
		}
	} else {
		r.Usage = estimate(req, r)
	}
	return r
}

// estimate guesses four bytes per token for servers that report no usage.
func estimate(req agent.Request, r agent.Response) agent.Usage {
	in, out := 0, len(r.Content)
	for _, m := range req.Messages {
		in += len(m.Content) + 4
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	for _, c := range r.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	return agent.Usage{InputTokens: (in + 3) / 4, OutputTokens: (out + 3) / 4, Estimated: true}
}
