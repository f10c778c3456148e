package verify

import (
	"context"
	"io"
	"io/fs"
	pathpkg "path"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/proc"
)

// A Check is one detected check command and what of it a change calls
// for.
type Check struct {
	// Full is the detected command, as it checks the whole project.
	Full string
	// Command is what runs now: Full narrowed to what the change reaches,
	// Full itself, or "" when the change reaches nothing it checks.
	Command string
	// Estimate: Command's scope comes from a static reading of the source
	// (an import graph), which code can defeat in ways the reading does not
	// see; Full must still pass once before the task counts as verified.
	// A scope the toolchain itself computes (Go's packages, Cargo's crates)
	// is no estimate.
	Estimate bool
}

// Scoped reports whether Command is narrower than Full.
func (c Check) Scoped() bool { return c.Command != c.Full }

// ScopeInput is what Scope needs to know of a change.
type ScopeInput struct {
	Root     string
	Commands []string // detected checks (DetectWith)
	Changed  []string // workspace-relative, '/'-separated
	Unsaved  map[string][]byte
	// Sandbox, Env and Secrets are those of the checks: `cargo metadata`
	// runs as they do.
	Sandbox proc.Sandbox
	Env     []string
	Secrets []string
}

// Scope narrows each detected check in in.Commands to what the change
// reaches, where the toolchain does not already skip what a change cannot
// reach:
//
//   - go build/vet/test: the changed packages and their importers
//     (GoScope);
//   - pytest: the test files that import a changed module, directly or
//     through others, by the project's static import graph (PyScope);
//   - python -m unittest: the same, among the test modules its discovery
//     loads, run by name (UnittestScope);
//   - npm test: the runner's related-tests mode (jest --findRelatedTests,
//     vitest related), or for node's own runner the test files the JS/TS
//     import graph leads to (JSScope);
//   - cargo check/test: the workspace crates holding a changed file and
//     the members that depend on them (`cargo test -p …`, RustScope).
//
// Any other command, and each of these when the change can reach
// everything (configuration, manifests, an import the reading cannot
// follow), is kept whole. Commands are never reordered.
func Scope(ctx context.Context, in ScopeInput) []Check {
	checks := make([]Check, len(in.Commands))
	for i, c := range in.Commands {
		checks[i] = Check{Full: c, Command: c}
	}
	if len(in.Changed) == 0 {
		return checks
	}
	var goScoped []string
	goDone, pyDone, utDone, jsDone, rsDone := false, false, false, false, false
	var py, ut, js, rs scopeResult
	for i := range checks {
		c := &checks[i]
		switch {
		case goCheck(c.Full) != "":
			if !goDone {
				goScoped = ScopeGoChecks(in.Root, in.Commands, in.Changed, in.Unsaved)
				goDone = true
			}
			c.Command = ""
			for _, s := range goScoped {
				if s == c.Full || strings.HasPrefix(s, strings.TrimSuffix(c.Full, "./...")) && goCheck(c.Full) == goCheckOf(s) {
					c.Command = s
				}
			}
		case c.Full == "pytest -q":
			if !pyDone {
				py, pyDone = PyScope(in.Root, in.Changed, in.Unsaved), true
			}
			c.Command, c.Estimate = py.command(c.Full, "pytest -q", py.files), true
		case unittestCheck(c.Full):
			if !utDone {
				ut, utDone = UnittestScope(in.Root, in.Changed, in.Unsaved), true
			}
			prefix, _ := unittestPrefix(c.Full)
			c.Command, c.Estimate = ut.command(c.Full, prefix, ut.files), true
		case c.Full == "npm test":
			if !jsDone {
				js, jsDone = JSScope(in.Root, in.Changed, in.Unsaved), true
			}
			if !js.whole {
				c.Command, c.Estimate = js.cmd, true
			}
		case c.Full == "cargo check" || c.Full == "cargo test":
			if !rsDone {
				rs, rsDone = RustScope(ctx, in), true
			}
			if !rs.whole {
				c.Command = ""
				if len(rs.files) > 0 {
					c.Command = c.Full + " " + strings.Join(rs.files, " ")
				}
			}
		}
	}
	return checks
}

