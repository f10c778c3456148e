package edits

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// mixed has a 2-byte, a 4-byte (astral: two UTF-16 units) and a 3-byte
// character, a CRLF line, an LF line and a last line without newline that
// starts with a byte that is not UTF-8.
//
//	offset: a0 é1 😀3 中7 \r10 \n11 line2 12-16 \n17 \xff18 z19 end20
const mixed = "a\u00e9\U0001F600\u4e2d\r\nline2\n\xffz"

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func TestEncodingNames(t *testing.T) {
	for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
		got, err := ParseEncoding(enc.String())
		if err != nil || got != enc {
			t.Errorf("ParseEncoding(%q) = %v, %v", enc.String(), got, err)
		}
	}
	if _, err := ParseEncoding("utf16"); err == nil {
		t.Error("ParseEncoding(utf16) succeeded; want error for a non-LSP name")
	}
	var zero Encoding
	if zero != UTF16 || zero.Kind() != protocol.PositionEncodingKindUTF16 {
		t.Errorf("zero Encoding is %v, want utf-16 (the LSP default)", zero)
	}
	for _, tc := range []struct {
		offered []protocol.PositionEncodingKind
		want    Encoding
	}{
		{nil, UTF16},
		{[]protocol.PositionEncodingKind{"utf-16"}, UTF16},
		{[]protocol.PositionEncodingKind{"utf-16", "utf-32"}, UTF32},
		{[]protocol.PositionEncodingKind{"utf-32", "utf-8", "utf-16"}, UTF8},
		{[]protocol.PositionEncodingKind{"latin-1"}, UTF16},
	} {
		if got := Negotiate(tc.offered); got != tc.want {
			t.Errorf("Negotiate(%v) = %v, want %v", tc.offered, got, tc.want)
		}
	}
}

func TestOffsetToPosition(t *testing.T) {
	m := NewMapper(mixed)
	if len(m.lines) != 3 {
		t.Fatalf("LineCount = %d, want 3", len(m.lines))
	}
	for _, tc := range []struct {
		off              int
		utf8, u16, utf32 protocol.Position
	}{
		{-5, pos(0, 0), pos(0, 0), pos(0, 0)},
		{0, pos(0, 0), pos(0, 0), pos(0, 0)},
		{1, pos(0, 1), pos(0, 1), pos(0, 1)},
		{3, pos(0, 3), pos(0, 2), pos(0, 2)},
		{5, pos(0, 3), pos(0, 2), pos(0, 2)}, // inside 😀: snaps back
		{7, pos(0, 7), pos(0, 4), pos(0, 3)},
		{8, pos(0, 7), pos(0, 4), pos(0, 3)}, // inside 中
		{10, pos(0, 10), pos(0, 5), pos(0, 4)},
		{11, pos(0, 10), pos(0, 5), pos(0, 4)}, // between \r and \n
		{12, pos(1, 0), pos(1, 0), pos(1, 0)},
		{17, pos(1, 5), pos(1, 5), pos(1, 5)},
		{18, pos(2, 0), pos(2, 0), pos(2, 0)},
		{19, pos(2, 1), pos(2, 1), pos(2, 1)}, // an invalid byte is one unit
		{20, pos(2, 2), pos(2, 2), pos(2, 2)},
		{99, pos(2, 2), pos(2, 2), pos(2, 2)},
	} {
		for enc, want := range map[Encoding]protocol.Position{UTF8: tc.utf8, UTF16: tc.u16, UTF32: tc.utf32} {
			if got := m.OffsetToPosition(tc.off, enc); got != want {
				t.Errorf("OffsetToPosition(%d, %v) = %v, want %v", tc.off, enc, got, want)
			}
		}
	}
}

