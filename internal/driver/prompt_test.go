package driver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSelectProfile(t *testing.T) {
	for _, tt := range []struct{ setting, model, want string }{
		{"auto", "gpt-5-codex", ProfileTerse}, {"", "codex-mini-latest", ProfileTerse},
		{"auto", "gpt-4.1", ProfileContract}, {"auto", "claude-sonnet-4-5", ProfileContract},
		{"contract", "gpt-5-codex", ProfileContract}, {"terse", "llama3", ProfileTerse},
	} {
		if got := SelectProfile(tt.setting, tt.model); got != tt.want {
			t.Errorf("SelectProfile(%q, %q) = %q", tt.setting, tt.model, got)
		}
	}
	c, terse := Profile(ProfileContract, false), Profile(ProfileTerse, true)
	for _, want := range []string{"until the task is completely done and verified", "never guess", "plan briefly", "Run the relevant tests", "edit_file"} {
		if !strings.Contains(c, want) {
			t.Errorf("contract profile lacks %q", want)
		}
	}
	if !strings.Contains(terse, "apply_patch") || strings.Contains(terse, "edit_file") || len(terse) >= len(c) {
		t.Errorf("terse profile:\n%s", terse)
	}
}

// The environment block names the OS, the date, the user's directory, the
// git branch and the sandbox's network; everything that changes per task
// or per day comes after what does not.
func TestPlannerEnvironment(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/feature/x\n"), 0o644)
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Use tabs."), 0o644)
	p := WorkspacePlanner{Root: root, Model: "gpt-4.1", Env: Environment{OS: "linux", Arch: "amd64", Shell: "/bin/sh", Date: "2026-11-25", Sandbox: "workspace-write", Approval: "ask"},
		Recall: func(context.Context, string) []string { return []string{"memory"} }}
	got, err := p.Plan(context.Background(), Assignment{Prompt: "x", Dir: "pkg/sub"})
	if err != nil {
		t.Fatal(err)
	}
	sys := got.Prefix[0].Content
	order := []string{SystemPrompt, "Use tabs.", "- OS: linux (amd64)", "- Workspace root: " + root, "- Git branch: feature/x", "no network access", "- Commands: ask", "- Date: 2026-11-25", "- The user is in pkg/sub/", "memory"}
	at := 0
	for _, w := range order {
		i := strings.Index(sys[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", w, sys)
		}
		at += i + len(w)
	}
	p.Env.Network = true
	got, _ = p.Plan(context.Background(), Assignment{Prompt: "y"})
	if sys := got.Prefix[0].Content; !strings.Contains(sys, "network access is allowed") || !strings.Contains(sys, "The user is at the workspace root") {
		t.Errorf("with network, at the root:\n%s", sys)
	}
}

// A nested AGENTS.md joins the result of the first call that touches its
// subtree, once, outermost first; one outside the path's ancestors does not.
func TestScopedInstructions(t *testing.T) {
	root := t.TempDir()
	for rel, body := range map[string]string{"a/AGENTS.md": "A rules", "a/b/AGENTS.md": "B rules", "c/AGENTS.md": "C rules", "a/b/x.go": "", "AGENTS.md": "root"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644)
	}
	s := &scoped{root: root}
	got := s.For([]string{"a/b/x.go"})
	if !strings.Contains(got, "a/ (a/AGENTS.md)") || !strings.Contains(got, "B rules") || strings.Index(got, "A rules") > strings.Index(got, "B rules") || strings.Contains(got, "C rules") || strings.Contains(got, "root") {
		t.Errorf("first touch: %q", got)
	}
	if again := s.For([]string{"a/b/y.go", filepath.Join(root, "a/z.go")}); again != "" {
		t.Errorf("shown twice: %q", again)
	}
	if c := s.For([]string{"c"}); !strings.Contains(c, "C rules") {
		t.Errorf("listing c: %q", c)
	}
	if out := s.For([]string{"../etc/passwd", "/etc/passwd"}); out != "" {
		t.Errorf("outside: %q", out)
	}
}
