package lsp

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/edits"
)

// rangeOffsets must agree with the mapper on every position, valid or not,
// in every encoding: the same offsets, or the same error.
func TestRangeOffsetsAgreeWithTheMapper(t *testing.T) {
	texts := []string{
		"",
		"one line",
		"a\nbc\n",
		"a\r\nbc\r\n\r\nd",
		"é😀x\nz😀\n\nñ",
		"\n\n",
		"bad \xff byte\nnext",
	}
	encs := []edits.Encoding{edits.UTF8, edits.UTF16, edits.UTF32}
	checked := 0
	for _, text := range texts {
		m := edits.NewMapper(text)
		lines := strings.Count(text, "\n") + 1
		var positions []protocol.Position
		for l := 0; l <= lines+1; l++ {
			for c := 0; c <= len(text)+2; c++ {
				positions = append(positions, protocol.Position{Line: uint32(l), Character: uint32(c)})
			}
		}
		for _, enc := range encs {
			for _, a := range positions {
				for _, b := range positions {
					r := protocol.Range{Start: a, End: b}
					ws, we, werr := m.RangeToOffsets(r, enc)
					gs, ge, gerr := rangeOffsets(text, r, enc)
					if fmt.Sprint(werr) != fmt.Sprint(gerr) || werr == nil && (ws != gs || we != ge) {
						t.Fatalf("%q %v %v: mapper %d,%d,%v; rangeOffsets %d,%d,%v", text, enc, r, ws, we, werr, gs, ge, gerr)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d ranges agree", checked)
}
