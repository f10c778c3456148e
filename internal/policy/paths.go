package policy

import (
	"path"
	"slices"
	"strings"
)

// protectedDirs are directories whose files configure a tool that runs
// programs: an editor's workspace settings (tasks, language servers, auto
// approval), git's internals (hooks, config such as core.fsmonitor) and hook
// managers. A file below one of them, at any depth, is protected.
var protectedDirs = map[string]string{
	".git":          "git's internals and hooks, which run on git commands",
	"git~1":         "git's internals (the 8.3 short name of .git)",
	".githooks":     "git hooks, which run on git commands",
	".husky":        "git hooks (husky), which run on git commands",
	".vscode":       "VS Code workspace settings, which can run tasks and change what agentls may do",
	".devcontainer": "dev container settings, which run commands when the editor opens the folder",
	".idea":         "JetBrains workspace settings, which can run tools",
	".helix":        "Helix workspace settings, which choose the language servers it runs",
	".zed":          "Zed workspace settings, which choose the programs it runs",
	".fleet":        "Fleet workspace settings, which choose the programs it runs",
	".theia":        "Theia workspace settings, which can run tasks",
}

// protectedFiles are single files with the same power.
var protectedFiles = map[string]string{
	".agentls.json":           "agentls's workspace settings, which decide what the model may run",
	".gitattributes":          "git's attributes, which choose the filter, diff and merge programs git runs on files",
	".nvim.lua":               "Neovim's workspace script, which runs when Neovim opens the folder",
	".nvimrc":                 "Neovim's workspace script, which runs when Neovim opens the folder",
	".exrc":                   "Vim's workspace script, which runs when Vim opens the folder",
	".vimrc":                  "Vim's workspace script, which runs when Vim opens the folder",
	".dir-locals.el":          "Emacs directory variables, which can run code when Emacs opens a file",
	".dir-locals-2.el":        "Emacs directory variables, which can run code when Emacs opens a file",
	".envrc":                  "direnv's script, which runs when a shell enters the folder",
	".pre-commit-config.yaml": "pre-commit's hooks, which run on git commit",
	"lefthook.yml":            "lefthook's hooks, which run on git commands",
	".lefthook.yml":           "lefthook's hooks, which run on git commands",
	"mise.toml":               "mise's settings, which can run hooks when a shell enters the folder",
	".mise.toml":              "mise's settings, which can run hooks when a shell enters the folder",
}

