package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// Issue 31: two ACP sessions on one connection, prompted at once, each
// edit a different line of the same file through the client's
// fs/write_text_file. Both edits land in every run, with a client that
// writes at once and one that takes 50 ms. On main one session's edit was
// gone in most runs while both answered end_turn.
func TestACPTwoSessionsEditOneFile(t *testing.T) {
	const script = `{"turns":[
 {"toolCalls":[{"id":"e1","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello world\",\"new_string\":\"HELLO WORLD\"}"}]},
 {"toolCalls":[{"id":"e2","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"second line\",\"new_string\":\"SECOND LINE\"}"}]},
 {"text":"Done."},
 {"text":"Done."}]}`
	for _, delay := range []time.Duration{0, 50 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			lost := 0
			for run := range 12 {
				r := startACP(t, "hello", script, true, nil)
				r.client.mu.Lock()
				r.client.writeDelay = delay
				r.client.mu.Unlock()
				a, b := r.newSession(t), r.newSession(t)
				var wg sync.WaitGroup
				stops := make([]sdk.StopReason, 2)
				for i, id := range []sdk.SessionId{a, b} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						res, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(fmt.Sprintf("edit line %d", i+1))}})
						if err != nil {
							t.Errorf("session/prompt: %v", err)
						}
						stops[i] = res.StopReason
					}()
				}
				wg.Wait()
				r.client.mu.Lock()
				got := r.client.buffers[filepath.Join(r.root, "hello.txt")]
				r.client.mu.Unlock()
				if got != "HELLO WORLD\nSECOND LINE\n" {
					lost++
					t.Errorf("run %d: the client's hello.txt is %q (stop reasons %v)", run, got, stops)
				}
			}
			t.Logf("%d of 12 runs lost an edit", lost)
		})
	}
}

// Issue 31: what a command wrote is in the task's change log: undo puts
// back a file the command changed and removes one it created, as for the
// task's own edits. On main undo knew nothing of them ("changed no
// files"), as Claude Code says of its checkpoints and bash commands.
func TestCommandWritesAreUndone(t *testing.T) {
	caps := lspclient.VSCodeCaps()
	caps.FileOps = true
	s := start(t, setup{caps: &caps, workspace: "hello", script: scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "sed -i 's/hello/goodbye/' hello.txt && echo made > new.txt"}}}},
		turn{text: "Done."},
	)})
	r := s.run(t, map[string]any{"task": "rewrite"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt")); string(b) != "goodbye world\nsecond line\n" {
		t.Fatalf("the command's change did not land: %q", b)
	}
	var undo struct {
		Applied   bool   `json:"applied"`
		Reason    string `json:"reason"`
		Conflicts []any  `json:"conflicts"`
	}
	if err := s.Command(s.ctx, "agentls.undo", map[string]any{"taskId": r.TaskID}, &undo); err != nil || !undo.Applied {
		t.Fatalf("undo: %+v, %v", undo, err)
	}
	text, open := s.Text("hello.txt")
	if !open {
		b, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt"))
		text = string(b)
	}
	if text != "hello world\nsecond line\n" {
		t.Errorf("hello.txt after undo: %q", text)
	}
	if fileExists(filepath.Join(s.Root, "new.txt")) {
		t.Errorf("new.txt, created by the command, is still there after undo (%+v)", undo)
	}
}
