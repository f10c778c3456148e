package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// session/fork under agent.isolation "worktree": the fork's task works in
// a worktree of its own, made from the user's files, not in the forked
// session's (whose kept change stays apart).
func TestACPForkHasItsOwnWorktree(t *testing.T) {
	r := startACP(t, "hello", `{"turns":[
	 {"toolCalls":[{"id":"r1","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
	 {"toolCalls":[{"id":"e1","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
	 {"text":"Said goodbye."},
	 {"toolCalls":[{"id":"r2","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
	 {"expect":{"lastToolContains":"hello"},"toolCalls":[{"id":"e2","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"hi\"}"}]},
	 {"expect":{"lastToolContains":"hello.txt"},"text":"Said hi."}]}`, false, map[string]any{"agent": map[string]any{"isolation": "worktree"}})
	commitAll(t, r.root)
	r.client.answer = optKeepWorktree
	a := r.newSession(t)
	r.prompt(t, a, "Say goodbye")
	b, err := r.UnstableForkSession(r.ctx, sdk.UnstableForkSessionRequest{SessionId: a, Cwd: r.root})
	if err != nil {
		t.Fatalf("session/fork: %v", err)
	}
	if b.SessionId == "" || b.SessionId == a {
		t.Fatalf("session/fork answered %+v", b)
	}
	r.prompt(t, b.SessionId, "Say hi")
	// Each task's change was offered as a worktree tool call, kept.
	trees := map[string]string{} // worktree → its directory
	for _, u := range r.client.snapshot() {
		if c := u.ToolCall; c != nil && strings.HasPrefix(string(c.ToolCallId), "worktree-") {
			raw, _ := c.RawInput.(map[string]any)
			id, _ := raw["worktree"].(string)
			dir, _ := raw["path"].(string)
			trees[id] = dir
		}
	}
	if len(trees) != 2 {
		t.Fatalf("worktrees offered: %v; want one per session", trees)
	}
	var texts []string
	for _, dir := range trees {
		b, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, strings.TrimSpace(string(b)))
	}
	joined := strings.Join(texts, "|")
	if !strings.Contains(joined, "goodbye") || !strings.Contains(joined, "hi") {
		t.Errorf("the worktrees hold %q; want the parent's goodbye and the fork's hi apart", joined)
	}
	if disk, _ := os.ReadFile(filepath.Join(r.root, "hello.txt")); !strings.Contains(string(disk), "hello") {
		t.Errorf("the user's file changed: %q", disk)
	}
}

// optKeepWorktree is the merge question's "keep it in the worktree".
const optKeepWorktree = "keep"
