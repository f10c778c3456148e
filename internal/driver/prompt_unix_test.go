//go:build unix

package driver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The workspace's instruction files are untrusted input. AGENTS.md as a
// symlink to a file outside the workspace must not put that file in the
// prompt (the model provider would get it), and one that is a named pipe
// must not hang planning: an open waits for a writer, and the task could
// not even be cancelled, since Run waits for its planner. The same holds
// for a file mentioned with @.
func TestPlannerReadsOnlyConfinedRegularFiles(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "id_rsa"), []byte("TOPSECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "id_rsa"), filepath.Join(root, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".agentls", "instructions.md"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}

	type planned struct {
		text string
		err  error
	}
	done := make(chan planned, 1)
	go func() {
		p, err := WorkspacePlanner{Root: root}.Plan(context.Background(), Assignment{Prompt: "read @pipe.md"})
		var b strings.Builder
		for _, m := range p.Prefix {
			b.WriteString(m.Content)
		}
		done <- planned{b.String(), err}
	}()
	select {
	case got := <-done:
		if got.err != nil {
			t.Fatal(got.err)
		}
		if strings.Contains(got.text, "TOPSECRET") {
			t.Errorf("a symlinked AGENTS.md put a file from outside the workspace in the prompt:\n%s", got.text)
		}
		if strings.Contains(got.text, "Project instructions") || strings.Contains(got.text, "pipe.md:") {
			t.Errorf("a file that is not regular reached the prompt:\n%s", got.text)
		}
	case <-time.After(5 * time.Second):
		// Unblock the planner's open so the test process can end.
		for _, p := range []string{filepath.Join(root, ".agentls", "instructions.md"), filepath.Join(root, "pipe.md")} {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		t.Fatal("planning hung on a named pipe in the workspace")
	}
}
