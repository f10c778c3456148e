package fakellm

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/textcut"
)

// answer is one turn rendered for one request.
type answer struct {
	id      string
	created int64
	model   string
	turn    Turn
	calls   []ToolCall // with ids filled in
	finish  string
	usage   Usage
}

func newAnswer(idx int, t Turn, req ChatRequest) answer {
	a := answer{
		id:      fmt.Sprintf("chatcmpl-fake-%d", idx),
		created: time.Now().Unix(),
		model:   req.Model,
		turn:    t,
		finish:  "stop",
	}
	for i, c := range t.ToolCalls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d_%d", idx, i)
		}
		a.calls = append(a.calls, c)
	}
	if len(a.calls) > 0 && t.Quirk != QuirkStopWithTools {
		a.finish = "tool_calls"
	}
	if t.FinishReason != "" {
		a.finish = t.FinishReason
	}
	if t.Usage != nil {
		a.usage = *t.Usage
	} else {
		a.usage = estimateUsage(req, t)
	}
	if a.usage.TotalTokens == 0 {
		a.usage.TotalTokens = a.usage.PromptTokens + a.usage.CompletionTokens
	}
	return a
}

// estimateUsage counts about four bytes per token, like OpenAI's rule of thumb.
func estimateUsage(req ChatRequest, t Turn) Usage {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content) + 4
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Arguments)
		}
	}
	for _, tool := range req.Tools {
		in += len(tool.Name) + len(tool.Description) + len(tool.Parameters)
	}
	out := len(t.Text)
	for _, c := range t.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	return Usage{PromptTokens: in/4 + 1, CompletionTokens: out/4 + 1}
}

// Wire shapes of a streamed chunk. Pointers and omitempty reproduce exactly
// which fields OpenAI sends in which delta.
type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role      string      `json:"role,omitempty"`
	Content   *string     `json:"content,omitempty"`
	ToolCalls []toolDelta `json:"tool_calls,omitempty"`
}

type toolDelta struct {
	Index    *int    `json:"index,omitempty"`
	ID       string  `json:"id,omitempty"`
	Type     string  `json:"type,omitempty"`
	Function fnDelta `json:"function"`
}

type fnDelta struct {
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

// chunks renders the SSE events (without the final [DONE]).
func (a answer) chunks(includeUsage bool) [][]byte {
	size := a.turn.ChunkSize
	if size <= 0 {
		size = 8
	}
	var out [][]byte
	emit := func(d delta, finish *string) {
		out = append(out, mustJSON(a.frame([]chunkChoice{{Delta: d, FinishReason: finish}}, nil)))
	}
	empty := ""
	emit(delta{Role: "assistant", Content: &empty}, nil)
	for _, piece := range splitUTF8(a.turn.Text, size) {
		emit(delta{Content: &piece}, nil)
	}
	for i, c := range a.calls {
		var idx *int
		switch a.turn.Quirk {
		case QuirkOllama:
			idx = ptr(0)
		case QuirkNoIndex:
		default:
			idx = ptr(i)
		}
		emit(delta{ToolCalls: []toolDelta{{
			Index: idx, ID: c.ID, Type: "function",
			Function: fnDelta{Name: c.Name, Arguments: &empty},
		}}}, nil)
		for _, frag := range splitUTF8(c.Arguments, size) {
			emit(delta{ToolCalls: []toolDelta{{Index: idx, Function: fnDelta{Arguments: &frag}}}}, nil)
		}
	}
	emit(delta{}, &a.finish)
	if includeUsage {
		u := a.usage
		out = append(out, mustJSON(a.frame([]chunkChoice{}, &u)))
	}
	return out
}

func (a answer) frame(choices []chunkChoice, u *Usage) chunk {
	return chunk{ID: a.id, Object: "chat.completion.chunk", Created: a.created, Model: a.model, Choices: choices, Usage: u}
}

// whole renders a non-streaming completion.
func (a answer) whole() any {
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	type message struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"` // null when the model only called tools
		ToolCalls []call  `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	m := message{Role: "assistant"}
	if a.turn.Text != "" || len(a.calls) == 0 {
		text := a.turn.Text
		m.Content = &text
	}
	for _, c := range a.calls {
		m.ToolCalls = append(m.ToolCalls, call{ID: c.ID, Type: "function", Function: fn{c.Name, c.Arguments}})
	}
	return struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   Usage    `json:"usage"`
	}{a.id, "chat.completion", a.created, a.model, []choice{{Message: m, FinishReason: a.finish}}, a.usage}
}

// splitUTF8 cuts s into pieces of at most size bytes without splitting a
// rune (a rune longer than size becomes a piece of its own).
func splitUTF8(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n := textcut.Floor(s, size)
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakellm: encode chunk: %v", err)) // only plain structs are encoded
	}
	return data
}
