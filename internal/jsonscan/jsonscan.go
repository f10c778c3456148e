// Package jsonscan reads JSON documents of a known shape quickly: the
// caller walks the document with it, takes the fields it wants and skips
// the rest, without reflection and with few allocations. Every method
// returns false where it is not sure (an escaped key, a number that is not
// a plain integer, invalid UTF-8, malformed JSON): the caller then hands
// the whole document to encoding/json, so results and errors are always
// encoding/json's. Strings are unquoted exactly as encoding/json does.
package jsonscan

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner reads JSON from b at i. Its methods return false where the
// caller's fast path gives up.
type Scanner struct {
	b []byte
	i int
}

// New returns a Scanner at the start of b.
func New(b []byte) Scanner { return Scanner{b: b} }

func (s *Scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// End says whether only white space is left.
func (s *Scanner) End() bool {
	s.ws()
	return s.i == len(s.b)
}

// peek returns the next non-space byte, 0 at the end.
func (s *Scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// eat consumes c, the next non-space byte, if it is c.
func (s *Scanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// Literal consumes lit (true, false, null) if it comes next.
func (s *Scanner) Literal(lit string) bool {
	if s.peek() == lit[0] && len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// Null consumes a null if it comes next.
func (s *Scanner) Null() bool { return s.Literal("null") }

// open starts an object or array: it consumes the opening byte and says
// whether an element follows.
func (s *Scanner) open(o, c byte) (more, ok bool) {
	if !s.eat(o) {
		return false, false
	}
	return !s.eat(c), true
}

// next ends an element: a comma means another follows, c the end.
func (s *Scanner) next(c byte) (more, ok bool) {
	if s.eat(',') {
		return true, true
	}
	return false, s.eat(c)
}

// key reads an object key and its colon. The bytes are the input's: keys
// with escapes give up.
func (s *Scanner) key() ([]byte, bool) {
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

// Known says whether encoding/json could take key for one of wanted.
func Known(key []byte, wanted ...string) bool {
	for _, w := range wanted {
		if len(key) == len(w) && strings.EqualFold(string(key), w) {
			return true
		}
	}
	return false
}

// Str reads a string: bytes between quotes, unquoted as encoding/json does
// (tool call arguments are JSON in a string, so most have escapes).
// Control characters and invalid UTF-8 give up.
func (s *Scanner) Str() (string, bool) {
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

// StringOrNull reads a string, or null, which leaves v as it was (empty).
func (s *Scanner) StringOrNull(v *string) bool {
	if s.Null() {
		return true
	}
	str, ok := s.Str()
	*v = str
	return ok
}

// Int reads a plain integer: an optional minus and digits, no leading
// zero, no fraction or exponent.
func (s *Scanner) Int() (int, bool) {
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

// IntOrNull reads a plain integer, or null, which leaves v as it was.
func (s *Scanner) IntOrNull(v *int) bool {
	if s.Null() {
		return true
	}
	n, ok := s.Int()
	*v = n
	return ok
}

// skip reads a value the accumulator does not need, checking it is JSON.
func (s *Scanner) skip(depth int) bool {
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
		return s.Object(func([]byte) bool { return s.skip(depth + 1) })
	case c == '[':
		return s.Array(func() bool { return s.skip(depth + 1) })
	case c == 't':
		return s.Literal("true")
	case c == 'f':
		return s.Literal("false")
	case c == 'n':
		return s.Null()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

// number steps over a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) number() bool {
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
func (s *Scanner) escape() bool {
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

// Once records the wanted keys an object had: a second one gives up, since
// encoding/json merges a repeated object or array into the first.
type Once uint8

// First records bit and says whether it is new.
func (o *Once) First(bit uint8) bool {
	if uint8(*o)&bit != 0 {
		return false
	}
	*o |= Once(bit)
	return true
}

// Object reads an object, handing each key to field, which reads the
// value. A key with escapes, or field returning false, gives up. Keys
// encoding/json would take for a wanted field although spelled otherwise
// (it matches without regard to case, folding some non-ASCII letters too)
// must be checked with Known.
func (s *Scanner) Object(field func(key []byte) bool) bool {
	more, ok := s.open('{', '}')
	for ok && more {
		k, kok := s.key()
		if !kok || !field(k) {
			return false
		}
		more, ok = s.next('}')
	}
	return ok
}

// Array reads an array, calling elem for each element.
func (s *Scanner) Array(elem func() bool) bool {
	more, ok := s.open('[', ']')
	for ok && more {
		if !elem() {
			return false
		}
		more, ok = s.next(']')
	}
	return ok
}

// Skip reads any value, checking that it is JSON.
func (s *Scanner) Skip() bool { return s.skip(0) }
