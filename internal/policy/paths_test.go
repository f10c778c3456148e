package policy

import (
	"os"
	"strings"
	"testing"
)

func TestProtected(t *testing.T) {
	yes := []string{
		".agentls.json", "./.agentls.json", "sub/.agentls.json", ".vscode/settings.json", ".vscode/tasks.json",
		".VSCode/settings.json", ".helix/languages.toml", ".helix/config.toml", ".nvim.lua", ".exrc", ".nvimrc",
		".dir-locals.el", ".git/config", ".git/hooks/pre-commit", ".git", "a/../.git/hooks/x", "a/.git/HEAD",
		".GIT/hooks/post-checkout", ".git./config", ".git /config", "GIT~1/config", ".g\u200cit/config",
		".githooks/pre-commit", ".husky/pre-push", ".idea/workspace.xml", ".devcontainer/devcontainer.json",
		".envrc", "x.code-workspace", `.vscode\settings.json`, "/abs/ws/.git/config", ".pre-commit-config.yaml",
		".zed/settings.json", ".gitattributes", "deep/.gitattributes",
	}
	for _, p := range yes {
		if ok, why := Protected(p); !ok || why == "" {
			t.Errorf("Protected(%q) = %v, %q", p, ok, why)
		}
	}
	no := []string{
		"main.go", "git/config", ".gitignore", "vscode/settings.json", "docs/.agentls.json.md", "a/.git-x/y",
		".github/workflows/ci.yml", "Makefile", "package.json", "x/.vscodex/y",
	}
	for _, p := range no {
		if ok, why := Protected(p); ok {
			t.Errorf("Protected(%q) = true (%s)", p, why)
		}
	}
}

func TestDefaultSecretFiles(t *testing.T) {
	pats := DefaultSecretFiles()
	secret := []string{
		".env", ".env.local", "a/b/server.pem", "id_ed25519", ".git/config", "sub/.git/config", ".GIT/config",
		".netrc", "home/.npmrc", ".pypirc", ".docker/config.json", "x/.docker/config.json", ".git-credentials",
		"./.npmrc", "a/../.netrc",
	}
	for _, p := range secret {
		if !IsSecret(p, pats) {
			t.Errorf("IsSecret(%q) = false", p)
		}
	}
	for _, p := range []string{"main.go", ".git/HEAD", "config.json", "docker/config.json", ".envrc", "npmrc"} {
		if IsSecret(p, pats) {
			t.Errorf("IsSecret(%q) = true", p)
		}
	}
	// The first five are today's defaults (confine.go); the list only grows.
	for i, p := range []string{".env", ".env.*", "*.pem", "*.key", "id_*"} {
		if pats[i] != p {
			t.Errorf("default %d = %q, want %q", i, pats[i], p)
		}
	}
}

// The sandbox enforces ProtectedNames; Protected must agree with it on
// every name, so that the policy and the sandbox protect the same files.
func TestProtectedNamesAreProtected(t *testing.T) {
	names := ProtectedNames()
	if len(names) < 24 {
		t.Fatalf("only %d protected names: %v", len(names), names)
	}
	for _, n := range names {
		rel := strings.TrimSuffix(strings.ReplaceAll(n, "*", "x"), "/")
		if ok, _ := Protected(rel); !ok {
			t.Errorf("%q is in ProtectedNames but Protected(%q) is false", n, rel)
		}
		if ok, _ := Protected("sub/" + rel + "/file"); strings.HasSuffix(n, "/") && !ok {
			t.Errorf("a file below %q at depth is not protected", n)
		}
	}
}

// docs/security.md (the Security model) names every protected name and every path
// of DefaultDenyRead, so the documented boundary is the enforced one.
func TestSecurityPageNamesTheLists(t *testing.T) {
	b, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, n := range append(ProtectedNames(), DefaultDenyRead()...) {
		if !strings.Contains(readme, "`"+n+"`") {
			t.Errorf("docs/security.md does not name `%s`", n)
		}
	}
}
