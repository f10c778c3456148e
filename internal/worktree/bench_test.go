package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCreateFinishDiscard is a worktree task's git overhead on a
// repository of 2,000 files (1 KiB each, in 40 directories) with 20
// uncommitted changes and 5 unsaved buffers: the snapshot, the end's
// commit and diff of 3 changed files, and the discard.
func BenchmarkCreateFinishDiscard(b *testing.B) {
	files := map[string]string{}
	line := strings.Repeat("x", 63) + "\n"
	for i := 0; i < 2000; i++ {
		files[fmt.Sprintf("d%02d/f%04d.txt", i%40, i)] = strings.Repeat(line, 16)
	}
	root := repo(b, files)
	for i := 0; i < 20; i++ {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("d%02d/f%04d.txt", i%40, i)), []byte("changed\n"), 0o644)
	}
	buffers := map[string][]byte{}
	for i := 100; i < 105; i++ {
		buffers[fmt.Sprintf("d%02d/f%04d.txt", i%40, i)] = []byte("unsaved\n")
	}
	state := b.TempDir()
	ctx := context.Background()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		tr, err := Create(ctx, Options{Root: root, StateDir: state, ID: fmt.Sprintf("b%d", n), Buffers: buffers})
		if err != nil {
			b.Fatal(err)
		}
		for i := 200; i < 203; i++ {
			os.WriteFile(filepath.Join(tr.Dir(), fmt.Sprintf("d%02d/f%04d.txt", i%40, i)), []byte("task\n"), 0o644)
		}
		cs, _, err := tr.Finish(ctx)
		if err != nil || len(cs) != 3 {
			b.Fatalf("%d changes, %v", len(cs), err)
		}
		if err := tr.Discard(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
