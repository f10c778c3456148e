package verify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkGateOverhead reports what Run adds on top of the check itself
// (a no-op command), on a 1,000-file Go workspace: in place, with a Go
// buffer served by go's -overlay, and with a non-Go buffer, which needs
// the copied overlay.
func BenchmarkGateOverhead(b *testing.B) {
	root := b.TempDir()
	_ = os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	for i := 0; i < 1000; i++ {
		dir := filepath.Join(root, fmt.Sprintf("p%02d", i%50))
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(fmt.Sprintf("package p%02d\n\nconst C%d = %d\n", i%50, i, i)), 0o644)
	}
	// The floor: the same no-op command run directly.
	began := time.Now()
	for i := 0; i < 20; i++ {
		_ = exec.Command("sh", "-c", "go version >/dev/null").Run()
	}
	floor := time.Since(began) / 20
	for _, c := range []struct {
		name  string
		files map[string][]byte
	}{
		{"in-place", nil},
		{"go-overlay", map[string][]byte{"p00/f0.go": []byte("package p00\n\nconst C0 = 7\n")}},
		{"copied-overlay", map[string][]byte{"notes.txt": []byte("x")}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), RunOptions{Root: root, Commands: []string{"go version >/dev/null"}, Unsaved: c.files}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N)-floor)/1e6, "ms-overhead")
		})
	}
}

// BenchmarkGate reports the verify gate's checks after a one-file change,
// scoped (Scope, its own time included) against the detected checks run
// whole, on the projects genproj_test.go generates (50 modules, 200
// tests, each test computing a loop: genLang.work): Python under pytest
// and under unittest, JavaScript and TypeScript under node's runner
// (TypeScript type-checked by tsc and run through tsx), and Go. A change
// to the leaf module and to the shared one, with the toolchain's caches
// warm (the project was checked before the change) and cold (Go: an empty
// build cache; Python: no __pycache__; TypeScript: no tsc build
// information and tsx's transform cache off). Node keeps no cache of its
// own, so JavaScript has only warm. Each iteration changes the module's
// NONCE (an unsaved buffer), so every change is new to the caches.
// Metrics: s-scoped, s-full, and x-full, their ratio. Run with
// -benchtime 1x.
func BenchmarkGate(b *testing.B) {
	for _, lang := range genLangs {
		b.Run(lang.name, func(b *testing.B) {
			root := b.TempDir()
			lang.gen(b, root, lang.work)
			gocache := b.TempDir()
			env := []string{"GOCACHE=" + gocache}
			switch lang.name {
			case "python", "python-unittest":
				// Warm: the tests ran on disk before (their __pycache__,
				// pytest's rewritten test modules included).
				c := exec.Command("pytest", "-q", "-p", "no:cacheprovider")
				if lang.name == "python-unittest" {
					c = exec.Command("python3", "-m", "unittest", "-q")
				}
				c.Dir = root
				if out, err := c.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			case "go", "typescript":
				if _, err := Run(context.Background(), RunOptions{Root: root, Commands: lang.cmds, Env: env}); err != nil {
					b.Fatal(err)
				}
			}
			for _, change := range []string{"leaf", "shared"} {
				module := "m48"
				if change == "shared" {
					module = "shared"
				}
				for _, cache := range []string{"warm", "cold"} {
					if cache == "cold" && lang.name == "javascript" {
						continue
					}
					b.Run(change+"/"+cache, func(b *testing.B) {
						rel := lang.module(module)
						orig, err := os.ReadFile(filepath.Join(root, rel))
						if err != nil {
							b.Fatal(err)
						}
						var scopedT, fullT time.Duration
						nonce := 0
						run := func(scoped bool) time.Duration {
							nonce++
							text := strings.Replace(string(orig), fmt.Sprintf(lang.nonceFmt, 0), fmt.Sprintf(lang.nonceFmt, nonce), 1)
							unsaved := map[string][]byte{rel: []byte(text)}
							env := env
							if cache == "cold" {
								b.StopTimer()
								switch lang.name {
								case "go":
									env = []string{"GOCACHE=" + b.TempDir()}
								case "typescript":
									if err := os.RemoveAll(filepath.Join(root, "node_modules", ".cache")); err != nil {
										b.Fatal(err)
									}
									env = []string{"TSX_DISABLE_CACHE=1"}
								default:
									removePycache(b, root)
								}
								b.StartTimer()
							}
							began := time.Now()
							cmds := lang.cmds
							if scoped {
								cmds = Commands(Scope(context.Background(), ScopeInput{Root: root, Commands: lang.cmds, Changed: []string{rel}, Unsaved: unsaved}))
							}
							rs, err := Run(context.Background(), RunOptions{Root: root, Commands: cmds, Unsaved: unsaved, Env: env})
							if err != nil || !passedAll(rs) {
								b.Fatalf("%q: %v %+v", cmds, err, rs)
							}
							return time.Since(began)
						}
						for i := 0; i < b.N; i++ {
							scopedT += run(true)
							fullT += run(false)
						}
						b.ReportMetric(scopedT.Seconds()/float64(b.N), "s-scoped")
						b.ReportMetric(fullT.Seconds()/float64(b.N), "s-full")
						b.ReportMetric(float64(scopedT)/float64(fullT), "x-full")
					})
				}
			}
		})
	}
}

func removePycache(b *testing.B, root string) {
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "__pycache__" {
			if err := os.RemoveAll(p); err != nil {
				b.Fatal(err)
			}
			return filepath.SkipDir
		}
		return nil
	})
}
