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
	more, ok := s.Open('{', '}')
	for ok && more {
		k, kok := s.Key()
		if !kok {
			return false
		}
		switch string(k) {
		case "choices":
			if !seen.First(1) {
				return false
			}
			if s.Null() {
				c.Choices = nil
				break
			}
			c.Choices = choices
			if c.Choices == nil {
				c.Choices = []chunkChoice{} // [] is an empty slice, not a missing one
			}
			more, ok := s.Open('[', ']')
			for ok && more {
				c.Choices = append(c.Choices, chunkChoice{})
				if !scanChoice(s, &c.Choices[len(c.Choices)-1]) {
					return false
				}
				more, ok = s.Next(']')
			}
			if !ok {
				return false
			}
		case "usage":
			if !seen.First(2) {
				return false
			}
			if s.Null() {
				c.Usage = nil
				break
			}
			c.Usage = &chunkUsage{}
			if !scanUsage(s, c.Usage) {
				return false
			}
		default:
			if jsonscan.Known(k, "choices", "usage") || !s.Skip() {
				return false
			}
		}
		more, ok = s.Next('}')
	}
	return ok
}

func scanChoice(s *jsonscan.Scanner, ch *chunkChoice) bool {
	if s.Null() {
		return true
	}
	var seen jsonscan.Once
	more, ok := s.Open('{', '}')
	for ok && more {
		k, kok := s.Key()
		if !kok {
			return false
		}
		switch string(k) {
		case "index":
			ok = seen.First(1) && s.IntOrNull(&ch.Index)
		case "finish_reason":
			ok = seen.First(2) && s.StringOrNull(&ch.FinishReason)
		case "delta":
			ok = seen.First(4) && (s.Null() || scanDelta(s, &ch.Delta))
		default:
			ok = !jsonscan.Known(k, "index", "finish_reason", "delta") && s.Skip()
		}
		if !ok {
			return false
		}
		more, ok = s.Next('}')
	}
	return ok
}

func scanDelta(s *jsonscan.Scanner, d *chunkDelta) bool {
	var seen jsonscan.Once
	more, ok := s.Open('{', '}')
	for ok && more {
		k, kok := s.Key()
		if !kok {
			return false
		}
		switch string(k) {
		case "content":
			ok = seen.First(1) && s.StringOrNull(&d.Content)
		case "refusal":
			ok = seen.First(2) && s.StringOrNull(&d.Refusal)
		case "tool_calls":
			if !seen.First(4) {
				return false
			}
			if s.Null() {
				d.ToolCalls = nil
				break
			}
			d.ToolCalls = []toolDelta{}
			more, ok := s.Open('[', ']')
			for ok && more {
				d.ToolCalls = append(d.ToolCalls, toolDelta{})
				if !scanToolDelta(s, &d.ToolCalls[len(d.ToolCalls)-1]) {
					return false
				}
				more, ok = s.Next(']')
			}
			if !ok {
				return false
			}
		default:
			ok = !jsonscan.Known(k, "content", "refusal", "tool_calls") && s.Skip()
		}
		if !ok {
			return false
		}
		more, ok = s.Next('}')
	}
	return ok
}

func scanToolDelta(s *jsonscan.Scanner, t *toolDelta) bool {
	if s.Null() {
		return true
	}
	var seen jsonscan.Once
	more, ok := s.Open('{', '}')
	for ok && more {
		k, kok := s.Key()
		if !kok {
			return false
		}
		switch string(k) {
		case "index":
			if !seen.First(1) {
				return false
			}
			if s.Null() {
				t.Index = nil
				break
			}
			n, iok := s.Int()
			if !iok {
				return false
			}
			t.Index = &n
		case "id":
			ok = seen.First(2) && s.StringOrNull(&t.ID)
		case "function":
			ok = seen.First(4) && (s.Null() || scanFunction(s, t))
		default:
			ok = !jsonscan.Known(k, "index", "id", "function") && s.Skip()
		}
		if !ok {
			return false
		}
		more, ok = s.Next('}')
	}
	return ok
}

func scanFunction(s *jsonscan.Scanner, t *toolDelta) bool {
	var seen jsonscan.Once
	more, ok := s.Open('{', '}')
	for ok && more {
		k, kok := s.Key()
		if !kok {
			return false
		}
		switch string(k) {
		case "name":
			ok = seen.First(1) && s.StringOrNull(&t.Function.Name)
		case "arguments":
			ok = seen.First(2) && s.StringOrNull(&t.Function.Arguments)
		default:
			ok = !jsonscan.Known(k, "name", "arguments") && s.Skip()
		}
		if !ok {
			return false
		}
		more, ok = s.Next('}')
	}
	return ok
}

func scanUsage(s *jsonscan.Scanner, u *chunkUsage) bool {
	var seen jsonscan.Once
	more, ok := s.Open('{', '}')
	for ok && more {
		k, kok := s.Key()
		if !kok {
			return false
		}
		switch string(k) {
		case "prompt_tokens":
			ok = seen.First(1) && s.IntOrNull(&u.PromptTokens)
		case "completion_tokens":
			ok = seen.First(2) && s.IntOrNull(&u.CompletionTokens)
		default:
			ok = !jsonscan.Known(k, "prompt_tokens", "completion_tokens") && s.Skip()
		}
		if !ok {
			return false
		}
		more, ok = s.Next('}')
	}
	return ok
}
