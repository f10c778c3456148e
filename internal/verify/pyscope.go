package verify

import (
	pathpkg "path"
	"sort"
	"strings"
)

// pyConfig are the files whose change can alter any test's outcome:
// pytest's configuration, its conftest plugins, the package's own
// metadata and build.
var pyConfig = map[string]bool{
	"conftest.py": true, "pyproject.toml": true, "setup.cfg": true, "pytest.ini": true, "tox.ini": true,
	"setup.py": true, ".pytest.ini": true, "noxfile.py": true,
}

// pyNarrowing are settings with which `pytest` alone collects other test
// files than pytest's defaults: naming files would then run tests the
// whole run does not (or miss some), so the scope is the whole run.
var pyNarrowing = []string{"testpaths", "python_files", "norecursedirs", "--ignore", "--deselect", "collect_ignore", "--pyargs", "-p "}

// pyDynamicRE finds imports a static reading cannot follow.
var pyDynamicRE = lazyRegexp(`\b(?:importlib|__import__|import_module|importorskip|runpy|pkgutil|load_module|spec_from_file_location)\b|(?:^|[^.\w])(?:exec|eval)\s*\(`)

var (
	pyImportRE = lazyRegexp(`^import\s+(.+)$`)
	pyFromRE   = lazyRegexp(`^from\s+(\.*)([\w.]*)\s+import\s+(.+)$`)
)

// skipPyDir reports whether pytest's collection never enters a directory
// of this name (its default norecursedirs, virtual environments, caches).
func skipPyDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules" || name == "venv" ||
		name == "env" || name == "build" || name == "dist" || name == "site-packages" || name == "CVS" ||
		name == "_darcs" || name == "{arch}" || strings.HasSuffix(name, ".egg") || strings.HasSuffix(name, ".egg-info")
}

// isPyTest reports whether pytest collects a file of this name by default.
func isPyTest(rel string) bool {
	b := pathpkg.Base(rel)
	return strings.HasSuffix(b, ".py") && (strings.HasPrefix(b, "test_") || strings.HasSuffix(b, "_test.py"))
}

// PyScope selects the pytest files that a change of the files in changed
// can reach: those that import a changed module, directly or through other
// modules of the project, read statically from the source (unsaved's texts
// in place of the disk's), the changed test files themselves, and the
// tests under a conftest.py or package that does. Imports are matched
// generously (a name matches every project module whose dotted path ends
// in it, and every package on its way), so an ambiguous import selects more
// tests, never fewer.
//
// The scope is whole when the change reaches configuration (conftest.py,
// pyproject.toml, setup.cfg, pytest.ini, tox.ini, setup.py), a file that
// is not Python source (data, fixtures: any test may read it; Markdown
// excepted), or a directory named fixtures; when the configuration
// narrows collection itself (testpaths, python_files, …); when any module
// imports in a way the reading cannot follow (importlib, __import__,
// exec); or when it would select every test anyway.
func PyScope(root string, changed []string, unsaved map[string][]byte) scopeResult {
	r := pyScope(root, changed, unsaved, false)
	for i, s := range r.files {
		r.files[i] = argPath(s)
	}
	return r
}

// UnittestScope is PyScope for `python -m unittest`'s discovery: it
// selects, by the same static import graph and on the same rules, the test
// modules discovery would load (test*.py named as a module, in the root or
// in packages beneath it) that a change reaches, as dotted module names to
// run by name (`python3 -m unittest tests.test_a`). It is whole, besides,
// when the change reaches a package's __init__.py that discovery imports
// (it imports every package it enters, whatever the tests import, and
// runs the tests one defines), or when such a package defines load_tests
// (which decides what discovery loads beneath it, and which running by
// name skips).
func UnittestScope(root string, changed []string, unsaved map[string][]byte) scopeResult {
	r := pyScope(root, changed, unsaved, true)
	for i, s := range r.files {
		r.files[i] = shellQuote(strings.Join(pyModuleParts(s), "."))
	}
	return r
}