// Protected reports whether a workspace-relative path names a file that
// configures agentls, the editor or git, which the model may not write
// without the user's explicit approval (even with review off). It cleans
// the path first ("./x", "a/../.git/x"), compares names without case (macOS
// and Windows file systems ignore it), ignores trailing dots and spaces
// (Windows drops them) and zero-width characters (macOS HFS+ ignores them),
// and checks every component, so a nested repository's .git and a
// multi-root workspace's .vscode count too. Absolute paths are checked the
// same way. why says what the file does, for the question to the user.
//
// .gitattributes is included: it names no program, but it chooses which
// of the filter, diff and merge drivers the user's git configuration
// defines run on which files, on the user's next checkout or commit.
//
// Not included: CI files (.github/workflows run elsewhere), .gitmodules
// (git no longer runs commands named there), build files (Makefile,
// package.json: running them is what the command policy and the sandbox
// decide).
func Protected(rel string) (bool, string) {
	p := strings.ReplaceAll(rel, `\`, "/")
	p = path.Clean("/" + p)
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, c := range comps {
		c = foldName(c)
		if why, ok := protectedDirs[c]; ok {
			return true, rel + " is in " + why
		}
		if i == len(comps)-1 {
			if why, ok := protectedFiles[c]; ok {
				return true, rel + " is " + why
			}
			if strings.HasSuffix(c, ".code-workspace") {
				return true, rel + " is a VS Code workspace file, whose settings can run tasks"
			}
		}
	}
	return false, ""
}

// ProtectedNames is the one list of protected names, as the sandbox
// enforces it and docs/security.md states it: every name of protectedDirs with a
// trailing "/" (a directory), every name of protectedFiles, and the glob
// "*.code-workspace". The 8.3 short name git~1 is left out (it exists only
// on Windows file systems). Sorted.
func ProtectedNames() []string {
	var out []string
	for n := range protectedDirs {
		if n != "git~1" {
			out = append(out, n+"/")
		}
	}
	for n := range protectedFiles {
		out = append(out, n)
	}
	slices.Sort(out)
	return append(out, "*.code-workspace")
}

// DefaultDenyRead are the user's files outside the workspace that
// sandboxed processes read as empty (the sandbox.denyRead setting extends
// the list): credentials, keys and tokens, keyrings and shell histories.
// "~/" is the user's home directory. agentls's own state directory is
// added by the caller, which knows where it is.
func DefaultDenyRead() []string {
	return []string{
		"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh", "~/.config/hub", "~/.netrc", "~/.git-credentials",
		"~/.docker/config.json", "~/.kube", "~/.azure", "~/.config/gcloud", "~/.npmrc", "~/.pypirc", "~/.pgpass",
		"~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials", "~/.password-store",
		"~/.local/share/keyrings", "~/.gnome2/keyrings", "~/.bash_history", "~/.zsh_history", "~/.zhistory",
		"~/.histfile", "~/.sh_history", "~/.local/share/fish/fish_history", "~/.python_history",
		"~/.node_repl_history", "~/.psql_history", "~/.mysql_history", "~/.sqlite_history", "~/.lesshst",
		"~/.config/agentls", "~/.local/state/agentls",
	}
}

// foldName lowercases a file name and drops what file systems ignore when
// comparing names.
func foldName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x200E || r == 0x200F,
			r >= 0x202A && r <= 0x202E, r >= 0x206A && r <= 0x206F, r == 0xFEFF:
			return -1
		}
		return r
	}, s)
	s = strings.TrimRight(s, ". ")
	if s == "" {
		return s
	}
	return strings.ToLower(s)
}

// DefaultSecretFiles is the default of tools.secretFiles: path.Match globs
// tried on a file's base name (patterns without '/') and on its path
// relative to the workspace (patterns with '/'). Files that hold keys,
// tokens or passwords: dotenv files, private keys, git's config (remote
// URLs may carry credentials) and stored credentials, and the registry
// and Docker credentials files.
//
// A pattern with '/' also matches below any directory, so a nested
// repository's .git/config is covered.
func DefaultSecretFiles() []string {
	return []string{
		".env", ".env.*", "*.pem", "*.key", "id_*",
		".git/config", ".git-credentials", ".netrc", "_netrc", ".npmrc", ".pypirc",
		".docker/config.json", ".pgpass", "*.p12", "*.pfx",
	}
}

// IsSecret reports whether the '/'-separated relative path rel matches one
// of patterns (see Secrets.Match). rel may be unclean or use '\'.
func IsSecret(rel string, patterns []string) bool {
	rel = path.Clean("/" + strings.ReplaceAll(rel, `\`, "/"))[1:]
	return CompileSecrets(patterns).Match(rel, path.Base(rel))
}

// Secrets are secret-file globs sorted by the cheapest way to test them,
// because walks test every file.
type Secrets struct {
	exact, prefix, suffix []string // base name tests for "x", "x*", "*x"
	base                  []string // other globs without '/': base name only
	relExact              []string // paths with '/' and no glob character
	rel                   []string // globs with '/': the relative path
}

// CompileSecrets sorts patterns for Match. Patterns are lower-cased: names
// are compared without case, since a case-insensitive file system (macOS,
// Windows) opens .env for .ENV.
func CompileSecrets(patterns []string) Secrets {
	var m Secrets
	for _, pat := range patterns {
		pat = strings.ToLower(pat)
		// Without a slash a glob can only match a one-element relative path,
		// which is its own base name, so testing the base name is enough.
		if strings.Contains(pat, "/") {
			if strings.ContainsAny(pat, `*?[\`) {
				m.rel = append(m.rel, pat)
			} else {
				m.relExact = append(m.relExact, pat)
			}
			continue
		}
		inner := strings.Trim(pat, "*")
		switch {
		case strings.ContainsAny(inner, `*?[\`):
			m.base = append(m.base, pat)
		case pat == inner:
			m.exact = append(m.exact, pat)
		case pat == inner+"*" && inner != "":
			m.prefix = append(m.prefix, inner)
		case pat == "*"+inner && inner != "":
			m.suffix = append(m.suffix, inner)
		default:
			m.base = append(m.base, pat)
		}
	}
	return m
}

// Match reports whether the clean '/'-separated relative path rel, whose
// last element is base, is secret: a pattern without '/' is tried on the
// base name, one with '/' on every trailing part of the path
// ("a/.git/config" matches ".git/config"), without case.
func (m Secrets) Match(rel, base string) bool {
	for _, s := range m.exact {
		if strings.EqualFold(base, s) {
			return true
		}
	}
	for _, s := range m.prefix {
		if len(base) >= len(s) && strings.EqualFold(base[:len(s)], s) {
			return true
		}
	}
	for _, s := range m.suffix {
		if len(base) >= len(s) && strings.EqualFold(base[len(base)-len(s):], s) {
			return true
		}
	}
	for _, s := range m.relExact {
		if n := len(rel) - len(s); n >= 0 && (n == 0 || rel[n-1] == '/') && strings.EqualFold(rel[n:], s) {
			return true
		}
	}
	if len(m.base) == 0 && len(m.rel) == 0 {
		return false
	}
	// ToLower returns a lower-case ASCII name as it is, without copying.
	base, rel = strings.ToLower(base), strings.ToLower(rel)
	for _, pat := range m.base {
		if ok, _ := path.Match(pat, base); ok {
			return true
		}
	}
	for _, pat := range m.rel {
		for r := rel; ; {
			if ok, _ := path.Match(pat, r); ok {
				return true
			}
			i := strings.IndexByte(r, '/')
			if i < 0 {
				break
			}
			r = r[i+1:]
		}
	}
	return false
}
