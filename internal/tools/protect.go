package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/policy"
)

// A protected name that is a symlink protects its target too: with
// `.husky -> tools/husky` and git's core.hooksPath .husky, a write to
// tools/husky/pre-commit changes the hook the user's next commit runs as
// surely as a write to .husky/pre-commit. So does a link inside a
// protected directory (.git/hooks -> ../scripts/hooks). ProtectedWrite
// finds such links at the moment of the write: every directory of the
// workspace is checked (one lstat) and read again where it changed since
// it was last read (linkindex.go), so a link made meanwhile, by a command
// or the user, is seen.

// ProtectedWrite reports whether writing the file rel (workspace-relative,
// '/'-separated, the real path after links) of the workspace root needs
// the user's explicit approval, and why: rel or lexical (the path as the
// model spelled it, "" if the same) is protected by name
// (policy.Protected), or rel lies at or below the target of a symlink
// whose name is protected, at any depth.
func ProtectedWrite(root, rel, lexical string) (bool, string) {
	if ok, why := protectedByName(rel, lexical); ok {
		return true, why
	}
	return protectionOf(root).check(rel, lexical)
}

// ProtectedTargets are the places in the workspace root where a
// protected symlink leads (tools/husky for .husky -> tools/husky),
// workspace-relative and '/'-separated, for a view that must protect them
// as it protects the names themselves (the sandbox's read-only binds).
func ProtectedTargets(root string) []string {
	var out []string
	for _, l := range protectedLinks(root) {
		out = append(out, l.target)
	}
	return out
}

func protectedByName(rel, lexical string) (bool, string) {
	if ok, why := policy.Protected(rel); ok {
		return true, why
	}
	if lexical != "" && lexical != rel {
		if ok, why := policy.Protected(lexical); ok {
			return true, why
		}
	}
	return false, ""
}

// protection is the workspace's protected links as of one walk, for a
// caller that checks many paths at once (what a command wrote).
type protection struct{ links []protectedLink }

func protectionOf(root string) protection { return protection{links: protectedLinks(root)} }

// check is ProtectedWrite against the links of p's walk.
func (p protection) check(rel, lexical string) (bool, string) {
	if ok, why := protectedByName(rel, lexical); ok {
		return true, why
	}
	for _, a := range p.links {
		if a.target == "." || rel == a.target || strings.HasPrefix(rel, a.target+"/") {
			_, why := policy.Protected(a.link)
			return true, rel + " lies where the symlink " + a.link + " leads, and " + why
		}
	}
	return false, ""
}

// protectedLink is a symlink with a protected name (or in a protected
// directory) and where it leads, both relative to the real root.
type protectedLink struct{ link, target string }

// protectedLinks returns the symlinks of root that policy.Protected names
// (by name, or inside a protected directory) and whose target lies in the
// workspace, as the tree is now (linkIndex: every directory's entries, read
// again where the directory changed). A link whose target cannot be
// resolved (dangling, a loop) protects the path it names as far as it
// resolves.
func protectedLinks(root string) []protectedLink {
	realRoot, err := realRootOf(filepath.Clean(root))
	if err != nil {
		return nil
	}
	var out []protectedLink
	for _, rel := range indexOf(realRoot).links() {
		if t, ok := linkTarget(realRoot, rel); ok {
			out = append(out, protectedLink{link: rel, target: t})
		}
	}
	return out
}

// linkTarget resolves the link rel below realRoot, following every link
// on the way (realPath); ok is false when it leads out of the workspace
// (nothing of the workspace to protect then).
func linkTarget(realRoot, rel string) (string, bool) {
	real, err := realPath(realRoot, filepath.FromSlash(rel))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		// A dangling link: protect where it would create a file.
		target, rerr := os.Readlink(filepath.Join(realRoot, filepath.FromSlash(rel)))
		if rerr != nil || filepath.IsAbs(target) {
			return "", false
		}
		real = filepath.Join(realRoot, filepath.Dir(filepath.FromSlash(rel)), target)
	}
	t, ok := within(realRoot, real)
	if !ok {
		return "", false
	}
	return filepath.ToSlash(t), true
}
