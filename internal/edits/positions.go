package edits

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Encoding is the unit in which an LSP position counts characters.
//
// The zero value is UTF16 because that is what LSP means when the client
// did not negotiate anything else.
type Encoding int

const (
	UTF16 Encoding = iota // UTF-16 code units: the LSP default
	UTF8                  // bytes
	UTF32                 // Unicode code points
)

// String returns the LSP name of the encoding ("utf-16", ...).
func (e Encoding) String() string {
	switch e {
	case UTF8:
		return "utf-8"
	case UTF16:
		return "utf-16"
	case UTF32:
		return "utf-32"
	}
	return fmt.Sprintf("Encoding(%d)", int(e))
}

// Kind returns the encoding as the protocol's PositionEncodingKind.
func (e Encoding) Kind() protocol.PositionEncodingKind {
	return protocol.PositionEncodingKind(e.String())
}

// ParseEncoding accepts the LSP names "utf-8", "utf-16" and "utf-32".
func ParseEncoding(s string) (Encoding, error) {
	switch s {
	case "utf-8":
		return UTF8, nil
	case "utf-16":
		return UTF16, nil
	case "utf-32":
		return UTF32, nil
	}
	return UTF16, fmt.Errorf("unknown position encoding %q", s)
}

// Negotiate picks the encoding to announce from the client's
// general.positionEncodings: utf-8 when offered, since it needs no counting,
// then utf-32, and otherwise utf-16, which every client must support.
func Negotiate(offered []protocol.PositionEncodingKind) Encoding {
	best := UTF16
	for _, k := range offered {
		switch k {
		case protocol.PositionEncodingKindUTF8:
			return UTF8
		case protocol.PositionEncodingKindUTF32:
			best = UTF32
		}
	}
	return best
}

// ErrInvalidPosition reports a position that names no place in the text:
// its character falls inside a character of the text (between the two
// halves of a UTF-16 surrogate pair, or inside a UTF-8 sequence), or a
// range ends before it starts.
var ErrInvalidPosition = errors.New("invalid position")

// Mapper converts between byte offsets and LSP positions for one text.
// Build it once per text version: construction is one pass over the text,
// each lookup is a binary search over line starts plus a scan of at most
// one line. A Mapper is immutable and safe for concurrent use.
//
// Bytes that are not valid UTF-8 count as one unit each in every encoding,
// the same as the U+FFFD an editor would show for them, so mapping stays
// consistent in both directions even for such text.
type Mapper struct {
	text  string
	lines []int // byte offset of the start of each line; lines[0] == 0
}

// NewMapper indexes the line starts of text.
func NewMapper(text string) *Mapper {
	lines := make([]int, 1, strings.Count(text, "\n")+1)
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		lines = append(lines, i)
	}
	return &Mapper{text: text, lines: lines}
}

// Text returns the text the mapper was built for.
func (m *Mapper) Text() string { return m.text }

// contentEnd is the offset where line i's text ends, before its terminator.
func (m *Mapper) contentEnd(i int) int {
	if i+1 >= len(m.lines) {
		return len(m.text)
	}
	e := m.lines[i+1] - 1
	if e > m.lines[i] && m.text[e-1] == '\r' {
		e--
	}
	return e
}

// line returns the index of the line containing off, 0 <= off <= len(text).
func (m *Mapper) line(off int) int {
	return sort.Search(len(m.lines), func(i int) bool { return m.lines[i] > off }) - 1
}

// OffsetToPosition converts a byte offset into a position. Offsets are
// clamped to the text; an offset inside a multi-byte character snaps back to
// that character's start, and one inside a line terminator (between '\r'
// and '\n') snaps back to the end of the line, because LSP cannot express
// either.
func (m *Mapper) OffsetToPosition(off int, enc Encoding) protocol.Position {
	off = max(0, min(off, len(m.text)))
	ln := m.line(off)
	start := m.lines[ln]
	off = snapBack(m.text, min(off, m.contentEnd(ln)))
	return protocol.Position{Line: uint32(ln), Character: uint32(countUnits(m.text[start:off], enc))}
}

// PositionToOffset converts a position into a byte offset. As LSP asks, a
// character past the end of its line means the end of that line (before any
// '\r\n'), and a line past the last means the end of the text. A character
// that falls inside a character of the text is an error wrapping
// ErrInvalidPosition rather than a guess, so a client that miscounts is
// noticed instead of silently corrupting the document.
func (m *Mapper) PositionToOffset(p protocol.Position, enc Encoding) (int, error) {
	if int64(p.Line) >= int64(len(m.lines)) {
		return len(m.text), nil
	}
	start := m.lines[p.Line]
	end := m.contentEnd(int(p.Line))
	line := m.text[start:end]
	want := int(p.Character)
	if enc == UTF8 {
		if want >= len(line) {
			return end, nil
		}
		if snapBack(m.text, start+want) != start+want {
			return 0, fmt.Errorf("%w: %d:%d (utf-8) is inside a character", ErrInvalidPosition, p.Line, p.Character)
		}
		return start + want, nil
	}
	n := 0
	for i := 0; i < len(line); {
		if n == want {
			return start + i, nil
		}
		size, units := 1, 1
		if c := line[i]; c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(line[i:])
			units = runeUnits(r, size, enc)
		}
		if n+units > want {
			return 0, fmt.Errorf("%w: %d:%d (%s) splits a surrogate pair", ErrInvalidPosition, p.Line, p.Character, enc)
		}
		n += units
		i += size
	}
	return end, nil
}

// RangeToOffsets converts a range into byte offsets [start, end).
func (m *Mapper) RangeToOffsets(r protocol.Range, enc Encoding) (start, end int, err error) {
	start, err = m.PositionToOffset(r.Start, enc)
	if err != nil {
		return 0, 0, fmt.Errorf("range start: %w", err)
	}
	end, err = m.PositionToOffset(r.End, enc)
	if err != nil {
		return 0, 0, fmt.Errorf("range end: %w", err)
	}
	if end < start {
		return 0, 0, fmt.Errorf("%w: range %d:%d-%d:%d ends before it starts", ErrInvalidPosition,
			r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	return start, end, nil
}

// OffsetsToRange converts byte offsets [start, end) into a range.
func (m *Mapper) OffsetsToRange(start, end int, enc Encoding) protocol.Range {
	return protocol.Range{Start: m.OffsetToPosition(start, enc), End: m.OffsetToPosition(end, enc)}
}

// countUnits counts the units of s in enc; s must end on a character
// boundary.
func countUnits(s string, enc Encoding) int {
	if enc == UTF8 {
		return len(s)
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeUnits(r, size, enc)
		i += size
	}
	return n
}

// runeUnits is how many enc units a decoded rune of size bytes takes.
func runeUnits(r rune, size int, enc Encoding) int {
	switch enc {
	case UTF8:
		return size
	case UTF16:
		if r >= 0x10000 {
			return 2
		}
	}
	return 1
}

// snapBack returns the largest character boundary <= off in s. Boundaries
// are those of utf8.DecodeRuneInString walking from the start of s; a byte
// that is not a continuation byte can never lie inside a valid sequence, so
// looking back at most three bytes decides it.
func snapBack(s string, off int) int {
	for k := 1; k <= utf8.UTFMax-1 && off-k >= 0; k++ {
		c := s[off-k]
		if !utf8.RuneStart(c) {
			continue
		}
		if c >= utf8.RuneSelf {
			if _, size := utf8.DecodeRuneInString(s[off-k:]); size > k {
				return off - k
			}
		}
		return off
	}
	return off
}