// goCheckOf names the Go check a scoped Go command is.
func goCheckOf(s string) string {
	for _, v := range []string{"build", "vet", "test"} {
		if strings.HasPrefix(s, "go "+v+" ") {
			return v
		}
	}
	return ""
}

// scopeResult is one ecosystem's scope: whole, or the arguments (files,
// crates) that narrow its check, or a command of its own.
type scopeResult struct {
	whole bool
	files []string // already shell-quoted
	cmd   string
}

// command is full narrowed to files (prefix + files), "" for none, full
// when the scope is whole.
func (s scopeResult) command(full, prefix string, files []string) string {
	if s.whole {
		return full
	}
	if len(files) == 0 {
		return ""
	}
	return prefix + " " + strings.Join(files, " ")
}

// Scoped reports whether any check runs narrower than it was detected.
func Scoped(checks []Check) bool {
	for _, c := range checks {
		if c.Scoped() {
			return true
		}
	}
	return false
}

// Estimated reports whether a check narrowed by an estimate must still run
// whole.
func Estimated(checks []Check) bool {
	for _, c := range checks {
		if c.Estimate && c.Scoped() {
			return true
		}
	}
	return false
}

// Commands are the checks' commands that run now.
func Commands(checks []Check) []string {
	var out []string
	for _, c := range checks {
		if c.Command != "" {
			out = append(out, c.Command)
		}
	}
	return out
}

// FullCommands are the checks as detected.
func FullCommands(checks []Check) []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.Full
	}
	return out
}

// maxScopeFiles bounds the walks of the import-graph scopes: a project
// with more source files is checked whole rather than analysed.
const maxScopeFiles = 20000

// sourceFiles lists the files under root whose names end in one of exts,
// as the checks will see them (unsaved's texts count as present), outside
// the directories no test runner looks in (skip, given a directory's
// workspace-relative path). ok is false when the tree is too large.
func sourceFiles(root string, unsaved map[string][]byte, skip func(dir string) bool, exts ...string) (files []string, ok bool) {
	has := func(name string) bool {
		for _, e := range exts {
			if strings.HasSuffix(name, e) {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	n := 0
	ok = true
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxScopeFiles {
			ok = false
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != root && skip(rel) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !has(d.Name()) {
			return nil
		}
		seen[rel] = true
		files = append(files, rel)
		return nil
	})
	for rel := range unsaved {
		if seen[rel] || !has(rel) {
			continue
		}
		skipped := false
		for dir := pathpkg.Dir(rel); dir != "." && dir != "/"; dir = pathpkg.Dir(dir) {
			if skip(dir) {
				skipped = true
			}
		}
		if !skipped {
			files = append(files, rel)
		}
	}
	return files, ok
}

// readSource is a source file's text as the checks will see it: unsaved's,
// else the disk's (a regular file, at most maxScopeFile bytes); ok is
// false when it cannot be read (the change removed it).
func readSource(root, rel string, unsaved map[string][]byte) ([]byte, bool) {
	if b, ok := unsaved[rel]; ok {
		return b, true
	}
	f, fi, err := openRegular(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi.Size() > maxScopeFile {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxScopeFile))
	return b, err == nil
}

// argPath is a workspace-relative path as a runner's argument: quoted
// for sh -c, and never read as an option ("-k_test.py" is "./-k_test.py").
func argPath(rel string) string {
	if strings.HasPrefix(rel, "-") {
		rel = "./" + rel
	}
	return shellQuote(rel)
}

// inertDoc reports whether a changed file is documentation no check
// reads: it reaches nothing.
func inertDoc(rel string) bool {
	switch strings.ToLower(pathpkg.Ext(rel)) {
	case ".md", ".rst", ".adoc":
		return true
	}
	return false
}

// reachAll marks in reach everything edges leads to from queue's entries
// (already marked), breadth first: the importers, dependents, … of the
// changed nodes. It returns reach.
func reachAll[K comparable](reach map[K]bool, queue []K, edges map[K][]K) map[K]bool {
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, by := range edges[n] {
			if !reach[by] {
				reach[by] = true
				queue = append(queue, by)
			}
		}
	}
	return reach
}
