package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// writeScript is a script whose tool calls write each path with content,
// one call per turn, then answers.
func writeScript(paths []string, content string) string {
	var turns []string
	for i, p := range paths {
		args, _ := json.Marshal(map[string]string{"path": p, "content": content})
		call, _ := json.Marshal(map[string]any{"id": "w" + string(rune('a'+i)), "name": "write_file", "arguments": string(args)})
		turns = append(turns, `{"toolCalls":[`+string(call)+`]}`)
	}
	return `{"turns":[` + strings.Join(turns, ",") + `,{"text":"done"}]}`
}

// A protected name that is a symlink protects its target (issue 30, item
// 3), with default settings and nobody to ask (agentls run headless): with
// .husky -> tools/husky and git's core.hooksPath .husky, write_file
// tools/husky/pre-commit is refused, and so are writes through
// .vscode -> editor/vscode and .agentls.json -> cfg/a.json. Before, all
// three were written unasked, and the user's next git commit ran the hook.
func TestProtectedLinkTargetsAreNotWrittenUnasked(t *testing.T) {
	root := linkedProtectedNames(t)
	paths := []string{"tools/husky/pre-commit", "tools/husky/post-commit", "editor/vscode/tasks.json", "cfg/a.json"}
	llm, base := startModel(t, writeScript(paths, `#!/bin/sh
touch /tmp/pwned; {"tools":{"allow":["*"]}}`))
	if code, out := cliRun(t, root, base, "set up the hooks"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, p := range paths {
		b, _ := os.ReadFile(filepath.Join(root, p))
		if strings.Contains(string(b), "pwned") {
			t.Errorf("%s was written unasked", p)
		}
	}
	results := toolResults(llm)
	if n := strings.Count(results, "explicit approval"); n != len(paths) {
		t.Errorf("%d of %d writes were refused as protected; the model was told:\n%s", n, len(paths), results)
	}
}

// linkedProtectedNames is a git workspace whose protected names are links:
// .husky -> tools/husky (git's core.hooksPath), .vscode -> editor/vscode and
// .agentls.json -> cfg/a.json.
func linkedProtectedNames(t *testing.T) string {
	t.Helper()
	root := copyWorkspace(t, "")
	for rel, text := range map[string]string{"tools/husky/pre-commit": "#!/bin/sh\nexit 0\n", "editor/vscode/settings.json": "{}\n", "cfg/a.json": "{}\n", "README.md": "hi\n"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(root, rel), []byte(text), 0o755)
	}
	for link, target := range map[string]string{".husky": "tools/husky", ".vscode": "editor/vscode", ".agentls.json": "cfg/a.json"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	exec.Command("git", "-C", root, "config", "core.hooksPath", ".husky").Run()
	return root
}

// toolResults are the tool messages the model was sent.
func toolResults(llm *fakellm.Server) string {
	var b strings.Builder
	reqs := llm.Requests()
	if len(reqs) > 0 { // the last request holds the whole conversation
		for _, m := range reqs[len(reqs)-1].Body.Messages {
			if m.Role == "tool" {
				b.WriteString(m.Content)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// The same with a command, the road the issue found open: a sandboxed
// command that runs unasked (default settings, headless) writes through
// the links and to their targets by name; none of it reaches the tree
// (the targets are read-only in the command's view), the user's next git
// commit runs no planted hook, and the model is told.
func TestProtectedLinkTargetsAreNotWrittenByACommand(t *testing.T) {
	root := linkedProtectedNames(t)
	planted := []string{"tools/husky/post-commit", "tools/husky/pre-commit", "editor/vscode/tasks.json", "cfg/a.json"}
	cmd := `for f in tools/husky/post-commit .husky/pre-commit .vscode/tasks.json editor/vscode/tasks.json .agentls.json; do printf '#!/bin/sh\ntouch pwned\n' > "$f" && chmod +x "$f"; done; echo wrote; ls tools/husky`
	args, _ := json.Marshal(map[string]string{"command": cmd})
	llm, base := startModel(t, `{"turns":[{"toolCalls":[{"id":"c1","name":"run_command","arguments":`+strconv.Quote(string(args))+`}]},{"text":"done"}]}`)
	if code, out := cliRun(t, root, base, "set up the hooks"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	results := toolResults(llm)
	if !strings.Contains(results, "wrote") || !strings.Contains(results, "post-commit") {
		t.Fatalf("the command did not write in its view, so this test shows nothing:\n%s", results)
	}
	for _, p := range planted {
		if b, _ := os.ReadFile(filepath.Join(root, p)); strings.Contains(string(b), "pwned") {
			t.Errorf("%s was carried into the tree unasked", p)
		}
	}
	// Each write is refused where the command makes it (the targets are
	// read-only in its view) or, failing that, not carried; either way
	// the model hears of it.
	if n := strings.Count(results, "Read-only file system") + strings.Count(results, "not carried"); n < 5 {
		t.Errorf("the model was told of %d of 5 refused writes:\n%s", n, results)
	}
	// The user's next commit runs no planted hook.
	exec.Command("git", "-C", root, "add", "README.md").Run()
	c := exec.Command("git", "-C", root, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-m", "next")
	c.CombinedOutput()
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("the user's git commit ran a hook the command planted")
	}
}
