package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// A hostile external agent's fs/* calls are confined as agentls's own
// tools are, not lexically: reading .env, .git/config or ~/.ssh through
// links inside the workspace, and writing .git/hooks/pre-commit (named or
// through a link), .vscode/settings.json (through a linked .vscode, with
// the user saying no) or a file in $HOME through a link, are all refused;
// an ordinary file is read and written. The old bridge checked the spelled
// path only and let every one through (issue 21, item 7). A file where a
// protected link leads (editor-config/tasks.json, .vscode being a link to
// editor-config) is asked about too; before issue 30 it was written.
func TestBridgeFSConfinement(t *testing.T) {
	fake := buildFakeACP(t)
	home := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	must(os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("SSH-PRIVATE-KEY-MATERIAL\n"), 0o600))
	s := start(t, setup{workspace: "hello", env: []string{"HOME=" + home},
		files: map[string]string{
			".env":                "API_TOKEN=dotenv-secret-value\n",
			".git/config":         "[remote \"origin\"]\n\turl = https://user:git-secret-token@example.com/r.git\n",
			".git/hooks/.keep":    "",
			"editor-config/.keep": "",
			"notes/readme.txt":    "ordinary notes\n",
			"docs/.keep":          "",
		},
		settings: map[string]any{"agent": map[string]any{"backend": map[string]any{"acp": map[string]any{"command": fake}}}},
	})
	link := func(target, name string) { must(os.Symlink(target, filepath.Join(s.Root, name))) }
	link(".env", "innocent.txt")
	link(".git/config", "docs/config.txt")
	link(home, "homelink")
	link(".git/hooks", "hooks")
	link("editor-config", ".vscode")
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		return nil // the user dismisses every question
	}
	ops := []string{
		"read innocent.txt", "read docs/config.txt", "read homelink/.ssh/id_ed25519", "read .env",
		"write .git/hooks/pre-commit", "write hooks/pre-commit", "write .vscode/settings.json",
		"write homelink/owned.txt", "write innocent.txt", "write editor-config/tasks.json",
		"read notes/readme.txt", "write notes/new.txt",
	}
	r := s.run(t, map[string]any{"task": "FS\n" + strings.Join(ops, "\n")})
	var text strings.Builder
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "text" {
			text.WriteString(ev["text"].(string))
		}
	}
	got := text.String()
	for _, secret := range []string{"dotenv-secret-value", "git-secret-token", "SSH-PRIVATE-KEY-MATERIAL"} {
		if strings.Contains(got, secret) {
			t.Errorf("the agent read %q", secret)
		}
	}
	for _, op := range ops[:10] {
		if !strings.Contains(got, fmt.Sprintf("fs %s: refused", op)) {
			t.Errorf("%q was not refused", op)
		}
	}
	for _, op := range []string{"read notes/readme.txt: ok: ordinary notes", "write notes/new.txt: ok"} {
		if !strings.Contains(got, "fs "+op) {
			t.Errorf("%q did not work", op)
		}
	}
	for _, e := range s.Edits() {
		for uri := range e.Edit.Changes {
			if !strings.HasSuffix(string(uri), "notes/new.txt") {
				t.Errorf("an edit of %s reached the editor", uri)
			}
		}
		for _, dc := range e.Edit.DocumentChanges {
			var uri string
			switch c := dc.(type) {
			case *protocol.TextDocumentEdit:
				uri = string(c.TextDocument.URI)
			case *protocol.CreateFile:
				uri = string(c.URI)
			}
			if uri != "" && !strings.HasSuffix(string(uri), "notes/new.txt") {
				t.Errorf("an edit of %s reached the editor", uri)
			}
		}
	}
	for _, p := range []string{filepath.Join(s.Root, ".git", "hooks", "pre-commit"), filepath.Join(home, "owned.txt"),
		filepath.Join(s.Root, "editor-config", "settings.json"), filepath.Join(s.Root, "editor-config", "tasks.json")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if len(asked) == 0 {
		t.Errorf("the user was not asked about .vscode/settings.json")
	}
	if t.Failed() {
		t.Logf("the agent's text:\n%s", got)
	}
}
