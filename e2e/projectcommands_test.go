package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

const fixIssueCommand = "---\ndescription: Fix an issue by number\nargument-hint: <issue>\n---\nFix issue $ARGUMENTS; keep the change small.\n"

// lastUserMessage is the text of the last user message the model received.
func lastUserMessage(t *testing.T, reqs []string) string {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("the model received nothing")
	}
	return reqs[len(reqs)-1]
}

// A project command (.agentls/commands/NAME.md) is listed by
// agentls.commands for the editors' pickers and, typed as "/name args",
// reaches the model as its prompt with the arguments in place.
func TestProjectCommandOverLSP(t *testing.T) {
	for _, c := range []struct {
		name string
		caps lspclient.Caps
	}{{"vscode", lspclient.VSCodeCaps()}, {"helix", lspclient.HelixCaps()}} {
		t.Run(c.name, func(t *testing.T) { projectCommandOverLSP(t, c.caps) })
	}
}

func projectCommandOverLSP(t *testing.T, caps lspclient.Caps) {
	s := start(t, setup{script: "hello.json", caps: &caps, files: map[string]string{
		".agentls/commands/fix-issue.md": fixIssueCommand,
		".agentls/commands/bad name.md":  "ignored",
	}})
	var list struct {
		Commands []struct{ Name, Description, ArgumentHint, Path string }
		Error    string
	}
	if err := s.Command(s.ctx, "agentls.commands", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Commands) != 1 || list.Commands[0].Name != "fix-issue" || list.Commands[0].Description != "Fix an issue by number" || list.Commands[0].ArgumentHint != "<issue>" {
		t.Fatalf("agentls.commands = %+v", list)
	}
	if !strings.Contains(list.Error, "bad name.md") {
		t.Errorf("the bad file is not named: %q", list.Error)
	}
	s.run(t, map[string]any{"task": "/fix-issue 42"})
	var users []string
	for _, m := range s.LLM.Requests()[0].Body.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	got := lastUserMessage(t, users)
	if !strings.Contains(got, "Fix issue 42; keep the change small.") || strings.Contains(got, "/fix-issue") {
		t.Fatalf("the model got %q", got)
	}
}

// `agentls run /name args` runs the project command headless.
func TestProjectCommandInCLI(t *testing.T) {
	llm, base := startModel(t, "hello.json")
	dir := copyWorkspace(t, "")
	if err := os.MkdirAll(filepath.Join(dir, ".agentls", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".agentls", "commands", "fix-issue.md"), []byte(fixIssueCommand), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir(), "AGENTLS_API_KEY=sk-test", "AGENTLS_MODEL=m")
	runCLI(t, dir, env, "run", "--base-url", base, "/fix-issue", "7")
	var users []string
	for _, m := range llm.Requests()[0].Body.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if got := lastUserMessage(t, users); !strings.Contains(got, "Fix issue 7; keep the change small.") {
		t.Fatalf("the model got %q", got)
	}
	// An unknown /name is a usage error that lists the project's commands.
	cmd := exec.Command(binary, "run", "--base-url", base, "/fix-isue", "7")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "/fix-issue") {
		t.Fatalf("unknown command: %v\n%s", err, out)
	}
}
