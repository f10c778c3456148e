package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/policy"
)

// Errors that Resolve and the Policy methods wrap, for callers that want to
// tell refusals apart from I/O failures.
var (
	ErrOutside  = errors.New("outside the workspace")
	ErrSecret   = errors.New("secret file")
	ErrReadOnly = errors.New("read-only path")
	ErrBadPath  = errors.New("invalid path")
)

// DefaultSecretFiles is used when Policy.SecretFiles is nil: the default of
// the tools.secretFiles setting (policy.DefaultSecretFiles), which covers
// credentials in .git/config, .netrc, .npmrc, .pypirc and
// .docker/config.json besides .env files and keys.
var DefaultSecretFiles = policy.DefaultSecretFiles()

// maxLinkHops bounds symlink resolution like the kernel's ELOOP limit, so a
// loop of links ends in an error rather than a hang.
const maxLinkHops = 40

// Policy says which paths the tools may touch: everything whose real location
// is inside Root, minus secret files (never read, listed, searched or
// written) and, for writes, anything inside a .git directory.
type Policy struct {
	Root string
	// SecretFiles are path.Match globs tried on a file's base name and on its
	// workspace-relative path. nil means DefaultSecretFiles; an empty non-nil
	// slice means no file is secret.
	SecretFiles []string
}

func (p Policy) secretPatterns() []string {
	if p.SecretFiles == nil {
		return DefaultSecretFiles
	}
	return p.SecretFiles
}

// IsSecret reports whether the '/'-separated workspace-relative path rel names
// a secret file.
func (p Policy) IsSecret(rel string) bool {
	return p.compileSecrets().Match(rel, path.Base(rel))
}

func (p Policy) compileSecrets() policy.Secrets {
	return policy.CompileSecrets(p.secretPatterns())
}

// ResolveRead confines p for reading: Resolve plus the secret-file rule.
func (p Policy) ResolveRead(userPath string) (abs, rel string, err error) {
	abs, rel, lexical, err := resolve(p.Root, userPath)
	if err != nil {
		return "", "", err
	}
	if p.IsSecret(rel) || p.IsSecret(lexical) {
		return "", "", fmt.Errorf("path %s is a secret file (tools.secretFiles): %w", userPath, ErrSecret)
	}
	return abs, rel, nil
}

// ResolveWrite confines p for writing: ResolveRead plus the rule that .git
// internals are read-only, checked on both the spelled and the real path so
// a symlink cannot route a write into .git.
func (p Policy) ResolveWrite(userPath string) (abs, rel string, err error) {
	abs, rel, _, err = p.resolveWrite(userPath)
	return abs, rel, err
}

// resolveWrite is ResolveWrite that also returns the path as spelled
// (lexical), for the checks that must hold on both names.
func (p Policy) resolveWrite(userPath string) (abs, rel, lexical string, err error) {
	abs, rel, lexical, err = resolve(p.Root, userPath)
	if err != nil {
		return "", "", "", err
	}
	if inGitDir(rel) || inGitDir(lexical) {
		return "", "", "", fmt.Errorf("path %s is inside .git, which is read-only: %w", userPath, ErrReadOnly)
	}
	if p.IsSecret(rel) || p.IsSecret(lexical) {
		return "", "", "", fmt.Errorf("path %s is a secret file (tools.secretFiles): %w", userPath, ErrSecret)
	}
	if rel == "." {
		return "", "", "", fmt.Errorf("path %s is the workspace root, not a file: %w", userPath, ErrBadPath)
	}
	return abs, rel, lexical, nil
}

// inGitDir reports whether a '/'-separated relative path has a .git
// component. Nested repositories and submodules count too; the comparison
// ignores case because case-insensitive file systems treat .GIT as .git.
func inGitDir(rel string) bool {
	for c := range strings.SplitSeq(rel, "/") {
		if strings.EqualFold(c, ".git") {
			return true
		}
	}
	return false
}

