package apply

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkEdit is one edit of a 10,000-line file through the Applier over
// a transport that costs nothing: the write path's own overhead (the turn
// per file, the read, the plan, the compare at write time).
func BenchmarkEdit(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	m := &memory{files: map[string]string{"f": sb.String()}}
	a := New(m)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		old, new := "line 5000\n", "LINE 5000\n"
		if i%2 == 1 {
			old, new = new, old
		}
		if _, err := a.Edit(ctx, "f", "", replace(old, new)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLanded is the check that an applied edit is in the editor's
// text, on a 10,000-line file with the user's typing elsewhere.
func BenchmarkLanded(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	base := sb.String()
	next := strings.Replace(base, "line 5000\n", "LINE 5000\n", 1)
	text := "typed\n" + next
	b.ReportAllocs()
	for b.Loop() {
		if !Landed(base, text, next) {
			b.Fatal("not landed")
		}
	}
}
