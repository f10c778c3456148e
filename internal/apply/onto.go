package apply

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/edits"
)

// Onto is what a Viewer's Wrote writes: the command's change from
// the text it saw (seen) to the text it left (next), placed onto the text
// as it is now (cur). Lines changed meanwhile that the command changed too
// keep the current text, and note says which.
func Onto(cur []byte, exists bool, seen, next []byte) ([]byte, string) {
	if !exists || bytes.Equal(cur, seen) {
		return next, ""
	}
	merged, conflicts := edits.Revert(string(next), string(seen), string(cur))
	if len(conflicts) == 0 {
		return []byte(merged), ""
	}
	lines := make([]string, len(conflicts))
	for i, c := range conflicts {
		lines[i] = fmt.Sprint(c.Line)
	}
	return []byte(merged), "line " + strings.Join(lines, ", ") + " changed while the command ran; the command's change there was not applied, the current text stays"
}
