package tools

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/edits"
)

// BenchmarkEditLargeFile is one edit_file replacement in a file just under
// maxEditSize, and the diffs that carry it to the editor (edits.Diff) and
// the session (edits.Unified): what the raised limit costs.
func BenchmarkEditLargeFile(b *testing.B) {
	line := "generated line of text, as a code generator writes it\n"
	n := (maxEditSize - 64) / len(line)
	old := strings.Repeat(line, n/2) + "needle\n" + strings.Repeat(line, n/2)
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		out, _, err := replaceIn("gen.txt", []byte(old), "needle", "pin", false)
		if err != nil {
			b.Fatal(err)
		}
		if cs := edits.Diff(old, string(out)); len(cs) != 1 {
			b.Fatalf("%d changes", len(cs))
		}
		if d := edits.Unified("a/gen.txt", "b/gen.txt", old, string(out), -1); !strings.Contains(d, "+pin") {
			b.Fatal("no diff")
		}
	}
}
