package verify

import (
	"encoding/json"
	pathpkg "path"
	"sort"
	"strings"
)

// jsSourceExts are the files a JavaScript/TypeScript import can name.
var jsSourceExts = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"}

var (
	// jsSpecRE finds the module specifiers of import/export-from, bare
	// import, require() and import() with a literal argument.
	jsSpecRE = lazyRegexp(`(?:\bfrom|\bimport|\brequire\s*\(|\bimport\s*\()\s*["'` + "`" + `]([^"'` + "`" + `\n]+)["'` + "`" + `]`)
	// jsDynamicRE finds require() and import() of a computed name.
	jsDynamicRE = lazyRegexp(`\b(?:require|import)\s*\(\s*[^"'` + "`" + `\s)]`)
	// jsRunnerRE: a test script that is one runner invocation, no shell
	// around it.
	jsJestRE   = lazyRegexp(`^(?:npx\s+)?jest(?:\s+[-\w=./]+)*$`)
	jsVitestRE = lazyRegexp(`^(?:npx\s+)?vitest(?:\s+run)?(?:\s+--[-\w=./]+)*$`)
	// jsNodeOptRE, jsNodeValueRE, jsNodeArgRE: the words of a `node
	// --test` script Scope reuses verbatim in its own command, so none
	// that the shell would read otherwise (quotes, $, ;, braces…).
	jsNodeOptRE   = lazyRegexp(`^--[-\w=./@:]+$`)
	jsNodeValueRE = lazyRegexp(`^[\w@.][-\w=./@:]*$`)
	jsNodeArgRE   = lazyRegexp(`^[\w.*?][-\w./*?]*$`)
)

// jsConfig reports whether a changed file configures the JS/TS build or
// tests, so that every test may see it.
func jsConfig(rel string) bool {
	b := pathpkg.Base(rel)
	switch b {
	case "package.json", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", ".babelrc", ".npmrc", ".nvmrc":
		return true
	}
	for _, p := range []string{"tsconfig", "jsconfig", "jest.", "vitest.", "vite.", "babel.", "setupTests", ".swcrc"} {
		if strings.HasPrefix(b, p) {
			return true
		}
	}
	first, _, _ := strings.Cut(rel, "/")
	return first == "node_modules"
}

func isJSSource(rel string) bool {
	for _, e := range jsSourceExts {
		if strings.HasSuffix(rel, e) {
			return true
		}
	}
	return false
}

// JSScope narrows `npm test` to the tests a change reaches. Where the
// test script is the runner alone: jest runs with --findRelatedTests and
// vitest as `vitest related`, each following the imports itself; node's
// own runner (`node --test`, its options kept: `node --import tsx --test
// 'test/*.test.ts'` runs TypeScript) runs the test files the script names
// (or node finds, when it names none) that reach a changed file through
// static imports (import/export … from, require and import() of a
// literal; './x' resolves to x.ts as to x.js). The scope is whole when the change reaches
// configuration (package.json, lock files, tsconfig, jest/vitest/babel
// configuration), a file that is not JS/TS source (Markdown excepted),
// for a pretest or posttest script, for an import the reading cannot follow (a computed require(), a
// "#subpath" import), for any other test script, or when every test would
// run anyway.
func JSScope(root string, changed []string, unsaved map[string][]byte) scopeResult {
	whole := scopeResult{whole: true}
	var srcs []string
	for _, c := range changed {
		switch {
		case inertDoc(c):
		case jsConfig(c) || !isJSSource(c):
			return whole
		default:
			srcs = append(srcs, c)
		}
	}
	b, ok := readSource(root, "package.json", unsaved)
	if !ok {
		return whole
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return whole
	}
	if pkg.Scripts["pretest"] != "" || pkg.Scripts["posttest"] != "" {
		return whole // npm test runs them around the runner; the runner alone would not
	}
	script := strings.Join(strings.Fields(pkg.Scripts["test"]), " ")
	quoted := make([]string, len(srcs))
	for i, s := range srcs {
		quoted[i] = argPath(s)
	}
	switch {
	case len(srcs) == 0:
		return scopeResult{}
	case jsJestRE.MatchString(script):
		return scopeResult{cmd: "npm test -- --findRelatedTests --passWithNoTests " + strings.Join(quoted, " ")}
	case jsVitestRE.MatchString(script):
		return scopeResult{cmd: "npx --no-install vitest related --run --passWithNoTests " + strings.Join(quoted, " ")}
	}
	if node, args, ok := nodeTestScript(script); ok {
		sel, ok := jsNodeTests(root, srcs, unsaved, args)
		if !ok {
			return whole
		}
		if len(sel) == 0 {
			return scopeResult{}
		}
		return scopeResult{cmd: node + " " + strings.Join(sel, " ")}
	}
	return whole
}

// jsNodeValued are node's options whose value is the next word.
var jsNodeValued = map[string]bool{
	"--import": true, "--require": true, "-r": true, "--loader": true, "--experimental-loader": true,
	"--conditions": true, "-C": true,
}

// nodeTestScript reads a test script that is node's test runner alone:
// node, its options (--import tsx: a TypeScript loader), --test among
// them, then the files or shell patterns it runs (args; none: node's
// default test files). node is the script without args; ok is false for
// any other script, or a sharded run (a shard of the selection is not the
// selection of a shard).
func nodeTestScript(script string) (node string, args []string, ok bool) {
	words := strings.Fields(script)
	if len(words) == 0 || words[0] != "node" {
		return "", nil, false
	}
	test := false
	i := 1
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case jsNodeValued[w]:
			if i+1 == len(words) || !jsNodeValueRE.MatchString(words[i+1]) {
				return "", nil, false
			}
			i++
		case strings.HasPrefix(w, "--test-shard"):
			return "", nil, false
		case w == "--test":
			test = true
		case jsNodeOptRE.MatchString(w):
		case strings.HasPrefix(w, "-"):
			return "", nil, false
		default:
			goto args
		}
	}
