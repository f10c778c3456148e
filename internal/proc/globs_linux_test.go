package proc

import (
	"path"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/policy"
)

// The sandbox finds the workspace's secret files and protected names by
// the same rules as the policy: the walk's matchers agree with
// policy.IsSecret and policy.Protected.
func TestWalkMatchesAsThePolicyDoes(t *testing.T) {
	secrets := compileGlobs(policy.DefaultSecretFiles())
	protected := compileGlobs(policy.ProtectedNames())
	for _, rel := range []string{
		".env", ".ENV", ".env.local", "a/b/server.pem", "id_ed25519", "x/id_rsa.pub", ".git/config", "sub/.git/config",
		".GIT/config", ".netrc", "home/.npmrc", ".docker/config.json", "x/.docker/config.json", "docker/config.json",
		"main.go", ".git/HEAD", "config.json", ".envrc", "npmrc", "a.key", "b.p12", "c/.pgpass", "env", "x.env",
	} {
		base := path.Base(rel)
		if got, want := secrets.name(strings.ToLower(base)) || secrets.path(rel), policy.IsSecret(rel, policy.DefaultSecretFiles()); got != want {
			t.Errorf("secret %q: walk %v, policy %v", rel, got, want)
		}
	}
	for _, name := range []string{".git", ".vscode", ".VSCode", ".husky", ".envrc", "mise.toml", "x.code-workspace",
		".agentls.json", "Makefile", ".github", ".gitignore", "vscode", ".idea", ".dir-locals.el"} {
		want, _ := policy.Protected(name)
		if got := protected.name(strings.ToLower(name)); got != want {
			t.Errorf("protected %q: walk %v, policy %v", name, got, want)
		}
	}
}