// pyScope is PyScope (unittest false) or UnittestScope: the scope's test
// files, workspace-relative, sorted.
func pyScope(root string, changed []string, unsaved map[string][]byte, unittest bool) scopeResult {
	whole := scopeResult{whole: true}
	if pyRunsAll(root, changed, unsaved, unittest) {
		return whole
	}
	skip := func(dir string) bool { return skipPyDir(pathpkg.Base(dir)) }
	if unittest {
		// Discovery enters every package, whatever its name (a package
		// named build is one), and nothing else.
		skip = func(dir string) bool {
			return skipPyDir(pathpkg.Base(dir)) && !isFile(root, pathpkg.Join(dir, "__init__.py")) && unsaved[pathpkg.Join(dir, "__init__.py")] == nil
		}
	}
	files, ok := sourceFiles(root, unsaved, skip, ".py")
	if !ok {
		return whole
	}
	present := map[string]bool{}
	for _, f := range files {
		present[f] = true
	}
	// Changed modules the change removed still have importers.
	nodes := append([]string(nil), files...)
	for _, c := range changed {
		if strings.HasSuffix(c, ".py") && !present[c] {
			nodes = append(nodes, c)
		}
	}
	// bySuffix: a dotted name → the files whose dotted path ends in it.
	bySuffix := map[string][]string{}
	for _, f := range nodes {
		parts := pyModuleParts(f)
		for i := range parts {
			k := strings.Join(parts[i:], ".")
			bySuffix[k] = append(bySuffix[k], f)
		}
	}
	importers := map[string][]string{}
	var tests []string
	discovered := map[string]bool{} // unittest: the packages' __init__.py discovery imports
	for _, f := range files {
		text, ok := readSource(root, f, unsaved)
		if !ok {
			continue
		}
		if !unittest && pathpkg.Base(f) == "conftest.py" && pyNarrows(string(text)) {
			return whole
		}
		if unittest && pathpkg.Base(f) == "__init__.py" && unittestDiscovers(pathpkg.Dir(f), present) {
			discovered[f] = true
			if strings.Contains(string(text), "load_tests") {
				return whole
			}
		}
		names, dynamic := pyImports(f, string(text))
		if dynamic {
			return whole
		}
		seen := map[string]bool{}
		dep := func(name string) {
			for _, g := range bySuffix[name] {
				if g != f && !seen[g] {
					seen[g] = true
					importers[g] = append(importers[g], f)
				}
			}
		}
		for _, n := range names {
			// Importing a.b.c runs a/__init__.py and a/b/__init__.py first.
			parts := strings.Split(n, ".")
			for i := 1; i <= len(parts); i++ {
				dep(strings.Join(parts[:i], "."))
			}
		}
		isTest := isPyTest(f)
		if unittest {
			isTest = isUnittestModule(f, present)
		}
		if isTest {
			tests = append(tests, f)
			// pytest loads the conftest.py files and imports the packages
			// (their __init__.py) above a test file before the file itself.
			for dir := pathpkg.Dir(f); ; dir = pathpkg.Dir(dir) {
				for _, name := range []string{"conftest.py", "__init__.py"} {
					p := pathpkg.Join(dir, name)
					if present[p] && !seen[p] {
						seen[p] = true
						importers[p] = append(importers[p], f)
					}
				}
				if dir == "." || dir == "/" {
					break
				}
			}
		}
	}
	return pySelect(changed, importers, discovered, tests)
}

// pyRunsAll reports whether the change must run every test before any
// file is read: a configuration or fixture file, a file that is neither
// Python nor inert prose, or (pytest) a configuration that narrows or
// widens what pytest collects.
func pyRunsAll(root string, changed []string, unsaved map[string][]byte, unittest bool) bool {
	for _, c := range changed {
		if pyConfig[pathpkg.Base(c)] || strings.Contains("/"+c, "/fixtures/") {
			return true
		}
		if !strings.HasSuffix(c, ".py") && !inertDoc(c) {
			return true
		}
	}
	if !unittest {
		for _, cfg := range []string{"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"} {
			if b, ok := readSource(root, cfg, unsaved); ok && pyNarrows(string(b)) {
				return true
			}
		}
	}
	return false
}

// pySelect follows importers from the changed modules and keeps the tests
// reached; reaching a package __init__.py unittest's discovery imports, or
// every test, is the whole run.
func pySelect(changed []string, importers map[string][]string, discovered map[string]bool, tests []string) scopeResult {
	whole := scopeResult{whole: true}
	reach := map[string]bool{}
	var queue []string
	for _, c := range changed {
		if strings.HasSuffix(c, ".py") && !reach[c] {
			reach[c] = true
			queue = append(queue, c)
		}
	}
	for f := range reachAll(reach, queue, importers) {
		if discovered[f] {
			return whole
		}
	}
	var sel []string
	for _, t := range tests {
		if reach[t] {
			sel = append(sel, t)
		}
	}
	if len(sel) == len(tests) && len(sel) > 0 {
		return whole
	}
	sort.Strings(sel)
	return scopeResult{files: sel}
}

// unittestDiscovers reports whether `python -m unittest` (discovery from
// the workspace root) enters dir: the root, or a package (a directory
// with an __init__.py) in one it enters.
func unittestDiscovers(dir string, present map[string]bool) bool {
	for ; dir != "." && dir != "/" && dir != ""; dir = pathpkg.Dir(dir) {
		if !present[pathpkg.Join(dir, "__init__.py")] {
			return false
		}
	}
	return true
}

