package edits

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// goLike returns n lines that look like Go source, with distinct lines so
// that the line diff has real work to do.
func goLike(n int) string {
	var b strings.Builder
	for i := range n {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "func handler%d(ctx context.Context, req *Request) (*Response, error) {\n", i)
		case 1:
			fmt.Fprintf(&b, "\tvalue%d := compute(req.Field%d, \"héllo 😀 %d\")\n", i, i%17, i)
		case 2:
			fmt.Fprintf(&b, "\tif err := check(value%d); err != nil {\n", i-1)
		case 3:
			fmt.Fprintf(&b, "\t\treturn nil, fmt.Errorf(\"step %d: %%w\", err)\n", i)
		case 4:
			b.WriteString("\t}\n")
		}
	}
	return b.String()
}

// scatter renames one identifier on k lines spread over text.
func scatter(text string, k int, seed uint64) string {
	lines := strings.SplitAfter(text, "\n")
	r := rand.New(rand.NewPCG(seed, 1))
	for _, i := range r.Perm(len(lines) - 1)[:k] {
		if strings.Contains(lines[i], "value") {
			lines[i] = strings.Replace(lines[i], "value", "result", 1)
		} else {
			lines[i] = strings.Replace(lines[i], "\t", "\t// changed\n\t", 1)
		}
	}
	return strings.Join(lines, "")
}

func editsJSONSize(tb testing.TB, edits []protocol.TextEdit) int {
	b, err := protocol.Marshal(edits)
	if err != nil {
		tb.Fatal(err)
	}
	return len(b)
}

// TestEditPayloadGrowsWithChangeNotFile checks the property the one-line
// benchmark reports: the edits sent for a one-word change are the same size
// whatever the size of the file.
func TestEditPayloadGrowsWithChangeNotFile(t *testing.T) {
	sizes := map[int]int{}
	for _, n := range []int{100, 10_000, 50_000} {
		old := goLike(n)
		new := strings.Replace(old, "value51 :=", "result51 :=", 1)
		edits := Compute(old, new, UTF16)
		if len(edits) != 1 || edits[0].NewText != "result" {
			t.Fatalf("%d lines: edits = %+v, want one edit renaming value to result", n, edits)
		}
		sizes[n] = editsJSONSize(t, edits)
	}
	if sizes[100] != sizes[50_000] || sizes[100] > 100 {
		t.Errorf("edit JSON bytes by file lines = %v; want the same small size", sizes)
	}
}

func benchCompute(b *testing.B, old, new string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(old)))
	var edits []protocol.TextEdit
	for b.Loop() {
		edits = Compute(old, new, UTF16)
	}
	got, err := ApplyTextEdits(old, edits, UTF16)
	if err != nil || got != new {
		b.Fatalf("edits do not reproduce new: %v", err)
	}
	b.ReportMetric(float64(len(edits)), "edits")
	b.ReportMetric(float64(editsJSONSize(b, edits)), "json-bytes")
}

func BenchmarkCompute10kLines100Changes(b *testing.B) {
	old := goLike(10_000)
	benchCompute(b, old, scatter(old, 100, 1))
}

func BenchmarkCompute10kLinesOneLine(b *testing.B) {
	old := goLike(10_000)
	benchCompute(b, old, strings.Replace(old, "value5001 :=", "result5001 :=", 1))
}

func BenchmarkCompute50kLines100Changes(b *testing.B) {
	old := goLike(50_000)
	benchCompute(b, old, scatter(old, 100, 2))
}

func BenchmarkCompute50kLinesOneLine(b *testing.B) {
	old := goLike(50_000)
	benchCompute(b, old, strings.Replace(old, "value25001 :=", "result25001 :=", 1))
}

func BenchmarkApplyTextEdits10kLines100Edits(b *testing.B) {
	old := goLike(10_000)
	new := scatter(old, 100, 1)
	edits := Compute(old, new, UTF16)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ApplyTextEdits(old, edits, UTF16); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOffsetToPositionUTF16(b *testing.B) {
	text := goLike(10_000)
	m := NewMapper(text)
	r := rand.New(rand.NewPCG(3, 4))
	offs := make([]int, 1024)
	for i := range offs {
		offs[i] = r.IntN(len(text))
	}
	i := 0
	for b.Loop() {
		m.OffsetToPosition(offs[i%len(offs)], UTF16)
		i++
	}
}

func BenchmarkNewMapper10kLines(b *testing.B) {
	text := goLike(10_000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		NewMapper(text)
	}
}

func BenchmarkRevert10kLines(b *testing.B) {
	base := goLike(10_000)
	after := scatter(base, 100, 1)
	current := scatter(after, 20, 5)
	b.ReportAllocs()
	for b.Loop() {
		Revert(base, after, current)
	}
}

func BenchmarkUnified10kLines100Changes(b *testing.B) {
	old := goLike(10_000)
	new := scatter(old, 100, 1)
	for b.Loop() {
		Unified("a/f.go", "b/f.go", old, new, 3)
	}
}
