package chat

import (
	"encoding/json"

	"github.com/agentls/agentls/internal/jsonscan"
)

// chunk is what the stream accumulator reads of a chat.completion.chunk.
// Everything else in it (ids, timestamps, roles, log probabilities, filter
// results) is skipped.
type chunk struct {
	Choices []chunkChoice `json:"choices"`
	Usage   *chunkUsage   `json:"usage"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason string     `json:"finish_reason"`
}

type chunkDelta struct {
	Content   string      `json:"content"`
	Refusal   string      `json:"refusal"`
	ToolCalls []toolDelta `json:"tool_calls"`
}

type toolDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chunkUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// decodeChunk decodes one event's data into c. A model streams one chunk
// per token, so this runs hundreds of times for one answer: a scanner made
// for the chunk's shape reads the fields above and skips the rest, without
// reflection and with few allocations. Anything it is not sure of (a number
// that is not a plain integer, a key that is escaped or differs only in
// case, a repeated key, a type other than expected, a control character,
// invalid UTF-8, malformed JSON) sends the whole chunk to encoding/json, so
// the result and the errors are always encoding/json's.
// TestDecodeChunkMatchesEncodingJSON and FuzzDecodeChunk hold the two equal.
func decodeChunk(data []byte, c *chunk) error {
	choices := c.Choices[:0] // add keeps none of the array
	*c = chunk{}
	s := jsonscan.New(data)
	if scanChunk(&s, c, choices) && s.End() {
		return nil
	}
	*c = chunk{}
	return json.Unmarshal(data, c)
}

func scanChunk(s *jsonscan.Scanner, c *chunk, choices []chunkChoice) bool {
	var seen jsonscan.Once
	return s.Object(func(k []byte) bool {
		switch string(k) {
		case "choices":
			if !seen.First(1) {
				return false
			}
			if s.Null() {
				c.Choices = nil
				return true
			}
			c.Choices = choices
			if c.Choices == nil {
				c.Choices = []chunkChoice{} // [] is an empty slice, not a missing one
			}
			return s.Array(func() bool {
				c.Choices = append(c.Choices, chunkChoice{})
				return scanChoice(s, &c.Choices[len(c.Choices)-1])
			})
		case "usage":
			if !seen.First(2) {
				return false
			}
			if s.Null() {
				c.Usage = nil
				return true
			}
			c.Usage = &chunkUsage{}
			return scanUsage(s, c.Usage)
		}
		return !jsonscan.Known(k, "choices", "usage") && s.Skip()
	})
}

func scanChoice(s *jsonscan.Scanner, ch *chunkChoice) bool {
	if s.Null() {
		return true
	}
	var seen jsonscan.Once
	return s.Object(func(k []byte) bool {
		switch string(k) {
		case "index":
			return seen.First(1) && s.IntOrNull(&ch.Index)
		case "finish_reason":
			return seen.First(2) && s.StringOrNull(&ch.FinishReason)
		case "delta":
			return seen.First(4) && (s.Null() || scanDelta(s, &ch.Delta))
		}
		return !jsonscan.Known(k, "index", "finish_reason", "delta") && s.Skip()
	})
}

func scanDelta(s *jsonscan.Scanner, d *chunkDelta) bool {
	var seen jsonscan.Once
	return s.Object(func(k []byte) bool {
		switch string(k) {
		case "content":
			return seen.First(1) && s.StringOrNull(&d.Content)
		case "refusal":
			return seen.First(2) && s.StringOrNull(&d.Refusal)
		case "tool_calls":
			if !seen.First(4) {
				return false
			}
			if s.Null() {
				d.ToolCalls = nil
				return true
			}
			d.ToolCalls = []toolDelta{}
			return s.Array(func() bool {
				d.ToolCalls = append(d.ToolCalls, toolDelta{})
				return scanToolDelta(s, &d.ToolCalls[len(d.ToolCalls)-1])
			})
		}
		return !jsonscan.Known(k, "content", "refusal", "tool_calls") && s.Skip()
	})
}

func scanToolDelta(s *jsonscan.Scanner, t *toolDelta) bool {
	if s.Null() {
		return true
	}
	var seen jsonscan.Once
	return s.Object(func(k []byte) bool {
		switch string(k) {
		case "index":
			if !seen.First(1) {
				return false
			}
			if s.Null() {
				t.Index = nil
				return true
			}
			n, ok := s.Int()
			t.Index = &n
			return ok
		case "id":
			return seen.First(2) && s.StringOrNull(&t.ID)
		case "function":
			return seen.First(4) && (s.Null() || scanFunction(s, t))
		}
		return !jsonscan.Known(k, "index", "id", "function") && s.Skip()
	})
}

func scanFunction(s *jsonscan.Scanner, t *toolDelta) bool {
	var seen jsonscan.Once
	return s.Object(func(k []byte) bool {
		switch string(k) {
		case "name":
			return seen.First(1) && s.StringOrNull(&t.Function.Name)
		case "arguments":
			return seen.First(2) && s.StringOrNull(&t.Function.Arguments)
		}
		return !jsonscan.Known(k, "name", "arguments") && s.Skip()
	})
}

func scanUsage(s *jsonscan.Scanner, u *chunkUsage) bool {
	var seen jsonscan.Once
	return s.Object(func(k []byte) bool {
		switch string(k) {
		case "prompt_tokens":
			return seen.First(1) && s.IntOrNull(&u.PromptTokens)
		case "completion_tokens":
			return seen.First(2) && s.IntOrNull(&u.CompletionTokens)
		}
		return !jsonscan.Known(k, "prompt_tokens", "completion_tokens") && s.Skip()
	})
}
