package agent

// Text helpers of the machine: output caps, first lines, canonical JSON.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/textcut"
)

func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > max {
		s = textcut.Head(s, max) + "…"
	}
	return s
}

// CapOutput keeps the head and tail of s within limit bytes, with a marker
// saying how much was cut.
func CapOutput(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	// The marker counts the bytes it replaces, and its own length depends
	// on that count: settle it in a few rounds.
	keep, marker := 0, ""
	for range 3 {
		marker = fmt.Sprintf("\n[... %d bytes cut ...]\n", len(s)-keep)
		keep = max(limit-len(marker), 0)
	}
	// Cut on rune boundaries so the model never gets half a character.
	// This only cuts more, so the marker can grow by a digit at most while
	// the text shrinks by at least a byte.
	head := textcut.Floor(s, keep*6/10)
	tail := textcut.Ceil(s, len(s)-(keep-keep*6/10))
	return s[:head] + fmt.Sprintf("\n[... %d bytes cut ...]\n", tail-head) + s[tail:]
}

// canonicalJSON renders arguments with sorted keys and no spaces, so that
// the same call spelled differently counts as the same call (json.Marshal
// sorts map keys).
func canonicalJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return strings.TrimSpace(s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
