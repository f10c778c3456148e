package chat

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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
	s := scanner{b: data, choices: c.Choices[:0]} // add keeps none of the array
	*c = chunk{}
	if s.chunk(c) && s.end() {
		return nil
	}
	*c = chunk{}
	return json.Unmarshal(data, c)
}

// scanner reads JSON from b at i. Its methods return false where the fast
// path gives up.
type scanner struct {
	b       []byte
	i       int
	choices []chunkChoice // an array to reuse for the choices, if any
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// peek returns the next non-space byte, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) literal(lit string) bool {
	if s.peek() == lit[0] && len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

func (s *scanner) null() bool { return s.literal("null") }

// open starts an object or array: it consumes the opening byte and says
// whether an element follows.
func (s *scanner) open(o, c byte) (more, ok bool) {
	if !s.eat(o) {
		return false, false
	}
	return !s.eat(c), true
}

// next ends an element: a comma means another follows, c the end.
func (s *scanner) next(c byte) (more, ok bool) {
	if s.eat(',') {
		return true, true
	}
	return false, s.eat(c)
}

// key reads an object key and its colon. The bytes are the input's: keys
// with escapes give up. Keys encoding/json would take for a wanted field
// although spelled otherwise (it matches without regard to case, folding
// some non-ASCII letters too) must be checked with known.
func (s *scanner) key() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			k := s.b[start:s.i]
			s.i++
			return k, s.eat(':')
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// known says whether encoding/json could take key for one of wanted.
func known(key []byte, wanted ...string) bool {
	for _, w := range wanted {
		if len(key) == len(w) && strings.EqualFold(string(key), w) {
			return true
		}
	}
	return false
}

// str reads a string: bytes between quotes, unquoted as encoding/json does
// (tool call arguments are JSON in a string, so most have escapes).
// Control characters and invalid UTF-8 give up.
func (s *scanner) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.i
	ascii, escaped := true, false
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(raw) {
				return "", false
			}
			if escaped {
				return unquote(raw)
			}
			return string(raw), true
		case c == '\\':
			escaped = true
			s.i += 2
			continue
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		s.i++
	}
	return "", false
}