args:
	node = strings.Join(words[:i], " ")
	for _, w := range words[i:] {
		if !jsNodeArgRE.MatchString(w) {
			return "", nil, false
		}
		args = append(args, w)
	}
	return node, args, test
}

// isNodeTest reports whether `node --test` without arguments runs a file:
// a .js, .mjs or .cjs file under a directory named test, or named test,
// test-*, *.test, *-test or *_test.
func isNodeTest(rel string) bool {
	ext := pathpkg.Ext(rel)
	if ext != ".js" && ext != ".mjs" && ext != ".cjs" {
		return false
	}
	if strings.HasPrefix(rel, "test/") || strings.Contains(rel, "/test/") {
		return true
	}
	b := strings.TrimSuffix(pathpkg.Base(rel), ext)
	return b == "test" || strings.HasPrefix(b, "test-") || strings.HasSuffix(b, ".test") ||
		strings.HasSuffix(b, "-test") || strings.HasSuffix(b, "_test")
}

// jsNodeTests are node's test files that reach one of srcs through the
// project's static imports, shell-quoted: those the script's args name
// (files, or patterns the shell expands), else node's default test files
// (isNodeTest). ok is false when the graph cannot be trusted, an arg
// names no source file (a directory, a pattern matching nothing), or every
// test is selected.
func jsNodeTests(root string, srcs []string, unsaved map[string][]byte, args []string) (sel []string, ok bool) {
	files, ok := sourceFiles(root, unsaved, func(dir string) bool { b := pathpkg.Base(dir); return b == "node_modules" || b == ".git" }, append(jsSourceExts, ".json")...)
	if !ok {
		return nil, false
	}
	nodes := map[string]bool{}
	for _, f := range files {
		nodes[f] = true
	}
	for _, s := range srcs {
		nodes[s] = true // a removed file's importers still count
	}
	named, ok := jsNamedTests(files, args)
	if !ok {
		return nil, false
	}
	importers := map[string][]string{}
	var tests []string
	for _, f := range files {
		if !isJSSource(f) {
			continue
		}
		if named[f] || len(args) == 0 && isNodeTest(f) {
			tests = append(tests, f)
		}
		text, ok := readSource(root, f, unsaved)
		if !ok {
			continue
		}
		if jsDynamicRE.MatchString(string(text)) {
			return nil, false
		}
		seen := map[string]bool{}
		for _, m := range jsSpecRE.FindAllStringSubmatch(string(text), -1) {
			spec := m[1]
			if strings.HasPrefix(spec, "#") || strings.Contains(spec, "${") {
				return nil, false
			}
			if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
				continue // a package (node: builtins, node_modules)
			}
			for _, g := range jsCandidates(pathpkg.Join(pathpkg.Dir(f), spec)) {
				if nodes[g] && g != f && !seen[g] {
					seen[g] = true
					importers[g] = append(importers[g], f)
				}
			}
		}
	}
	reach := map[string]bool{}
	queue := append([]string(nil), srcs...)
	for _, s := range srcs {
		reach[s] = true
	}
	reachAll(reach, queue, importers)
	for _, t := range tests {
		if reach[t] {
			sel = append(sel, t)
		}
	}
	if len(sel) == len(tests) && len(sel) > 0 {
		return nil, false
	}
	sort.Strings(sel)
	for i, s := range sel {
		sel[i] = argPath(s)
	}
	return sel, true
}

// jsCandidates are the files a relative specifier (joined to its
// importer's directory) may resolve to: itself, with each extension, its
// index file, and for a .js name the TypeScript file it is compiled from.
func jsCandidates(base string) []string {
	out := []string{base}
	for _, e := range append(jsSourceExts, ".json") {
		out = append(out, base+e, base+"/index"+e)
	}
	for js, ts := range map[string][]string{".js": {".ts", ".tsx"}, ".mjs": {".mts"}, ".cjs": {".cts"}, ".jsx": {".tsx"}} {
		if strings.HasSuffix(base, js) {
			for _, t := range ts {
				out = append(out, strings.TrimSuffix(base, js)+t)
			}
		}
	}
	return out
}

// jsNamedTests are the files a node --test script's args name, as the
// shell expands them: a pattern (* and ?) matches within a path segment,
// never a hidden name it does not spell; a plain word is one file. ok is
// false when an arg names anything but JS/TS source files, or nothing.
func jsNamedTests(files []string, args []string) (named map[string]bool, ok bool) {
	named = map[string]bool{}
	for _, a := range args {
		a = pathpkg.Clean(a)
		if strings.HasPrefix(a, "../") || a == ".." || strings.HasPrefix(a, "/") {
			return nil, false
		}
		n := 0
		for _, f := range files {
			if m, _ := pathpkg.Match(a, f); !m || !isJSSource(f) || !jsGlobShows(a, f) {
				continue
			}
			named[f] = true
			n++
		}
		if n == 0 {
			return nil, false
		}
	}
	return named, true
}

// jsGlobShows reports whether the shell's expansion of pattern shows f,
// which pathpkg.Match matched: a segment of f starting with a dot only
// where the pattern's segment does too.
func jsGlobShows(pattern, f string) bool {
	ps, fs := strings.Split(pattern, "/"), strings.Split(f, "/")
	for i := range fs {
		if strings.HasPrefix(fs[i], ".") && !strings.HasPrefix(ps[i], ".") {
			return false
		}
	}
	return true
}
