package assemble

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

func git(t testing.TB, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A Go module with an uncommitted change: the orientation names the checks
// agentls would run (by kind), git status --short, and the repository's
// map (languages, manifests, top level with counts).
func TestOrientationOfAGoModule(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.22\n",
		"main.go":           "package main\n\nfunc main() {}\n",
		"internal/a/a.go":   "package a\n",
		"internal/a/b.go":   "package a\n",
		"docs/guide.md":     "# Guide\n",
		"web/package.json":  "{}\n",
		"node_modules/x.js": "ignored\n",
	})
	git(t, root, "", "init", "-q", "-b", "main")
	git(t, root, "", "add", "go.mod", "main.go", "internal", "docs", "web")
	git(t, root, "", "commit", "-q", "-m", "first")
	writeTree(t, root, map[string]string{"main.go": "package main\n\nfunc main() { println() }\n", "new.go": "package main\n"})

	cfg := config.Defaults()
	got := Orientation(context.Background(), cfg, root)
	for _, want := range []string{
		"## Orientation",
		"- Checks agentls runs after your edits (run the relevant ones yourself first): build `go build ./...`; lint `go vet ./...`; test `go test ./...`",
		"- git status --short:\n   M main.go\n  ?? new.go",
		"- Repository map (6 tracked files):",
		"languages: Go 3, JSON 1, Markdown 1",
		"manifests: go.mod, web/package.json",
		"top level: docs/ (1), internal/ (2), web/ (1), go.mod, main.go",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("orientation lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got[strings.Index(got, "Repository map"):], "node_modules") {
		t.Errorf("an untracked dependency directory is on the map:\n%s", got)
	}
	// The same workspace gives the same block (the prompt's prefix).
	if again := Orientation(context.Background(), cfg, root); again != got {
		t.Errorf("orientation differs between two calls:\n%s\n%s", got, again)
	}
	// verify.commands, when set, are the checks named.
	cfg.Verify.Commands = []string{"make check"}
	if got := Orientation(context.Background(), cfg, root); !strings.Contains(got, "build `make check`") {
		t.Errorf("verify.commands not named:\n%s", got)
	}
}

// Outside git, the map walks the tree, skipping hidden and dependency
// directories; there is no git status line.
func TestRepoMapWithoutGit(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"src/main.rs": "", "Cargo.toml": "", ".hidden/x.rs": "", "target/y.rs": ""})
	got := Orientation(context.Background(), config.Defaults(), root)
	if !strings.Contains(got, "- Repository map (2 files):") || !strings.Contains(got, "Rust 1") || strings.Contains(got, "git status") {
		t.Errorf("orientation:\n%s", got)
	}
}

// The index parser reads what git wrote, in versions 2, 3 (extended
// flags) and 4 (compressed names), as git ls-files lists it.
func TestIndexPathsMatchGit(t *testing.T) {
	root := t.TempDir()
	git(t, root, "", "init", "-q")
	var in strings.Builder
	for i := range 300 {
		fmt.Fprintf(&in, "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tdir%d/sub/file_%03d.go\n", i%7, i)
	}
	in.WriteString("100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tnaïve café.txt\n")
	git(t, root, in.String(), "update-index", "--add", "--index-info")
	for _, v := range []string{"2", "3", "4"} {
		git(t, root, "", "update-index", "--index-version", v)
		if v == "3" {
			git(t, root, "", "update-index", "--skip-worktree", "dir0/sub/file_000.go") // an extended flag
		}
		want := strings.Split(strings.TrimSpace(git(t, root, "", "-c", "core.quotePath=false", "ls-files")), "\n")
		got, err := indexPaths(root)
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("version %s: %d paths, git lists %d; first %q / %q", v, len(got), len(want), got[:3], want[:3])
		}
	}
	if _, err := parseIndex([]byte("DIRC\x00\x00\x00\x02\xff\xff\xff\xff")); err == nil {
		t.Error("a truncated index parsed")
	}
}

// BenchmarkRepoMap200k times the repository map of a 200,000-file
// repository (its git index generated with git update-index). The budget
// is 50 ms.
func BenchmarkRepoMap200k(b *testing.B) {
	root := b.TempDir()
	git(b, root, "", "init", "-q")
	var in strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&in, "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tpkg%02d/mod%03d/sub/file_%06d.%s\n", i%40, i%500, i, []string{"go", "py", "ts", "md"}[i%4])
	}
	git(b, root, in.String(), "update-index", "--add", "--index-info")
	writeTree(b, root, map[string]string{"go.mod": "module m\n", "Makefile": "test:\n"})
	b.ResetTimer()
	for b.Loop() {
		if m := RepoMap(root); !strings.Contains(m, "200000 tracked files") {
			b.Fatal(m)
		}
	}
}

// git status runs what the repository's config names: a clean filter runs
// when a changed file is hashed. The workspace is untrusted, so agentls
// runs git for the orientation in the sandbox (read-only, no network): a
// filter that writes outside the workspace, which plain git status in the
// same repository lets write, writes nothing; with the sandbox off, git is
// not run at all.
func TestOrientationGitStatusIsSandboxed(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed (.ci/install installs it)")
	}
	root, outside := t.TempDir(), t.TempDir()
	pwned := filepath.Join(outside, "pwned")
	writeTree(t, root, map[string]string{"a.txt": "one\n", ".gitattributes": "*.txt filter=evil\n"})
	git(t, root, "", "init", "-q")
	git(t, root, "", "config", "filter.evil.clean", "sh -c 'echo x >> "+pwned+"; cat'")
	git(t, root, "", "add", "-A")
	git(t, root, "", "commit", "-q", "-m", "first")
	os.Remove(pwned)
	writeTree(t, root, map[string]string{"a.txt": "two\n"})
	git(t, root, "", "status", "--short") // the attack works outside a sandbox
	if _, err := os.Stat(pwned); err != nil {
		t.Fatalf("the filter did not run under plain git status: %v", err)
	}
	os.Remove(pwned)

	cfg := config.Defaults()
	got := Orientation(context.Background(), cfg, root)
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("the repository's filter wrote outside the workspace during the orientation:\n%s", got)
	}
	if _, confined, _ := Sandbox(cfg, root); confined && !strings.Contains(got, "git status --short:\n   M a.txt") {
		t.Errorf("no git status in the orientation:\n%s", got)
	}
	cfg.Sandbox.Mode = "off"
	if got := Orientation(context.Background(), cfg, root); strings.Contains(got, "git status") {
		t.Errorf("git ran without the sandbox:\n%s", got)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the filter ran with the sandbox off")
	}
}