func TestPositionToOffset(t *testing.T) {
	m := NewMapper(mixed)
	for _, tc := range []struct {
		p       protocol.Position
		enc     Encoding
		want    int
		wantErr bool
	}{
		{pos(0, 0), UTF16, 0, false},
		{pos(0, 2), UTF16, 3, false},
		{pos(0, 3), UTF16, 0, true}, // between the surrogates of 😀
		{pos(0, 4), UTF16, 7, false},
		{pos(0, 5), UTF16, 10, false},
		{pos(0, 6), UTF16, 10, false}, // past line end: end of content, before \r\n
		{pos(0, 3), UTF32, 7, false},
		{pos(0, 4), UTF32, 10, false},
		{pos(0, 3), UTF8, 3, false},
		{pos(0, 2), UTF8, 0, true}, // inside é
		{pos(0, 4), UTF8, 0, true}, // inside 😀
		{pos(0, 7), UTF8, 7, false},
		{pos(0, 99), UTF8, 10, false},
		{pos(1, 5), UTF16, 17, false},
		{pos(1, 6), UTF32, 17, false},
		{pos(2, 1), UTF16, 19, false},
		{pos(2, 1), UTF8, 19, false},
		{pos(2, 7), UTF16, 20, false},
		{pos(3, 0), UTF16, 20, false}, // past the last line: end of text
		{pos(1<<32-1, 1<<32-1), UTF8, 20, false},
	} {
		got, err := m.PositionToOffset(tc.p, tc.enc)
		if tc.wantErr {
			if !errors.Is(err, ErrInvalidPosition) {
				t.Errorf("PositionToOffset(%v, %v) = %d, %v; want ErrInvalidPosition", tc.p, tc.enc, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("PositionToOffset(%v, %v) = %d, %v; want %d", tc.p, tc.enc, got, err, tc.want)
		}
	}
}

func TestMapperEdgeTexts(t *testing.T) {
	for _, tc := range []struct {
		text  string
		lines int
		end   protocol.Position // position of len(text)
	}{
		{"", 1, pos(0, 0)},
		{"\n", 2, pos(1, 0)},
		{"\r\n", 2, pos(1, 0)},
		{"abc", 1, pos(0, 3)},
		{"a\rb", 1, pos(0, 3)}, // a lone \r is text
		{"x\r", 1, pos(0, 2)},  // so is a final \r without \n
		{"a\n\nb\n", 4, pos(3, 0)},
	} {
		m := NewMapper(tc.text)
		if len(m.lines) != tc.lines {
			t.Errorf("%q: LineCount = %d, want %d", tc.text, len(m.lines), tc.lines)
		}
		if got := m.OffsetToPosition(len(tc.text), UTF16); got != tc.end {
			t.Errorf("%q: end position = %v, want %v", tc.text, got, tc.end)
		}
		if off, err := m.PositionToOffset(tc.end, UTF16); err != nil || off != len(tc.text) {
			t.Errorf("%q: PositionToOffset(%v) = %d, %v; want %d", tc.text, tc.end, off, err, len(tc.text))
		}
	}
}

func TestRangeToOffsets(t *testing.T) {
	m := NewMapper(mixed)
	s, e, err := m.RangeToOffsets(protocol.Range{Start: pos(0, 2), End: pos(1, 2)}, UTF16)
	if err != nil || s != 3 || e != 14 {
		t.Errorf("RangeToOffsets = %d, %d, %v; want 3, 14", s, e, err)
	}
	if _, _, err := m.RangeToOffsets(protocol.Range{Start: pos(1, 2), End: pos(0, 2)}, UTF16); !errors.Is(err, ErrInvalidPosition) {
		t.Errorf("reversed range: err = %v, want ErrInvalidPosition", err)
	}
	if _, _, err := m.RangeToOffsets(protocol.Range{Start: pos(0, 0), End: pos(0, 3)}, UTF16); !errors.Is(err, ErrInvalidPosition) {
		t.Errorf("range ending inside a surrogate pair: err = %v, want ErrInvalidPosition", err)
	}
	if r := m.OffsetsToRange(3, 14, UTF32); r.Start != pos(0, 2) || r.End != pos(1, 2) {
		t.Errorf("OffsetsToRange(3, 14, utf-32) = %v", r)
	}
}

// refPosition computes the position of off the slow, obvious way, as a
// check on the Mapper's snapping and counting.
func refPosition(text string, off int, enc Encoding) (protocol.Position, int) {
	off = max(0, min(off, len(text)))
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	end := len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
		if end > start && text[end-1] == '\r' {
			end--
		}
	}
	off = min(off, end)
	snapped := start
	for i := start; i < end; {
		_, size := utf8.DecodeRuneInString(text[i:end])
		if i+size > off {
			break
		}
		i += size
		snapped = i
	}
	seg := text[start:snapped]
	var n int
	switch enc {
	case UTF8:
		n = len(seg)
	case UTF16:
		n = len(utf16.Encode([]rune(seg)))
	case UTF32:
		n = utf8.RuneCountInString(seg)
	}
	return pos(uint32(line), uint32(n)), snapped
}

func FuzzPositions(f *testing.F) {
	f.Add(mixed, 5)
	f.Add(mixed, 11)
	f.Add("a\r\n\r\nb", 3)
	f.Add("\xe4\xb8\n\xe4\xb8\xad", 2)
	f.Add("x\U0010FFFF\ry", 4)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, text string, off int) {
		m := NewMapper(text)
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			p := m.OffsetToPosition(off, enc)
			want, snapped := refPosition(text, off, enc)
			if p != want {
				t.Fatalf("OffsetToPosition(%q, %d, %v) = %v, want %v", text, off, enc, p, want)
			}
			back, err := m.PositionToOffset(p, enc)
			if err != nil || back != snapped {
				t.Fatalf("PositionToOffset(%v, %v) = %d, %v; want %d (text %q)", p, enc, back, err, snapped, text)
			}
		}
	})
}
