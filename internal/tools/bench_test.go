//go:build unix

package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchTree writes 100,000 small files: 900 directories of 100 visible files
// and an ignored node_modules of 10,000, with a rare needle.
// AGENTLS_BENCH_TREE names a directory to build the tree in once and reuse,
// because writing 100,000 files takes longer than the benchmark itself.
func benchTree(b *testing.B) string {
	b.Helper()
	root := os.Getenv("AGENTLS_BENCH_TREE")
	if root == "" {
		root = b.TempDir()
	} else if _, err := os.Stat(root + ".done"); err == nil {
		return root
	}
	body := strings.Repeat("func helper(x int) int { return x * 2 } // some ordinary source text\n", 8)
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	mkdir := func(rel string) {
		if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	mkdir(".git")
	write(".gitignore", "node_modules/\n*.tmp\n")
	n := 0
	for d := range 900 {
		dir := fmt.Sprintf("pkg%03d/sub%d", d, d%7)
		mkdir(dir)
		for f := range 100 {
			text := body
			if (d*100+f)%997 == 0 {
				text += "var needleVariable = 42\n"
			}
			name := fmt.Sprintf("f%03d.go", f)
			if f%50 == 49 {
				name = fmt.Sprintf("f%03d.tmp", f) // ignored by pattern
			}
			write(dir+"/"+name, text)
			n++
		}
	}
	for d := range 100 {
		dir := fmt.Sprintf("node_modules/m%03d", d)
		mkdir(dir)
		for f := range 100 {
			write(fmt.Sprintf("%s/i%03d.js", dir, f), body+"needleVariable\n")
			n++
		}
	}
	if n != 100_000 {
		b.Fatalf("wrote %d files", n)
	}
	if os.Getenv("AGENTLS_BENCH_TREE") != "" {
		if err := os.WriteFile(root+".done", nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// BenchmarkSearch times grep and list_files on the 100,000-file tree, and
// ripgrep on the same tree when it is installed, for comparison. Besides
// wall time it reports cpu-ms/op (user+system), which stays comparable when
// other work shares the machine.
func BenchmarkSearch(b *testing.B) {
	root := benchTree(b)
	ws, err := NewDiskWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	gr := toolNamed(b, ws, Options{}, "grep")
	lf := toolNamed(b, ws, Options{}, "list_files")
	ctx := context.Background()
	// Warm the page cache so every contender sees the same state.
	if _, err := gr.Run(ctx, []byte(`{"pattern":"x"}`)); err != nil {
		b.Fatal(err)
	}
	for _, pat := range []string{"needleVariable", `needle\w+ = \d+`} {
		b.Run("grep/"+pat, func(b *testing.B) {
			args := fmt.Appendf(nil, `{"pattern":%q}`, pat)
			defer selfCPU(b)()
			for b.Loop() {
				res, err := gr.Run(ctx, args)
				if err != nil {
					b.Fatal(err)
				}
				if got := strings.Count(res.Output, "\n"); got != 89 {
					b.Fatalf("%d lines:\n%s", got, res.Output)
				}
			}
		})
		rg, err := exec.LookPath("rg")
		if err != nil {
			continue
		}
		b.Run("rg/"+pat, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(rg, "--no-require-git", "-n", "--no-heading", pat, ".")
				cmd.Dir = root
				out, err := cmd.Output()
				if err != nil {
					b.Fatal(err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				if got := strings.Count(string(out), "\n"); got != 89 {
					b.Fatalf("rg: %d lines", got)
				}
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
	b.Run("list_files", func(b *testing.B) {
		defer selfCPU(b)()
		for b.Loop() {
			res, err := lf.Run(ctx, []byte(`{}`))
			if err != nil {
				b.Fatal(err)
			}
			if !strings.Contains(res.Output, "1000 of 88201 files shown") {
				b.Fatalf("output tail: %s", res.Output[len(res.Output)-200:])
			}
		}
	})
	if rg, err := exec.LookPath("rg"); err == nil {
		b.Run("rg/--files", func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(rg, "--no-require-git", "--files", ".")
				cmd.Dir = root
				out, err := cmd.Output()
				if err != nil {
					b.Fatal(err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				if got := strings.Count(string(out), "\n"); got != 88200 {
					b.Fatalf("rg --files: %d", got)
				}
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// selfCPU reports this process's CPU time per op for the benchmark, measured
// from the call to the returned function's call.
func selfCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkProtectedWrite is the question every write asks (is the file
// protected by name, or where a protected symlink leads?), with this
// repository as the workspace: one lstat per directory once the index of
// protected links is built (linkIndex), a directory read again only where
// it changed.
func BenchmarkProtectedWrite(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if ok, why := ProtectedWrite(root, "internal/tools/x.go", ""); ok {
			b.Fatal(why)
		}
	}
}