// isUnittestModule reports whether unittest's default discovery loads a
// file as a test module: named test*.py, a valid module name, in a
// directory discovery enters.
func isUnittestModule(rel string, present map[string]bool) bool {
	return unittestNamed(rel) && unittestDiscovers(pathpkg.Dir(rel), present)
}

var pyIdentRE = lazyRegexp(`^[_A-Za-z]\w*$`)

// unittestRE matches the unittest commands Scope narrows: discovery from
// the root with default pattern, options only.
var unittestRE = lazyRegexp(`^(python3?\s+-m\s+unittest)(?:\s+discover)?((?:\s+(?:-[vqbfc]|--locals|--buffer|--failfast|--catch|--verbose|--quiet))*)$`)

// unittestPrefix is a unittest check's command without discover, to
// which Scope appends the test modules; ok is false for any other
// command.
func unittestPrefix(cmd string) (prefix string, ok bool) {
	m := unittestRE.FindStringSubmatch(strings.Join(strings.Fields(cmd), " "))
	if m == nil {
		return "", false
	}
	return m[1] + m[2], true
}

// pyNarrows reports whether a configuration text changes what `pytest`
// collects by default.
func pyNarrows(text string) bool {
	for _, k := range pyNarrowing {
		if strings.Contains(text, k) {
			return true
		}
	}
	return false
}

// pyModuleParts is a file's dotted module path from the workspace root:
// "pkg/sub/m.py" → pkg, sub, m; a package's __init__.py is the package.
func pyModuleParts(rel string) []string {
	p := strings.TrimSuffix(rel, ".py")
	p = strings.TrimSuffix(p, "/__init__")
	if p == "__init__" {
		return nil
	}
	return strings.Split(p, "/")
}

// pyImports lists the dotted names a module's import statements name
// (relative ones resolved against its package; for "from m import a, b",
// m, m.a and m.b, since a and b may be modules), and whether it imports in
// a way a static reading cannot follow. Import statements anywhere count,
// in functions and under conditions too: a test that may import a module
// is selected.
func pyImports(rel, text string) (names []string, dynamic bool) {
	pkg := pyModuleParts(rel)
	if !strings.HasSuffix(rel, "/__init__.py") && rel != "__init__.py" && len(pkg) > 0 {
		pkg = pkg[:len(pkg)-1]
	}
	if pyDynamicRE.MatchString(text) {
		return nil, true
	}
	for _, stmt := range pyStatements(text) {
		if m := pyImportRE.FindStringSubmatch(stmt); m != nil {
			for _, part := range strings.Split(m[1], ",") {
				if f := strings.Fields(part); len(f) > 0 {
					names = append(names, f[0])
				}
			}
			continue
		}
		m := pyFromRE.FindStringSubmatch(stmt)
		if m == nil {
			continue
		}
		mod := m[2]
		if level := len(m[1]); level > 0 {
			if level-1 > len(pkg) {
				continue // above the workspace: nothing of the project
			}
			base := strings.Join(pkg[:len(pkg)-(level-1)], ".")
			switch {
			case base == "":
			case mod == "":
				mod = base
			default:
				mod = base + "." + mod
			}
		}
		if mod != "" {
			names = append(names, mod)
		}
		list := strings.Trim(strings.TrimSpace(m[3]), "()")
		for _, part := range strings.Split(list, ",") {
			f := strings.Fields(part)
			if len(f) == 0 || f[0] == "*" {
				continue
			}
			if mod == "" {
				names = append(names, f[0])
			} else {
				names = append(names, mod+"."+f[0])
			}
		}
	}
	return names, false
}

// pyStatements are the import statements of Python source, one string
// each, trimmed, comments dropped: a line (or a part of one between
// semicolons) that starts with "import" or "from", continued over the
// next lines while it ends in a backslash or leaves a parenthesis open.
// String literals are not parsed: an import inside one is read as an
// import, which only selects more, and a stray bracket elsewhere cannot
// hide the imports after it.
func pyStatements(text string) []string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := stripPyComment(lines[i])
		for _, seg := range strings.Split(line, ";") {
			seg = strings.TrimSpace(seg)
			if !strings.HasPrefix(seg, "import") && !strings.HasPrefix(seg, "from") {
				continue
			}
			stmt := seg
			for j := 0; j < 100 && i+1 < len(lines); j++ {
				open := strings.Count(stmt, "(") > strings.Count(stmt, ")")
				if !open && !strings.HasSuffix(stmt, "\\") {
					break
				}
				i++
				stmt = strings.TrimSuffix(stmt, "\\") + " " + strings.TrimSpace(stripPyComment(lines[i]))
			}
			out = append(out, strings.Join(strings.Fields(stmt), " "))
		}
	}
	return out
}

func stripPyComment(line string) string {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	return strings.TrimRight(line, " \t\r")
}

func unittestCheck(cmd string) bool {
	_, ok := unittestPrefix(cmd)
	return ok
}
