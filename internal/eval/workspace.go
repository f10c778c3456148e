package eval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// materialize writes the task's repository, as the model gets it, to dst.
func materialize(ctx context.Context, t Task, dst string) error {
	switch {
	case t.Repo != "":
		src := t.Repo
		if !strings.Contains(src, "://") && !strings.HasPrefix(src, "git@") && !filepath.IsAbs(src) {
			src = filepath.Join(t.Dir, src)
		}
		return checkout(ctx, src, t.Commit, dst)
	case t.Project != "":
		if err := copyTree(filepath.Join(t.Dir, t.Project), dst); err != nil {
			return err
		}
		if base := filepath.Join(t.Dir, "base"); exists(base) {
			return copyTree(base, dst)
		}
		return nil
	default:
		return copyTree(filepath.Join(t.Dir, "repo"), dst)
	}
}

// checkout makes dst the repository src at commit with no way forward:
// only that commit is fetched (no branch, no later history, no remote), so
// the fix that followed it is not in the model's reach.
func checkout(ctx context.Context, src, commit, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	if err := git(ctx, dst, "init", "--quiet"); err != nil {
		return err
	}
	if err := git(ctx, dst, "fetch", "--quiet", "--depth=1", src, commit); err != nil {
		return fmt.Errorf("fetching %s at %s: %w", src, commit, err)
	}
	return git(ctx, dst, "checkout", "--quiet", "--detach", "FETCH_HEAD")
}

