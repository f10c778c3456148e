package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
)

// BenchmarkCheckDirNonGo1000Files: the copy a non-Go workspace's checks
// run in (100 directories of 10 two-kilobyte Python files), made and
// removed, as each verify pays it. model-files: the model's two edited
// buffers differ from disk; 100-differ: a hundred unsaved buffers.
func BenchmarkCheckDirNonGo1000Files(b *testing.B) {
	root := b.TempDir()
	body := strings.Repeat("# some source text for the benchmark, line\n", 48)
	for d := range 100 {
		for f := range 10 {
			writeFile(b, root, fmt.Sprintf("pkg%03d/mod%d.py", d, f), body)
		}
	}
	for _, n := range []int{2, 100} {
		name := "model-files"
		if n > 2 {
			name = fmt.Sprintf("%d-differ", n)
		}
		files := map[string][]byte{}
		for i := range n {
			files[fmt.Sprintf("pkg%03d/mod%d.py", i*7%100, i%10)] = []byte("x = 1\n")
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				o, err := NewCheckDir(root, files)
				if err != nil {
					b.Fatal(err)
				}
				if err := o.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkViewNonGo1000Files: the same workspace and buffers shown to a
// check through the sandbox's view (proc.Sandbox.View), the whole run of
// `true` in it included; "none" is the sandbox with no view, the cost to
// subtract.
func BenchmarkViewNonGo1000Files(b *testing.B) {
	if ok, why := proc.Available(); !ok {
		b.Skip(why)
	}
	root := b.TempDir()
	body := strings.Repeat("# some source text for the benchmark, line\n", 48)
	for d := range 100 {
		for f := range 10 {
			writeFile(b, root, fmt.Sprintf("pkg%03d/mod%d.py", d, f), body)
		}
	}
	for _, n := range []int{0, 2, 100} {
		name := map[int]string{0: "none", 2: "model-files", 100: "100-differ"}[n]
		var files map[string][]byte
		if n > 0 {
			files = map[string][]byte{}
		}
		for i := range n {
			files[fmt.Sprintf("pkg%03d/mod%d.py", i*7%100, i%10)] = []byte("x = 1\n")
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r, err := proc.Run(context.Background(), proc.Spec{Argv: []string{"true"}, Dir: root, Sandbox: proc.Sandbox{View: files}})
				if err != nil || r.ExitCode != 0 {
					b.Fatalf("%+v %v", r, err)
				}
			}
		})
	}
}
