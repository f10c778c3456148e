package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// Skills (issue 40): .agents/skills/<name>/SKILL.md, front matter with a
// name and a description, then the instructions. The name and description
// are in the stable part of the prompt; the body is read only when the
// model asks for it, under the rules every workspace file is read by; a
// skill linked to .env is refused.

const deploySkill = "---\nname: deploy\ndescription: Deploy the app to staging\n---\nBODY-ONLY-ON-DEMAND: run make deploy-staging, then check /health.\n"

// skillWorkspace has a good skill and one whose SKILL.md is a link to .env.
func skillWorkspace(t *testing.T) string {
	t.Helper()
	dir := copyWorkspace(t, "hello")
	for rel, body := range map[string]string{
		".agents/skills/deploy/SKILL.md": deploySkill,
		".env":                           "---\nname: leak\ndescription: API_KEY=hunter2-secret\n---\nTOKEN=hunter2-secret\n",
	} {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.MkdirAll(filepath.Join(dir, ".agents/skills/leak"), 0o755)
	if err := os.Symlink("../../../.env", filepath.Join(dir, ".agents/skills/leak/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSkillDescribedFirstReadOnDemand(t *testing.T) {
	dir := skillWorkspace(t)
	script := scriptOf(
		turn{calls: [][2]any{{"read_file", map[string]any{"path": ".agents/skills/deploy/SKILL.md"}}}},
		turn{calls: [][2]any{{"read_file", map[string]any{"path": ".agents/skills/leak/SKILL.md"}}},
			expect: map[string]string{"lastToolContains": "BODY-ONLY-ON-DEMAND"}},
		turn{text: "Deployed.", expect: map[string]string{"lastToolContains": "secret"}},
	)
	llm, base := startModel(t, script)
	out, code := runHeadless(t, dir, base, "deploy it")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	reqs := llm.Requests()
	first := reqs[0].Body.Messages
	if first[0].Role != "system" || !strings.Contains(first[0].Content, "- deploy: Deploy the app to staging (.agents/skills/deploy/SKILL.md)") {
		t.Errorf("the first request's system prompt lacks the skill:\n%s", first[0].Content)
	}
	for _, r := range reqs {
		for _, m := range r.Body.Messages {
			if strings.Contains(m.Content, "hunter2") || strings.Contains(m.Content, "leak:") {
				t.Errorf("a skill linked to .env reached the model: %q", m.Content)
			}
		}
	}
	for _, m := range first {
		if strings.Contains(m.Content, "BODY-ONLY-ON-DEMAND") {
			t.Errorf("the skill's body was in the first request")
		}
	}
	// The stable prefix: the second request starts with the same system
	// message, byte for byte.
	if reqs[1].Body.Messages[0].Content != first[0].Content {
		t.Errorf("the system prompt changed between requests")
	}
}

// Skills are listed beside the project commands, and run as "/name".
func TestSkillsListedBesideProjectCommands(t *testing.T) {
	r := startACP(t, "hello", scriptOf(turn{text: "Deployed.", expect: map[string]string{"lastUserContains": "read its instructions in .agents/skills/deploy/SKILL.md"}}), false, nil)
	for rel, body := range map[string]string{
		".agents/skills/deploy/SKILL.md": deploySkill,
		".env":                           "---\nname: leak\ndescription: API_KEY=hunter2-secret\n---\n",
		".agentls/commands/greet.md":     "Say hello\n",
	} {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(r.root, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(r.root, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.MkdirAll(filepath.Join(r.root, ".agents/skills/leak"), 0o755)
	if err := os.Symlink("../../../.env", filepath.Join(r.root, ".agents/skills/leak/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	id := r.newSession(t)
	u := r.waitUpdate(t, "available_commands_update", func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	var names []string
	for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
		names = append(names, c.Name)
		if c.Name == "deploy" && !strings.Contains(c.Description, "skill: Deploy the app to staging") {
			t.Errorf("deploy's description %q", c.Description)
		}
	}
	if !slices.Contains(names, "greet") || !slices.Contains(names, "deploy") || slices.Contains(names, "leak") {
		t.Errorf("available commands %v: want greet and deploy, not leak", names)
	}
	if res := r.prompt(t, id, "/deploy to staging"); res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", res.StopReason)
	}
}

// The editor lists skills with the project commands (agentls.commands)
// and runs one as "/name".
func TestSkillsInTheEditor(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: scriptOf(turn{text: "Deployed.", expect: map[string]string{"lastUserContains": "read its instructions in .agents/skills/deploy/SKILL.md"}}),
		files: map[string]string{".agents/skills/deploy/SKILL.md": deploySkill, ".agentls/commands/greet.md": "Say hello\n"}})
	var list struct {
		Commands []struct{ Name, Description, Path string }
	}
	if err := s.Command(s.ctx, "agentls.commands", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range list.Commands {
		got = append(got, c.Name+"="+c.Path)
	}
	if strings.Join(got, " ") != "greet=.agentls/commands/greet.md deploy=.agents/skills/deploy/SKILL.md" {
		t.Errorf("agentls.commands: %v", got)
	}
	if r := s.run(t, map[string]any{"task": "/deploy to staging"}); r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
}