// git runs the harness's own git (never on the model's behalf: the model's
// commands go through its sandbox).
func git(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=eval", "GIT_AUTHOR_EMAIL=eval@localhost", "GIT_COMMITTER_NAME=eval", "GIT_COMMITTER_EMAIL=eval@localhost")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// gitInit makes dir a repository with one commit, as a user's checkout is,
// unless it is one already.
func gitInit(ctx context.Context, dir string) error {
	if exists(filepath.Join(dir, ".git")) {
		return nil
	}
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "-A"}, {"commit", "--quiet", "--allow-empty", "-m", "task"}} {
		if err := git(ctx, dir, args...); err != nil {
			return err
		}
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// skipped are directories that are never part of a change: version
// control and build products.
var skipped = []string{".git", "node_modules", "target", "__pycache__", ".pytest_cache", "build"}

// snapshot maps every regular file under dir (slash paths) to its content.
func snapshot(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && slices.Contains(skipped, d.Name()) {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	return files, err
}

// Change is what the model changed, sorted out for grading.
type Change struct {
	// Applied are the files whose change the grading copy takes.
	Applied []string `json:"applied,omitempty"`
	// Dropped are test files the model added, changed or deleted: the
	// grading copy has the originals (and the hidden tests).
	Dropped []string `json:"dropped,omitempty"`
	// Restored are build and test configuration files (and modules that
	// would shadow the standard library): the grading copy has the
	// originals, or not the file at all.
	Restored []string `json:"restored,omitempty"`
}

// configFiles are the files that decide how code is built and tested;
// a change to them could make the tests pass without a fix.
var configFiles = []string{
	"go.mod", "go.sum", "go.work", "go.work.sum",
	"conftest.py", "pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml", "sitecustomize.py", "usercustomize.py", "*.pth", ".pytest.ini",
	"package.json", "package-lock.json", ".npmrc", ".mocharc*", "jest.config*", "vitest.config*", "tsconfig.json",
	"Cargo.toml", "Cargo.lock", "build.rs", "config.toml", "rust-toolchain*",
	"CMakeLists.txt", "Makefile", "*.gradle", "*.gradle.kts", "gradlew", ".agentls.json",
}

// defaultTestPatterns are each language's test files.
var defaultTestPatterns = map[string][]string{
	"go":         {"*_test.go", "testdata/"},
	"python":     {"test_*.py", "*_test.py", "tests/", "test/"},
	"ts":         append([]string{"*.test.ts", "*.spec.ts", "*.spec.js"}, nodeTestFiles...),
	"javascript": append([]string{"*.spec.js", "*.spec.mjs", "*.spec.cjs"}, nodeTestFiles...),
	"rust":       {"tests/"},
	"cpp":        {"*_test.cpp", "test/", "tests/"},
	"java":       {"src/test/"},
}

// nodeTestFiles are the files `node --test` runs when it is given none
// (its documented default patterns): every one of them is a test, or a
// file the model adds could report passes under the hidden tests' names.
var nodeTestFiles = []string{
	"*.test.js", "*.test.mjs", "*.test.cjs", "*-test.js", "*-test.mjs", "*-test.cjs",
	"*_test.js", "*_test.mjs", "*_test.cjs", "test-*.js", "test-*.mjs", "test-*.cjs",
	"test.js", "test.mjs", "test.cjs", "test/", "tests/", "__tests__/",
}

// matchAny reports whether rel (a slash path) matches one of the
// patterns: "dir/" matches any path with that directory element, a
// pattern with "/" the whole path, others the base name.
func matchAny(patterns []string, rel string) bool {
	for _, p := range patterns {
		switch {
		case strings.HasSuffix(p, "/"):
			if strings.HasPrefix(rel, p) || strings.Contains(rel, "/"+p) {
				return true
			}
		case strings.Contains(p, "/"):
			if ok, _ := path.Match(p, rel); ok {
				return true
			}
		default:
			if ok, _ := path.Match(p, path.Base(rel)); ok {
				return true
			}
		}
	}
	return false
}

// sortChange compares the model's tree with the original and sorts every
// difference: test files dropped, configuration restored, the rest
// applied. stdlib are module names a Python file or package must not take.
func sortChange(orig, work map[string][]byte, testPatterns []string, stdlib map[string]bool) Change {
	var c Change
	for _, p := range allPaths(orig, work) {
		o, inOrig := orig[p]
		w, inWork := work[p]
		if inOrig && inWork && bytes.Equal(o, w) {
			continue
		}
		switch {
		case matchAny(testPatterns, p):
			c.Dropped = append(c.Dropped, p)
		case matchAny(configFiles, p) || shadowsStdlib(p, stdlib):
			c.Restored = append(c.Restored, p)
		default:
			c.Applied = append(c.Applied, p)
		}
	}
	return c
}

// allPaths are the paths of both trees, sorted.
func allPaths(orig, work map[string][]byte) []string {
	paths := map[string]bool{}
	for p := range orig {
		paths[p] = true
	}
	for p := range work {
		paths[p] = true
	}
	return slices.Sorted(mapKeys(paths))
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// shadowsStdlib reports whether a Python file at rel would be imported
// instead of a standard-library module: a top-level name.py or name/
// package.
func shadowsStdlib(rel string, stdlib map[string]bool) bool {
	first, _, dir := strings.Cut(rel, "/")
	if dir {
		return stdlib[first]
	}
	name, py := strings.CutSuffix(first, ".py")
	return py && stdlib[name]
}

// applyChange writes the applied part of the model's change into the
// grading copy dir.
func applyChange(dir string, work map[string][]byte, c Change) error {
	for _, p := range c.Applied {
		target := filepath.Join(dir, filepath.FromSlash(p))
		b, ok := work[p]
		if !ok {
			if err := os.Remove(target); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sealed are the paths the model's sandbox reads as empty: the suite (its
// hidden tests, solutions and projects), the repositories around it, around
// the directory the eval runs in and around the agentls binary (a checkout
// of the suite's project holds another copy), with their histories, and
// every other task's directory of this run. A repository that holds the
// home directory or the temporary directory (dotfiles kept in git) is too
// wide to hide: the model's builds need what is under them.
func sealed(suite, binary string, others []string) []string {
	var out []string
	add := func(p string, always bool) {
		if p == "" {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if !always && tooWide(p) {
			return
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(suite, true)
	wd, _ := os.Getwd()
	roots := []string{suite, wd}
	if binary != "" {
		roots = append(roots, filepath.Dir(binary))
	}
	for _, dir := range roots {
		if dir == "" {
			continue
		}
		for _, args := range [][]string{{"rev-parse", "--show-toplevel"}, {"rev-parse", "--path-format=absolute", "--git-common-dir"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if b, err := cmd.Output(); err == nil {
				add(strings.TrimSpace(string(b)), false)
			}
		}
	}
	for _, o := range others {
		add(o, true)
	}
	return out
}

// tooWide reports whether p holds the home or the temporary directory.
func tooWide(p string) bool {
	home, _ := os.UserHomeDir()
	for _, d := range []string{home, os.TempDir()} {
		if d == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		if d == p || strings.HasPrefix(d, p+string(filepath.Separator)) || p == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// copyTree copies the regular files under src into dst.
func copyTree(src, dst string) error { return copyLeaving(src, dst, nil) }

// copyLeaving copies the regular files under src into dst (executable
// ones 0755, the others 0644), leaving out the files and directories
// leave says (by their path relative to src).
func copyLeaving(src, dst string, leave func(rel string, d os.DirEntry) bool) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if leave != nil && leave(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if fi, err := d.Info(); err == nil && fi.Mode()&0o111 != 0 {
			mode = 0o755
		}
		return os.WriteFile(target, b, mode)
	})
}
