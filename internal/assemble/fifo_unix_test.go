//go:build unix

package assemble

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe where a workspace file agentls reads on its own (the git
// index, a hook file) is an error at once, never a wait for a writer that
// never comes (the task would hang before it starts).
func TestWorkspaceFifosDoNotBlock(t *testing.T) {
	for _, c := range []struct{ name, fifo string }{
		{"git index", ".git/index"},
		{".git file", ".git"},
		{"hook file", ".claude/settings.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, filepath.FromSlash(c.fifo))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if _, err := readIndex(root); err == nil {
					t.Error("readIndex read a named pipe")
				}
				for _, h := range ReadHookFiles(root, nil) {
					if h.Problem == "" {
						t.Errorf("%s: a named pipe read as a hook file", h.Rel)
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				// Unblock the open so the goroutine ends.
				if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				<-done
				t.Fatalf("reading the workspace blocked on the named pipe %s", c.fifo)
			}
		})
	}
}
