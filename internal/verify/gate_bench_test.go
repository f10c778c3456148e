package verify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
