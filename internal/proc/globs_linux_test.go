package proc

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/policy"
)

// The sandbox finds the workspace's protected names by the same rules as
// the policy: the walk's matcher agrees with policy.Protected. (Its secret
// files are policy.Secrets itself.)
func TestWalkMatchesAsThePolicyDoes(t *testing.T) {
	protected := compileGlobs(policy.ProtectedNames())
	for _, name := range []string{".git", ".vscode", ".VSCode", ".husky", ".envrc", "mise.toml", "x.code-workspace", "A.Code-Workspace", ".code-workspace", "code-workspace", "x.code-workspace.bak",
		".agentls.json", "Makefile", ".github", ".gitignore", "vscode", ".idea", ".dir-locals.el"} {
		want, _ := policy.Protected(name)
		if got := protected.name(strings.ToLower(name)); got != want {
			t.Errorf("protected %q: walk %v, policy %v", name, got, want)
		}
	}
}
