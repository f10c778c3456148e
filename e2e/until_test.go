package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// A stop condition (issue 40): agentls run --until CMD keeps the task going
// after the model stops until CMD succeeds in the sandbox, or the budget
// ends, and says which.

func TestUntilPassesOnTheSecondTry(t *testing.T) {
	dir := copyWorkspace(t, "hello")
	script := scriptOf(
		turn{text: "Done, I think."},
		turn{calls: [][2]any{{"read_file", map[string]any{"path": "hello.txt"}}},
			expect: map[string]string{"lastUserContains": "You may stop only once `grep -q goodbye hello.txt` succeeds"}},
		turn{calls: [][2]any{{"edit_file", map[string]any{"path": "hello.txt", "old_string": "hello", "new_string": "goodbye"}}}},
		turn{text: "Now it says goodbye."},
	)
	out, code := headless(t, dir, script, "--until", "grep -q goodbye hello.txt", "say goodbye")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !containsAll(out, "the stop condition `grep -q goodbye hello.txt` failed (exit 1); the model goes back to work",
		"the stop condition `grep -q goodbye hello.txt` passed", "Now it says goodbye.") {
		t.Errorf("output does not say how the condition went:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "hello.txt")); string(b[:7]) != "goodbye" {
		t.Errorf("hello.txt = %q", b)
	}
}

func TestUntilNeverPassingEndsNonZeroAtTheBudget(t *testing.T) {
	dir := copyWorkspace(t, "hello")
	script := scriptOf(
		turn{text: "Done."},
		turn{text: "Still done.", expect: map[string]string{"lastUserContains": "`test -e never.txt` succeeds"}},
		turn{text: "I could not make it pass.", expect: map[string]string{"lastUserContains": "must stop"}},
	)
	out, code := headless(t, dir, script, "--max-steps", "2", "--until", "test -e never.txt", "try")
	if code == 0 {
		t.Fatalf("exit 0 at the budget with the condition unmet\n%s", out)
	}
	if !containsAll(out, "stopped at the step limit: 2 model turns (agent.maxSteps); the stop condition `test -e never.txt` still fails (exit 1)",
		"── stopped: step limit ·") {
		t.Errorf("output does not say the budget ended with the condition unmet:\n%s", out)
	}
}

// agentls.run's until argument: the same condition from the editor.
func TestUntilFromTheEditor(t *testing.T) {
	script := scriptOf(
		turn{text: "Done, I think."},
		turn{calls: [][2]any{{"read_file", map[string]any{"path": "hello.txt"}}},
			expect: map[string]string{"lastUserContains": "You may stop only once `grep -q goodbye hello.txt` succeeds"}},
		turn{calls: [][2]any{{"edit_file", map[string]any{"path": "hello.txt", "old_string": "hello", "new_string": "goodbye"}}}},
		turn{text: "Now it says goodbye."},
	)
	s := start(t, setup{workspace: "hello", script: script})
	// The condition reads the disk: the editor's edits are saved by the
	// workspace edit (no buffer is open here).
	r := s.run(t, map[string]any{"task": "say goodbye", "until": "grep -q goodbye hello.txt"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	var notices []string
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "notice" {
			notices = append(notices, ev["text"].(string))
		}
	}
	if len(notices) != 2 || !containsAll(notices[0], "failed (exit 1)") || !containsAll(notices[1], "`grep -q goodbye hello.txt` passed") {
		t.Errorf("notices %q", notices)
	}
}

// ACP's /until sets the condition for the session's tasks.
func TestUntilOverACP(t *testing.T) {
	script := scriptOf(
		turn{text: "Done, I think."},
		turn{calls: [][2]any{{"read_file", map[string]any{"path": "hello.txt"}}},
			expect: map[string]string{"lastUserContains": "You may stop only once `grep -q goodbye hello.txt` succeeds"}},
		turn{calls: [][2]any{{"edit_file", map[string]any{"path": "hello.txt", "old_string": "hello", "new_string": "goodbye"}}}},
		turn{text: "Now it says goodbye."},
	)
	r := startACP(t, "hello", script, false, nil)
	id := r.newSession(t)
	r.prompt(t, id, "/until grep -q goodbye hello.txt")
	if res := r.prompt(t, id, "say goodbye"); res.StopReason != "end_turn" {
		t.Fatalf("stop reason %q", res.StopReason)
	}
	var thoughts, text string
	for _, u := range r.client.snapshot() {
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			thoughts += u.AgentThoughtChunk.Content.Text.Text + "\n"
		}
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			text += u.AgentMessageChunk.Content.Text.Text
		}
	}
	if !containsAll(text, "Stop condition: each task goes on") || !containsAll(thoughts, "failed (exit 1)", "`grep -q goodbye hello.txt` passed") {
		t.Errorf("text %q\nthoughts %q", text, thoughts)
	}
	if b, _ := os.ReadFile(filepath.Join(r.root, "hello.txt")); string(b[:7]) != "goodbye" {
		t.Errorf("hello.txt = %q", b)
	}
}
