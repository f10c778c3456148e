package verify

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"
)

// Detect proposes check commands from the files at root, for when the
// configuration names none. A Makefile "check" target is the project's own
// word on what checking means and wins alone. Otherwise each ecosystem
// found adds its commands (a Go service with a web frontend gets both), and
// a Makefile "test" target is the fallback when none is found.
//
// An ecosystem with no source files yet adds nothing: a fresh "go mod
// init" has no packages, and "go vet ./..." fails on it with "no packages
// to vet" however right the task's other changes are.
func Detect(root string) []string {
	return DetectWith(root, nil)
}

// DetectWith is Detect for the workspace with the files in present
// (workspace-relative, '/'-separated) counted as existing: a task's new
// files that are not on disk yet (a proposal under review, a dry run).
func DetectWith(root string, present []string) []string {
	return detect(root, func(exts ...string) bool {
		for _, p := range present {
			for _, e := range exts {
				if strings.HasSuffix(p, e) {
					return true
				}
			}
		}
		return hasSource(root, exts)
	})
}

// DetectAny is every check the project files call for, were there source
// files for each: whether a task may have something to check by its end.
func DetectAny(root string) []string {
	return detect(root, func(...string) bool { return true })
}

func detect(root string, has func(exts ...string) bool) []string {
	targets := makeTargets(root)
	if targets["check"] {
		return []string{"make check"}
	}
	var cmds []string
	if isFile(root, "go.mod") && has(".go") {
		cmds = append(cmds, "go build ./...", "go vet ./...", "go test ./...")
	}
	if isFile(root, "tsconfig.json") && isFile(root, "node_modules/.bin/tsc") && has(".ts", ".tsx", ".mts", ".cts") {
		cmds = append(cmds, TscCheck)
	}
	if npmHasTest(root) {
		cmds = append(cmds, "npm test")
	}
	if isFile(root, "Cargo.toml") && has(".rs") {
		cmds = append(cmds, "cargo check", "cargo test")
	}
	if (isFile(root, "pyproject.toml") || isFile(root, "pytest.ini")) && has(".py") {
		cmds = append(cmds, "pytest -q")
	} else if has(".py") && unittestProject(root) {
		cmds = append(cmds, UnittestCheck)
	}
	if len(cmds) == 0 && targets["test"] {
		cmds = append(cmds, "make test")
	}
	return cmds
}

// TscCheck type-checks a TypeScript project with its own compiler,
// incrementally: tsc keeps what it learnt in a build-info file under
// node_modules (which the checks' view shows as on disk, so it outlives
// the run) and checks again only what a change can affect. It is never
// narrowed: the incremental build is tsc's own scope.
const TscCheck = "node_modules/.bin/tsc --noEmit --incremental --tsBuildInfoFile node_modules/.cache/agentls/tsc.tsbuildinfo"

// UnittestCheck runs a Python project's unittest tests by discovery from
// the workspace root, for a project that has them and no pytest
// configuration: the standard library's runner, nothing to install.
const UnittestCheck = "python3 -m unittest"

// unittestProject reports whether discovery from root finds a test module
// (isUnittestModule) that uses unittest: its text names it. A project of
// pytest-style tests with no configuration is not one (unittest would run
// none of them).
func unittestProject(root string) bool {
	found, seen, read := false, 0, 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxSourceScan || read >= 50 {
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != root && !isFile(p, "__init__.py") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !unittestNamed(rel) {
			return nil
		}
		read++
		if b, ok := readSource(root, rel, nil); ok && strings.Contains(string(b), "unittest") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// unittestNamed reports whether discovery loads a file of this name as a
// test module (its directory aside).
func unittestNamed(rel string) bool {
	b := pathpkg.Base(rel)
	return strings.HasPrefix(b, "test") && strings.HasSuffix(b, ".py") && pyIdentRE.MatchString(strings.TrimSuffix(b, ".py"))
}

// maxSourceScan bounds hasSource's walk: a tree that large is assumed to
// hold sources rather than walked to its end.
const maxSourceScan = 20000

// hasSource reports whether a file ending in one of exts is under root,
// outside the directories no build looks in (hidden ones, testdata,
// node_modules, vendor, target).
func hasSource(root string, exts []string) bool {
	found, seen := false, 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxSourceScan {
			found = true
			return fs.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "node_modules" || name == "vendor" || name == "target") {
				return fs.SkipDir
			}
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(name, e) {
				found = true
				return fs.SkipAll
			}
		}
		return nil
	})
	return found
}

func isFile(root, name string) bool {
	fi, err := os.Stat(filepath.Join(root, name))
	return err == nil && fi.Mode().IsRegular()
}

// npmPlaceholder is the test script "npm init" writes, which always fails.
const npmPlaceholder = `echo "Error: no test specified" && exit 1`

func npmHasTest(root string) bool {
	b, err := readManifest(filepath.Join(root, "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return false
	}
	t := strings.TrimSpace(pkg.Scripts["test"])
	return t != "" && t != npmPlaceholder
}

// makeRuleRE matches a rule line "a b: deps", not a variable assignment
// ("a := b", "a ::= b") or a recipe line (those start with a tab).
var makeRuleRE = lazyRegexp(`^([A-Za-z0-9_.\-/ ]+?)\s*::?(?:[^=:]|$)`)

// makeTargets lists the explicit targets of the Makefile GNU make would
// read at root. Included makefiles are not followed.
func makeTargets(root string) map[string]bool {
	targets := map[string]bool{}
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		f, _, err := openRegular(filepath.Join(root, name))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			m := makeRuleRE.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			for _, t := range strings.Fields(m[1]) {
				targets[t] = true
			}
		}
		f.Close()
		break
	}
	return targets
}
