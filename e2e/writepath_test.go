package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
				// Each session edits without a read of its own (the turns
				// go to whichever session asks first).
				r := startACP(t, "hello", script, true, map[string]any{"agent": map[string]any{"readBeforeEdit": false}})
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

// Issue 31: the worktree merge judges by line. The task rewrote the
// expression of a line the user appended a comment to: a conflict that
// shows both lines and writes neither (main wrote "return b + a // A", a
// line nobody wrote); asked for, the conflict goes into the file between
// conflict markers.
func TestCLIWorktreeMergeSameLine(t *testing.T) {
	root := copyWorkspace(t, "")
	os.WriteFile(filepath.Join(root, "calc.go"), []byte("package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"), 0o644)
	commitAll(t, root)
	state := filepath.Join(t.TempDir(), "state")
	_, base := startModel(t, `{"turns":[
 {"toolCalls":[{"id":"r1","name":"read_file","arguments":"{\"path\":\"calc.go\"}"}]},
 {"toolCalls":[{"id":"a1","name":"edit_file","arguments":"{\"path\":\"calc.go\",\"old_string\":\"return a + b\",\"new_string\":\"return b + a\"}"}]},
 {"text":"done."}]}`)
	env := append(cleanEnv(), "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model", "XDG_STATE_HOME="+state)
	agentls := func(args ...string) (string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := agentls("run", "--base-url", base, "--no-verify", "--isolation", "worktree", "swap"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	out, _ := agentls("worktrees", "list", "--json")
	var list []worktreeEntry
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("list: %v\n%s", err, out)
	}
	mine := "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b // A: the sum\n}\n"
	os.WriteFile(filepath.Join(root, "calc.go"), []byte(mine), 0o644)
	out, code := agentls("worktrees", "merge", list[0].ID)
	if code != 1 || !strings.Contains(out, "conflict: calc.go:4") || !strings.Contains(out, "return a + b // A: the sum") || !strings.Contains(out, "return b + a") {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "calc.go")); string(b) != mine {
		t.Fatalf("a conflicting merge wrote %q", b)
	}
	out, code = agentls("worktrees", "merge", "--markers", list[0].ID)
	want := "package calc\n\nfunc Add(a, b int) int {\n<<<<<<< yours\n\treturn a + b // A: the sum\n=======\n\treturn b + a\n>>>>>>> task " + list[0].ID + "\n}\n"
	if b, _ := os.ReadFile(filepath.Join(root, "calc.go")); code != 1 || string(b) != want {
		t.Fatalf("merge --markers: exit %d\n%s\ncalc.go:\n%s", code, out, b)
	}
}
