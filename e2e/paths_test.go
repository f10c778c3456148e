package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// allRequests is every request the model was sent, as JSON.
func allRequests(s *session) string {
	b, _ := json.Marshal(s.LLM.Requests())
	return string(b)
}

// Context files and @mentions follow the secret-file rules, by the name
// given and by the file it really is: AGENTS.md as a symlink to .env,
// @.git/config, @ a link to .env and @ a directory link into .git never
// reach the prompt, and a named pipe as a context file does not hang the
// task. Before, the links and .git/config went into every request.
func TestContextFilesAndMentionsKeepSecrets(t *testing.T) {
	const marker = "ctx-secret-marker-7781"
	root := copyWorkspace(t, "")
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "TOKEN="+marker+"\n")
	write(".git/config", "[remote \"o\"]\n\turl = https://u:"+marker+"@example.com/r\n")
	write("notes.md", "plain notes, fine to read\n")
	for link, target := range map[string]string{"AGENTS.md": ".env", "link-to-env": ".env", "gitdir": ".git"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".agentls", "instructions.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, setup{root: root, script: `{"turns":[{"text":"done"}]}`})
	r := s.run(t, map[string]any{"task": "look at @.git/config and @link-to-env and @gitdir/config and @.ENV and @notes.md"})
	if r.Status != "ok" {
		t.Fatalf("task: %+v", r)
	}
	body := allRequests(s)
	if !strings.Contains(body, "plain notes, fine to read") {
		t.Fatalf("the ordinary mention did not reach the model:\n%s", body)
	}
	if strings.Contains(body, marker) {
		t.Errorf("a secret file reached the prompt:\n%s", body)
	}
}
