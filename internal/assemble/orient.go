package assemble

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/verify"
)

// Orientation is what a model needs to know of a workspace before its
// first step, so it does not spend turns listing: the checks agentls runs
// (as verify detects them, or verify.commands), git status --short, and a
// map of the repository. It is built once per task, at its start, and sits
// in the system prompt after the environment: nothing of it changes within
// the task, so every request's prefix stays byte-identical.
func Orientation(ctx context.Context, cfg config.Config, root string) string {
	var b strings.Builder
	b.WriteString("## Orientation")
	if checks := checkCommands(cfg, root); len(checks) > 0 {
		if cfg.Verify.Enabled {
			b.WriteString("\n- Checks agentls runs after your edits (run the relevant ones yourself first): ")
		} else {
			b.WriteString("\n- The project's checks (agentls does not run them; verify is off): ")
		}
		for i, c := range checks {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s `%s`", checkKind(c), c)
		}
	}
	if st, ok := gitStatus(ctx, cfg, root); ok {
		if st == "" {
			b.WriteString("\n- git status --short: clean")
		} else {
			b.WriteString("\n- git status --short:\n" + st)
		}
	}
	if m := RepoMap(root); m != "" {
		b.WriteString("\n" + m)
	}
	return b.String()
}

// checkCommands are the checks the verify gate would run: verify.commands,
// else those the project files call for.
func checkCommands(cfg config.Config, root string) []string {
	if len(cfg.Verify.Commands) > 0 {
		return cfg.Verify.Commands
	}
	return verify.DetectAny(root)
}

// checkKind names what a check command does, for the model.
func checkKind(cmd string) string {
	c := strings.ToLower(cmd)
	switch {
	case strings.Contains(c, "test") || strings.Contains(c, "pytest"):
		return "test"
	case strings.Contains(c, "vet") || strings.Contains(c, "lint") || strings.Contains(c, "clippy") || strings.Contains(c, "ruff") || strings.Contains(c, "tsc"):
		return "lint"
	case strings.Contains(c, "build") || strings.Contains(c, "check"):
		return "build"
	}
	return "check"
}

// Caps of the orientation block.
const (
	maxStatusLines = 30
	maxStatusBytes = 2 << 10
	maxMapBytes    = 2 << 10
	statusTimeout  = 5 * time.Second
)

