package verify

import (
	"fmt"
	"strings"
	"testing"
)

// goTestOutput5000 builds a 5,000-line go test output from the captured
// one: many failing tests with logs, panics and build errors.
func goTestOutput5000(tb testing.TB) (string, string) {
	f := loadFixture(tb, "go_test.txt")
	var b strings.Builder
	lines := 0
	for i := 0; lines < 5000; i++ {
		fmt.Fprintf(&b, "--- FAIL: TestGen%d (0.00s)\n    calc_test.go:%d: got %d, want %d\n        more detail\n", i, i%40+1, i, i+1)
		lines += 3
		if i%50 == 0 {
			b.WriteString(f.output)
			lines += strings.Count(f.output, "\n")
		}
	}
	b.WriteString("FAIL\texample.com/captest/calc\t0.002s\nFAIL\n")
	return b.String(), f.root
}

func BenchmarkParseGoTest5000Lines(b *testing.B) {
	out, root := goTestOutput5000(b)
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for b.Loop() {
		diags, _ := parseOutput(out, root, root, "go test ./...")
		if len(diags) < 1000 {
			b.Fatalf("%d diagnostics", len(diags))
		}
	}
}

// A megabyte of output no parser understands, the worst case for the
// fallbacks.
func BenchmarkParseMegabyteOfNoise(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < maxOutput; i++ {
		fmt.Fprintf(&sb, "step %d: compiling module number %d of the build\n", i, i)
	}
	out := sb.String()
	root := b.TempDir()
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for b.Loop() {
		parseOutput(out, root, root, "make")
	}
}

// Copying a 1,000-file workspace (100 directories of 10 files of 2 KB) to
// a CheckDir; removing it again is not timed.
func BenchmarkNewCheckDir1000Files(b *testing.B) {
	root := b.TempDir()
	body := strings.Repeat("// some source text for the benchmark\n", 50)
	for d := 0; d < 100; d++ {
		for f := 0; f < 10; f++ {
			writeFile(b, root, fmt.Sprintf("pkg%03d/file%d.go", d, f), body)
		}
	}
	files := map[string][]byte{"pkg000/file0.go": []byte("package edited\n")}
	b.ResetTimer()
	for range b.N {
		o, err := NewCheckDir(root, files)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := o.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