// Resolve confines a path the model gave to the workspace root. It accepts
// workspace-relative paths, and absolute paths that lie inside root. ".." is
// applied lexically to the path as given (that is what the model means);
// symlinks along the way are then followed the way the kernel follows them,
// including ".." inside link targets. A path that does not exist yet resolves
// through its longest existing prefix, so a new file's parent chain must be
// inside root.
//
// abs is root joined with rel, and rel is the '/'-separated path of the real
// location relative to root (so a symlink inside the workspace resolves to
// its target). Neither contains a symlink below root, so opening abs cannot
// leave root unless the tree changes between Resolve and the open.
func Resolve(root, p string) (abs, rel string, err error) {
	abs, rel, _, err = resolve(root, p)
	return abs, rel, err
}

// resolve is Resolve that also returns the lexical relative path (before
// symlinks), for the policy checks that must hold on both names.
func resolve(root, p string) (abs, rel, lexical string, err error) {
	if root == "" {
		return "", "", "", fmt.Errorf("no workspace root: %w", ErrBadPath)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", "", "", fmt.Errorf("path %q contains a NUL byte: %w", p, ErrBadPath)
	}
	if strings.HasPrefix(p, "~") {
		// The tools never expand ~; a path starting with it is almost always
		// the model reaching for a home directory.
		return "", "", "", fmt.Errorf("path %s starts with ~; paths are relative to the workspace root: %w", p, ErrOutside)
	}
	cleanRoot, err := filepath.Abs(root)
	if err != nil {
		return "", "", "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	realRoot, err := realRootOf(cleanRoot)
	if err != nil {
		return "", "", "", fmt.Errorf("workspace root %s: %w", root, err)
	}

	// lexical is the path relative to the root, before any symlink.
	if filepath.IsAbs(p) {
		c := filepath.Clean(p)
		var ok bool
		if lexical, ok = within(cleanRoot, c); !ok {
			if lexical, ok = within(realRoot, c); !ok {
				return "", "", "", outside(p)
			}
		}
	} else {
		lexical = filepath.Clean(p)
		if lexical == ".." || strings.HasPrefix(lexical, ".."+string(filepath.Separator)) {
			return "", "", "", outside(p)
		}
	}

	real, err := realPath(realRoot, lexical)
	if err != nil {
		return "", "", "", fmt.Errorf("path %s: %w", p, err)
	}
	rel, ok := within(realRoot, real)
	if !ok {
		return "", "", "", outside(p)
	}
	return filepath.Join(cleanRoot, rel), filepath.ToSlash(rel), filepath.ToSlash(lexical), nil
}

// realRoots caches each workspace root's real path. A root is chosen by
// the user, outside the model's reach, and does not move while agentls
// runs; resolving it again cost an lstat per component of the root's path
// for every path the model gave.
var realRoots sync.Map // clean root → real root

func realRootOf(cleanRoot string) (string, error) {
	if r, ok := realRoots.Load(cleanRoot); ok {
		return r.(string), nil
	}
	r, err := filepath.EvalSymlinks(cleanRoot)
	if err != nil {
		return "", err
	}
	realRoots.Store(cleanRoot, r)
	return r, nil
}

func outside(p string) error {
	return fmt.Errorf("path %s is %w", p, ErrOutside)
}

// within returns p relative to dir when p is dir or below it. Both must be
// clean and absolute.
func within(dir, p string) (string, bool) {
	if p == dir {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if strings.HasPrefix(p, prefix) {
		return p[len(prefix):], true
	}
	return "", false
}

// realPath resolves rel (clean, relative, no leading "..") below the
// symlink-free directory base, following every symlink component by
// component. Components from the first one that does not exist on are kept
// as written; they must not contain "..", which the kernel could not resolve
// either.
func realPath(base, rel string) (string, error) {
	var todo []string
	if rel != "." {
		todo = strings.Split(rel, string(filepath.Separator))
	}
	cur := base
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			for _, t := range todo {
				if t == ".." {
					return "", fmt.Errorf("%s does not exist: %w", next, fs.ErrNotExist)
				}
			}
			return filepath.Join(append([]string{next}, todo...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if len(todo) > 0 && !fi.IsDir() {
				return "", fmt.Errorf("%s is not a directory: %w", c, ErrBadPath)
			}
			cur = next
			continue
		}
		hops++
		if hops > maxLinkHops {
			return "", fmt.Errorf("too many levels of symbolic links: %w", ErrBadPath)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		todo = append(strings.Split(target, string(filepath.Separator)), todo...)
	}
	return cur, nil
}