// gitStatus runs git status --short in root and caps it; ok is false
// when root is not in a git repository, git is missing or fails, or the
// sandbox cannot be had. The workspace is untrusted and git runs what its
// config names (a clean filter, say), so git runs as the checks do:
// through internal/proc, in the sandbox, here read-only and without
// network, with none of the repository's hooks or file-system monitor and
// no optional lock taken; where the sandbox is unavailable (or
// sandbox.mode is off) agentls does not run git for the prompt at all.
func gitStatus(ctx context.Context, cfg config.Config, root string) (string, bool) {
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil {
		return "", false
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return "", false
	}
	sb, confined, _ := Sandbox(cfg, root)
	if !confined {
		return "", false
	}
	sb.Mode, sb.Network = proc.ModeReadOnly, false
	argv := []string{"/bin/sh", "-c", `exec "$@" 2>/dev/null`, "sh", git, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false",
		"-c", "core.quotePath=false", "status", "--short", "--untracked-files=normal", "--no-renames"}
	env := []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	res, err := proc.Run(ctx, proc.Spec{Argv: argv, Dir: root, Env: env, Timeout: statusTimeout, OutputLimit: 256 << 10, Sandbox: sb})
	if err != nil || res.ExitCode != 0 || res.TimedOut || res.Cancelled {
		return "", false
	}
	lines := strings.Split(strings.TrimRight(res.Output, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return "", true
	}
	var b strings.Builder
	for i, l := range lines {
		if i == maxStatusLines || b.Len()+len(l) > maxStatusBytes {
			fmt.Fprintf(&b, "  … and %d more", len(lines)-i)
			break
		}
		b.WriteString("  " + textcut.Head(l, 300) + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), true
}

// maxMapWalk bounds the walk of a tree that is not a git repository.
const maxMapWalk = 50_000

// RepoMap is a compact map of the repository at root, at most
// maxMapBytes: how many files, their languages, the manifests that say how
// it builds, and the top level with each directory's file count. It reads
// the git index when there is one (tracked files only, no walk: a
// 200,000-file repository takes milliseconds), else walks the tree,
// skipping hidden and dependency directories, up to maxMapWalk files.
func RepoMap(root string) string {
	t := tally{langs: map[string]int{}, top: map[string]*int{}}
	total, err := eachIndexPath(root, t.add)
	source := "tracked files"
	more := false
	if err != nil {
		t = tally{langs: map[string]int{}, top: map[string]*int{}}
		var files []string
		files, more = walkFiles(root, maxMapWalk)
		for _, f := range files {
			t.add([]byte(f))
		}
		total, source = len(files), "files"
	}
	t.flush()
	if total == 0 {
		return ""
	}
	langs, top, manifests := t.langs, t.top, t.manifests
	var b strings.Builder
	count := fmt.Sprint(total)
	if more {
		count = "more than " + count
	}
	if total == 1 {
		source = strings.TrimSuffix(source, "s")
	}
	fmt.Fprintf(&b, "- Repository map (%s %s):", count, source)
	if len(langs) > 0 {
		b.WriteString("\n  languages: ")
		writeRanked(&b, langs, 8, func(k string, n int) string { return fmt.Sprintf("%s %d", k, n) })
	}
	if len(manifests) > 0 {
		sort.Slice(manifests, func(i, j int) bool {
			if a, b := strings.Count(manifests[i], "/"), strings.Count(manifests[j], "/"); a != b {
				return a < b
			}
			return manifests[i] < manifests[j]
		})
		b.WriteString("\n  manifests: ")
		for i, m := range manifests {
			if i == 12 {
				fmt.Fprintf(&b, ", … %d more", len(manifests)-i)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m)
		}
	}
	b.WriteString("\n  top level: ")
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range top {
			if !yield(k) {
				return
			}
		}
	})
	// Directories first (with their counts), then files.
	slices.SortStableFunc(names, func(a, b string) int {
		da, db := strings.HasSuffix(a, "/"), strings.HasSuffix(b, "/")
		switch {
		case da == db:
			return 0
		case da:
			return -1
		}
		return 1
	})
	for i, k := range names {
		item := k
		if strings.HasSuffix(k, "/") {
			item = fmt.Sprintf("%s (%d)", k, *top[k])
		}
		if b.Len()+len(item)+40 > maxMapBytes {
			fmt.Fprintf(&b, ", … %d more", len(names)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(item)
	}
	return textcut.Head(b.String(), maxMapBytes)
}

// tally counts a repository's files by language and top-level entry, and
// keeps its manifests; add allocates only for what it has not seen.
type tally struct {
	last      string // the language of the current run of files
	run       int
	langs     map[string]int
	top       map[string]*int // "dir/" → files under it, "file" → 1
	manifests []string
}

func (t *tally) add(f []byte) {
	if dot := bytes.LastIndexByte(f, '.'); dot >= 0 && bytes.IndexByte(f[dot:], '/') < 0 {
		ext := f[dot:]
		l := languages[string(ext)] // no copy: a map index by converted bytes
		if l == "" && bytes.ContainsFunc(ext, unicode.IsUpper) {
			l = languages[strings.ToLower(string(ext))]
		}
		if l != "" {
			if t.last != l { // runs of one language are common: no map write each
				t.flush()
				t.last = l
			}
			t.run++
		}
	}
	slash := bytes.IndexByte(f, '/')
	first := f
	if slash >= 0 {
		first = f[:slash+1]
	}
	if n, ok := t.top[string(first)]; ok {
		*n++
	} else {
		t.top[string(first)] = new(1)
	}
	if bytes.Count(f, []byte{'/'}) <= 2 {
		base := f[bytes.LastIndexByte(f, '/')+1:]
		if manifestNames[string(base)] {
			t.manifests = append(t.manifests, string(f))
		}
	}
}

func (t *tally) flush() {
	if t.run > 0 {
		t.langs[t.last] += t.run
	}
	t.last, t.run = "", 0
}

// writeRanked writes the top n of counts, largest first (then by name).
func writeRanked(b *strings.Builder, counts map[string]int, n int, item func(string, int) string) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	for i, k := range keys {
		if i == n {
			fmt.Fprintf(b, ", … %d more", len(keys)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(item(k, counts[k]))
	}
}

// walkFiles lists up to limit files under root ('/'-separated, relative),
// without following links, skipping hidden directories and those no build
// reads; more says the limit was reached.
func walkFiles(root string, limit int) (files []string, more bool) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if len(files) == limit {
			more = true
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, more
}

func skipDir(name string) bool {
	switch name {
	case "node_modules", "vendor", "target", "__pycache__", "dist", "build", "venv":
		return true
	}
	return strings.HasPrefix(name, ".")
}

var manifestNames = map[string]bool{
	"go.mod": true, "package.json": true, "Cargo.toml": true, "pyproject.toml": true, "setup.py": true,
	"requirements.txt": true, "Makefile": true, "CMakeLists.txt": true, "pom.xml": true, "build.gradle": true,
	"build.gradle.kts": true, "Gemfile": true, "composer.json": true, "mix.exs": true, "deno.json": true,
	"tsconfig.json": true, "meson.build": true, "BUILD.bazel": true, "WORKSPACE": true, "Package.swift": true,
}

var languages = map[string]string{
	".go": "Go", ".rs": "Rust", ".py": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
	".jsx": "JavaScript", ".ts": "TypeScript", ".tsx": "TypeScript", ".java": "Java", ".kt": "Kotlin",
	".c": "C", ".h": "C/C++ header", ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++ header",
	".cs": "C#", ".rb": "Ruby", ".php": "PHP", ".swift": "Swift", ".scala": "Scala", ".ex": "Elixir",
	".exs": "Elixir", ".erl": "Erlang", ".hs": "Haskell", ".ml": "OCaml", ".lua": "Lua", ".el": "Emacs Lisp",
	".sh": "Shell", ".bash": "Shell", ".zig": "Zig", ".dart": "Dart", ".vue": "Vue", ".svelte": "Svelte",
	".md": "Markdown", ".json": "JSON", ".yaml": "YAML", ".yml": "YAML", ".toml": "TOML",
	".html": "HTML", ".css": "CSS", ".scss": "CSS", ".sql": "SQL", ".proto": "Protobuf",
}
