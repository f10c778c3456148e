package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// worktreeCLI runs agentls in root with its own state directory, for a
// worktree task and the worktrees commands after it.
func worktreeCLI(t *testing.T, root string) func(args ...string) (string, int) {
	state := filepath.Join(t.TempDir(), "state")
	env := append(cleanEnv(), "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model", "XDG_STATE_HOME="+state)
	return func(args ...string) (string, int) {
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
}

// plantPrograms gives the repository at root programs git would run,
// each leaving a marker: a filter that .gitattributes turns on for every
// file (in .git/config, as issue 30 found it) and the hooks of checkout
// and commit. It returns the markers' directory.
func plantPrograms(t *testing.T, root string) string {
	t.Helper()
	marks := t.TempDir()
	prog := func(name string) string {
		return "touch " + filepath.Join(marks, "RAN-"+name) + "; cat"
	}
	gitOut(t, root, "config", "filter.x.clean", prog("clean"))
	gitOut(t, root, "config", "filter.x.smudge", prog("smudge"))
	gitOut(t, root, "config", "diff.x.textconv", "sh -c '"+prog("textconv")+"' <")
	if err := os.WriteFile(filepath.Join(root, ".gitattributes"), []byte("* filter=x diff=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"pre-commit", "post-commit", "post-checkout", "reference-transaction"} {
		os.WriteFile(filepath.Join(root, ".git", "hooks", h), []byte("#!/bin/sh\ntouch "+filepath.Join(marks, "RAN-hook-"+h)+"\n"), 0o755)
	}
	return marks
}

func ranPrograms(marks string) []string {
	var ran []string
	ents, _ := os.ReadDir(marks)
	for _, e := range ents {
		ran = append(ran, strings.TrimPrefix(e.Name(), "RAN-"))
	}
	return ran
}

// The git agentls runs for a worktree task (agent.isolation worktree)
// never runs the repository's programs outside the sandbox (issue 30,
// item 7): not the filter .git/config defines and .gitattributes turns
// on, not the textconv driver, not a hook, when the worktree is made,
// when the task's change is recorded, and when it is merged. Before,
// agentls's own git ran the filter on every task and again on merge;
// with the worktree's hooks turned back on, the hooks' markers appear.
func TestWorktreeGitRunsNoProgramOfTheRepository(t *testing.T) {
	root := copyWorkspace(t, "")
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644)
	commitAll(t, root)
	marks := plantPrograms(t, root)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("uncommitted\n"), 0o644)
	_, base := startModel(t, `{"turns":[
 {"toolCalls":[{"id":"a1","name":"write_file","arguments":"{\"path\":\"a.txt\",\"content\":\"ALPHA\\n\"}"}]},
 {"text":"done."}]}`)
	agentls := worktreeCLI(t, root)
	out, code := agentls("run", "--base-url", base, "--no-verify", "--isolation", "worktree", "shout")
	if code != 0 || !strings.Contains(out, "+ALPHA") {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	out, _ = agentls("worktrees", "list", "--json")
	var list []worktreeEntry
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if out, code = agentls("worktrees", "merge", list[0].ID); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "ALPHA\n" {
		t.Fatalf("after the merge: %q", b)
	}
	agentls("worktrees", "discard", list[0].ID)
	if ran := ranPrograms(marks); len(ran) > 0 {
		t.Errorf("agentls's git ran the repository's programs outside the sandbox: %v", ran)
	}
}

// A repository the model plants inside its worktree (sub/.git) hides
// what it wrote below it from the change: the task ends failed, with the
// reason, not "ok". Before, git add failed while recording the change,
// the user was warned in passing, and the task reported ok.
func TestWorktreePlantedRepositoryFailsTheTask(t *testing.T) {
	root := copyWorkspace(t, "")
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644)
	commitAll(t, root)
	_, base := startModel(t, `{"turns":[
 {"toolCalls":[{"id":"a1","name":"write_file","arguments":"{\"path\":\"sub/x.go\",\"content\":\"package x\\n\"}"}]},
 {"toolCalls":[{"id":"a2","name":"run_command","arguments":"{\"command\":\"git init -q sub\"}"}]},
 {"text":"done."}]}`)
	agentls := worktreeCLI(t, root)
	out, code := agentls("run", "--base-url", base, "--no-verify", "--isolation", "worktree", "add x")
	if code == 0 {
		t.Fatalf("the task ended ok with a change nobody can read:\n%s", out)
	}
	if !strings.Contains(out, "sub/.git") || !strings.Contains(out, "could not be read") {
		t.Fatalf("the reason is not given:\n%s", out)
	}
}