// unquote decodes the escapes of raw as encoding/json does: a \u escape
// of half a surrogate pair that has no other half becomes U+FFFD.
func unquote(raw []byte) (string, bool) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(raw) {
			return "", false
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			out = append(out, raw[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(raw[i+2:])
			if r < 0 {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if len(raw) >= i+2 && raw[i] == '\\' && raw[i+1] == 'u' {
					if r2 := hex4(raw[i+2:]); r2 >= 0 {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							out = utf8.AppendRune(out, d)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}

// hex4 reads four hex digits, -1 if there are not.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// strOrNull reads a string, or null, which leaves v as it was (empty).
func (s *scanner) strOrNull(v *string) bool {
	if s.null() {
		return true
	}
	str, ok := s.str()
	*v = str
	return ok
}

// integer reads a plain integer: an optional minus and digits, no leading
// zero, no fraction or exponent.
func (s *scanner) integer() (int, bool) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || (s.i-digits > 1 && s.b[digits] == '0') || (s.b[start] == '-' && s.b[digits] == '0') {
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(s.b[start:s.i]))
	return n, err == nil
}

func (s *scanner) intOrNull(v *int) bool {
	if s.null() {
		return true
	}
	n, ok := s.integer()
	*v = n
	return ok
}

// skip reads a value the accumulator does not need, checking it is JSON.
func (s *scanner) skip(depth int) bool {
	if depth > 64 {
		return false
	}
	switch c := s.peek(); {
	case c == '"':
		s.i++
		for s.i < len(s.b) {
			switch c := s.b[s.i]; {
			case c == '\\':
				if !s.escape() {
					return false
				}
				continue
			case c == '"':
				s.i++
				return true
			case c < 0x20:
				return false
			}
			s.i++
		}
		return false
	case c == '{':
		more, ok := s.open('{', '}')
		for ok && more {
			if _, ok = s.key(); !ok {
				return false // an escaped key in a skipped object: rare
			}
			if !s.skip(depth + 1) {
				return false
			}
			more, ok = s.next('}')
		}
		return ok
	case c == '[':
		more, ok := s.open('[', ']')
		for ok && more {
			if !s.skip(depth + 1) {
				return false
			}
			more, ok = s.next(']')
		}
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.null()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

// number steps over a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// escape steps over one escape sequence at s.i (a backslash), checking
// that it is one JSON allows.
func (s *scanner) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if hex4(s.b[s.i+2:]) < 0 {
			return false
		}
		s.i += 6
		return true
	}
	return false
}

// once records the wanted keys an object had: a second one gives up, since
// encoding/json merges a repeated object or array into the first.
type once uint8

func (o *once) first(bit uint8) bool {
	if uint8(*o)&bit != 0 {
		return false
	}
	*o |= once(bit)
	return true
}

func (s *scanner) chunk(c *chunk) bool {
	var seen once
	more, ok := s.open('{', '}')
	for ok && more {
		k, kok := s.key()
		if !kok {
			return false
		}
		switch string(k) {
		case "choices":
			if !seen.first(1) {
				return false
			}
			if s.null() {
				c.Choices = nil
				break
			}
			c.Choices = s.choices
			if c.Choices == nil {
				c.Choices = []chunkChoice{} // [] is an empty slice, not a missing one
			}
			more, ok := s.open('[', ']')
			for ok && more {
				c.Choices = append(c.Choices, chunkChoice{})
				if !s.choice(&c.Choices[len(c.Choices)-1]) {
					return false
				}
				more, ok = s.next(']')
			}
			if !ok {
				return false
			}
		case "usage":
			if !seen.first(2) {
				return false
			}
			if s.null() {
				c.Usage = nil
				break
			}
			c.Usage = &chunkUsage{}
			if !s.usage(c.Usage) {
				return false
			}
		default:
			if known(k, "choices", "usage") || !s.skip(0) {
				return false
			}
		}
		more, ok = s.next('}')
	}
	return ok
}

func (s *scanner) choice(ch *chunkChoice) bool {
	if s.null() {
		return true
	}
	var seen once
	more, ok := s.open('{', '}')
	for ok && more {
		k, kok := s.key()
		if !kok {
			return false
		}
		switch string(k) {
		case "index":
			ok = seen.first(1) && s.intOrNull(&ch.Index)
		case "finish_reason":
			ok = seen.first(2) && s.strOrNull(&ch.FinishReason)
		case "delta":
			ok = seen.first(4) && (s.null() || s.delta(&ch.Delta))
		default:
			ok = !known(k, "index", "finish_reason", "delta") && s.skip(0)
		}
		if !ok {
			return false
		}
		more, ok = s.next('}')
	}
	return ok
}

func (s *scanner) delta(d *chunkDelta) bool {
	var seen once
	more, ok := s.open('{', '}')
	for ok && more {
		k, kok := s.key()
		if !kok {
			return false
		}
		switch string(k) {
		case "content":
			ok = seen.first(1) && s.strOrNull(&d.Content)
		case "refusal":
			ok = seen.first(2) && s.strOrNull(&d.Refusal)
		case "tool_calls":
			if !seen.first(4) {
				return false
			}
			if s.null() {
				d.ToolCalls = nil
				break
			}
			d.ToolCalls = []toolDelta{}
			more, ok := s.open('[', ']')
			for ok && more {
				d.ToolCalls = append(d.ToolCalls, toolDelta{})
				if !s.toolDelta(&d.ToolCalls[len(d.ToolCalls)-1]) {
					return false
				}
				more, ok = s.next(']')
			}
			if !ok {
				return false
			}
		default:
			ok = !known(k, "content", "refusal", "tool_calls") && s.skip(0)
		}
		if !ok {
			return false
		}
		more, ok = s.next('}')
	}
	return ok
}

func (s *scanner) toolDelta(t *toolDelta) bool {
	if s.null() {
		return true
	}
	var seen once
	more, ok := s.open('{', '}')
	for ok && more {
		k, kok := s.key()
		if !kok {
			return false
		}
		switch string(k) {
		case "index":
			if !seen.first(1) {
				return false
			}
			if s.null() {
				t.Index = nil
				break
			}
			n, iok := s.integer()
			if !iok {
				return false
			}
			t.Index = &n
		case "id":
			ok = seen.first(2) && s.strOrNull(&t.ID)
		case "function":
			ok = seen.first(4) && (s.null() || s.function(t))
		default:
			ok = !known(k, "index", "id", "function") && s.skip(0)
		}
		if !ok {
			return false
		}
		more, ok = s.next('}')
	}
	return ok
}

func (s *scanner) function(t *toolDelta) bool {
	var seen once
	more, ok := s.open('{', '}')
	for ok && more {
		k, kok := s.key()
		if !kok {
			return false
		}
		switch string(k) {
		case "name":
			ok = seen.first(1) && s.strOrNull(&t.Function.Name)
		case "arguments":
			ok = seen.first(2) && s.strOrNull(&t.Function.Arguments)
		default:
			ok = !known(k, "name", "arguments") && s.skip(0)
		}
		if !ok {
			return false
		}
		more, ok = s.next('}')
	}
	return ok
}

func (s *scanner) usage(u *chunkUsage) bool {
	var seen once
	more, ok := s.open('{', '}')
	for ok && more {
		k, kok := s.key()
		if !kok {
			return false
		}
		switch string(k) {
		case "prompt_tokens":
			ok = seen.first(1) && s.intOrNull(&u.PromptTokens)
		case "completion_tokens":
			ok = seen.first(2) && s.intOrNull(&u.CompletionTokens)
		default:
			ok = !known(k, "prompt_tokens", "completion_tokens") && s.skip(0)
		}
		if !ok {
			return false
		}
		more, ok = s.next('}')
	}
	return ok
}
