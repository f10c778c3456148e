package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/need"
)

// The generated projects of the gate benchmark and the mutation sweep:
// in each language, 50 modules (one shared module, "shared", and 49
// others, m00…m48) and 200 tests (4 for each module). Most modules (those
// with i%5 != 4) import the shared one; every module with i%7 == 3 also
// imports the one before it, so a change can fail a test two imports
// away. m48 is a leaf: no module imports it.
//
// work is what each test computes besides its assertion (a loop of work
// iterations), standing for what a real test does; 0 for the sweep.

const genModules = 49 // besides shared

func genImportsShared(i int) bool { return i%5 != 4 }
func genChained(i int) bool       { return i%7 == 3 }
func genFactor(i int) int         { return i%3 + 2 }

// genValue is what f_i(x) returns in the generated code.
func genValue(i, x int) int {
	v := x * genFactor(i)
	if genImportsShared(i) {
		v = (x + 1) * genFactor(i)
	}
	if genChained(i) {
		v += genValue(i-1, x)
	}
	return v
}

// genPython writes the Python package proj/ and its pytest files.
func genPython(t testing.TB, root string, work int) { genPy(t, root, work, false) }

// genUnittest writes the same package with unittest's tests instead: no
// pytest configuration, tests/ a package of unittest.TestCase modules, run
// by `python3 -m unittest`.
func genUnittest(t testing.TB, root string, work int) { genPy(t, root, work, true) }

func genPy(t testing.TB, root string, work int, unittest bool) {
	files := map[string]string{
		"pyproject.toml":   "[project]\nname = \"proj\"\nversion = \"0\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
		"proj/__init__.py": "",
		"proj/shared.py":   "NONCE = 0\n\n\ndef base(x):\n    return x + 1\n",
	}
	if unittest {
		delete(files, "pyproject.toml")
		files["tests/__init__.py"] = ""
	}
	testBody := func(call string, want []int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "\n\ndef _work():\n    s = 0\n    for i in range(%d):\n        s += i\n    return s\n", work)
		if unittest {
			b.WriteString("\n\nclass Test(unittest.TestCase):\n")
			for j, w := range want {
				fmt.Fprintf(&b, "    def test_%d(self):\n        _work()\n        self.assertEqual(%s(%d), %d)\n\n", j, call, j, w)
			}
			return b.String()
		}
		for j, w := range want {
			fmt.Fprintf(&b, "\n\ndef test_%d():\n    _work()\n    assert %s(%d) == %d\n", j, call, j, w)
		}
		return b.String()
	}
	if unittest {
		body := testBody
		testBody = func(call string, want []int) string { return "\nimport unittest\n" + body(call, want) }
	}
	files["tests/test_shared.py"] = "from proj import shared" + testBody("shared.base", []int{1, 2, 3, 4})
	for i := range genModules {
		var b strings.Builder
		if genImportsShared(i) {
			b.WriteString("from proj import shared\n")
		}
		if genChained(i) {
			fmt.Fprintf(&b, "from proj import m%02d\n", i-1)
		}
		fmt.Fprintf(&b, "\nNONCE = 0\n\n\ndef f(x):\n")
		if genImportsShared(i) {
			fmt.Fprintf(&b, "    v = shared.base(x) * %d\n", genFactor(i))
		} else {
			fmt.Fprintf(&b, "    v = x * %d\n", genFactor(i))
		}
		if genChained(i) {
			fmt.Fprintf(&b, "    v += m%02d.f(x)\n", i-1)
		}
		b.WriteString("    return v\n")
		files[fmt.Sprintf("proj/m%02d.py", i)] = b.String()
		files[fmt.Sprintf("tests/test_m%02d.py", i)] = fmt.Sprintf("from proj import m%02d", i) +
			testBody(fmt.Sprintf("m%02d.f", i), []int{genValue(i, 0), genValue(i, 1), genValue(i, 2), genValue(i, 3)})
	}
	for rel, text := range files {
		writeFile(t, root, rel, text)
	}
}

// genJS writes the JavaScript modules src/ and their node:test files
// (ES modules, run by `node --test`; node here has no TypeScript loader
// without one fetched).
func genJS(t testing.TB, root string, work int) {
	files := map[string]string{
		"package.json":  `{"name":"proj","private":true,"type":"module","scripts":{"test":"node --test"}}` + "\n",
		"src/shared.js": "export const NONCE = 0;\n\nexport function base(x) {\n  return x + 1;\n}\n",
	}
	genESModules(files, "js", ".js", "", work)
	for rel, text := range files {
		writeFile(t, root, rel, text)
	}
}

// genESModules adds to files the modules src/m00…m48 and their node:test
// files test/*.test.<ext>, and the shared module's tests: JavaScript
// (ext "js", imports naming ".js") or TypeScript (ext "ts", imports
// without an extension, num ": number" annotating the numbers).
func genESModules(files map[string]string, ext, imp, num string, work int) {
	testBody := func(imports, call string, want []int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "import test from 'node:test';\nimport assert from 'node:assert/strict';\n%s\n\n", imports)
		fmt.Fprintf(&b, "function work()%s {\n  let s = 0;\n  for (let i = 0; i < %d; i++) s += i;\n  return s;\n}\n", num, work)
		for j, w := range want {
			fmt.Fprintf(&b, "\ntest('case %d', () => {\n  work();\n  assert.equal(%s(%d), %d);\n});\n", j, call, j, w)
		}
		return b.String()
	}
	files["test/shared.test."+ext] = testBody("import { base } from '../src/shared"+imp+"';", "base", []int{1, 2, 3, 4})
	for i := range genModules {
		var b strings.Builder
		if genImportsShared(i) {
			b.WriteString("import { base } from './shared" + imp + "';\n")
		}
		if genChained(i) {
			fmt.Fprintf(&b, "import { f as prev } from './m%02d%s';\n", i-1, imp)
		}
		fmt.Fprintf(&b, "\nexport const NONCE = 0;\n\nexport function f(x%s)%s {\n", num, num)
		if genImportsShared(i) {
			fmt.Fprintf(&b, "  let v = base(x) * %d;\n", genFactor(i))
		} else {
			fmt.Fprintf(&b, "  let v = x * %d;\n", genFactor(i))
		}
		if genChained(i) {
			b.WriteString("  v += prev(x);\n")
		}
		b.WriteString("  return v;\n}\n")
		files[fmt.Sprintf("src/m%02d.%s", i, ext)] = b.String()
		files[fmt.Sprintf("test/m%02d.test.%s", i, ext)] = testBody(fmt.Sprintf("import { f } from '../src/m%02d%s';", i, imp), "f",
			[]int{genValue(i, 0), genValue(i, 1), genValue(i, 2), genValue(i, 3)})
	}
}

// genTS writes the TypeScript modules src/*.ts, type-checked by the
// project's tsc (tsconfig.json, node_modules/.bin/tsc: TscCheck), and
// their node:test files test/*.test.ts, which the test script runs
// through the tsx loader (`node --import tsx --test 'test/*.test.ts'`;
// node 20 runs no TypeScript by itself). Imports name files without an
// extension ('./shared' is shared.ts), as TypeScript's bundler resolution
// and tsx allow. node_modules holds TypeScript and tsx as npm installs
// them, from internal/verify/testdata/tsc (install.sh, run by
// .ci/install).
func genTS(t testing.TB, root string, work int) {
	files := map[string]string{
		"package.json":          `{"name":"proj","private":true,"type":"module","scripts":{"test":"node --import tsx --test test/*.test.ts"}}` + "\n",
		"tsconfig.json":         `{"compilerOptions":{"strict":true,"target":"es2022","module":"esnext","moduleResolution":"bundler","noEmit":true,"skipLibCheck":true},"include":["src"]}` + "\n",
		"src/shared.ts":         "export const NONCE = 0;\n\nexport function base(x: number): number {\n  return x + 1;\n}\n",
		"node_modules/.bin/tsc": "#!/bin/sh\nexec node \"$(dirname \"$0\")/../typescript/bin/tsc\" \"$@\"\n",
	}
	genESModules(files, "ts", "", ": number", work)
	nm := filepath.Join("testdata", "tsc", "node_modules")
	for _, pkg := range []string{"typescript", "tsx", "esbuild", "@esbuild"} {
		if _, err := os.Stat(filepath.Join(nm, pkg)); err != nil {
			need.Missing(t, "TypeScript and tsx are not installed (internal/verify/testdata/tsc/install.sh, run by .ci/install): %v", err)
		}
		linkTree(t, filepath.Join(nm, pkg), filepath.Join(root, "node_modules", pkg))
	}
	for rel, text := range files {
		writeFile(t, root, rel, text)
	}
	if err := os.Chmod(filepath.Join(root, "node_modules/.bin/tsc"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// genGo writes the Go module example.com/gen: packages shared and
// m00…m48, each with 4 tests.
func genGo(t testing.TB, root string, work int) {
	files := map[string]string{
		"go.mod":           "module example.com/gen\n\ngo 1.22\n",
		"shared/shared.go": "package shared\n\nconst Nonce = 0\n\nfunc Base(x int) int { return x + 1 }\n",
	}
	testBody := func(pkg, imp, call string, want []int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package %s_test\n\nimport (\n\t\"testing\"\n\n\t%q\n)\n\n", pkg, imp)
		fmt.Fprintf(&b, "func work() int {\n\ts := 0\n\tfor i := 0; i < %d; i++ {\n\t\ts += i\n\t}\n\treturn s\n}\n", work)
		for j, w := range want {
			fmt.Fprintf(&b, "\nfunc TestCase%d(t *testing.T) {\n\twork()\n\tif got := %s(%d); got != %d {\n\t\tt.Fatalf(\"got %%d, want %d\", got)\n\t}\n}\n", j, call, j, w, w)
		}
		return b.String()
	}
	files["shared/shared_test.go"] = testBody("shared", "example.com/gen/shared", "shared.Base", []int{1, 2, 3, 4})
	for i := range genModules {
		var b strings.Builder
		name := fmt.Sprintf("m%02d", i)
		fmt.Fprintf(&b, "package %s\n\n", name)
		if genImportsShared(i) {
			b.WriteString("import \"example.com/gen/shared\"\n\n")
		}
		if genChained(i) {
			fmt.Fprintf(&b, "import prev \"example.com/gen/m%02d\"\n\n", i-1)
		}
		b.WriteString("const Nonce = 0\n\nfunc F(x int) int {\n")
		if genImportsShared(i) {
			fmt.Fprintf(&b, "\tv := shared.Base(x) * %d\n", genFactor(i))
		} else {
			fmt.Fprintf(&b, "\tv := x * %d\n", genFactor(i))
		}
		if genChained(i) {
			b.WriteString("\tv += prev.F(x)\n")
		}
		b.WriteString("\treturn v\n}\n")
		files[name+"/"+name+".go"] = b.String()
		files[name+"/"+name+"_test.go"] = testBody(name, "example.com/gen/"+name, name+".F",
			[]int{genValue(i, 0), genValue(i, 1), genValue(i, 2), genValue(i, 3)})
	}
	for rel, text := range files {
		writeFile(t, root, rel, text)
	}
}

// genLang is one generated project: its writer, the detected checks, and
// where its modules live.
type genLang struct {
	name     string
	gen      func(testing.TB, string, int)
	cmds     []string
	module   func(name string) string // "shared", "m07" → its file
	nonceFmt string                   // the nonce line with %d
	// work is the loop each test of the benchmark's project runs: about
	// 25 ms of a quiet core in Python and JavaScript, what a modest real
	// test computes (a Go test's result is cached, so Go's is small).
	work int
}

var genLangs = []genLang{
	{"python", genPython, []string{"pytest -q"}, func(n string) string { return "proj/" + n + ".py" }, "NONCE = %d", 1_000_000},
	{"python-unittest", genUnittest, []string{UnittestCheck}, func(n string) string { return "proj/" + n + ".py" }, "NONCE = %d", 1_000_000},
	{"javascript", genJS, []string{"npm test"}, func(n string) string { return "src/" + n + ".js" }, "export const NONCE = %d;", 10_000_000},
	{"typescript", genTS, []string{TscCheck, "npm test"}, func(n string) string { return "src/" + n + ".ts" }, "export const NONCE = %d;", 10_000_000},
	{"go", genGo, []string{"go build ./...", "go vet ./...", "go test ./..."}, func(n string) string { return n + "/" + n + ".go" }, "const Nonce = %d", 1_000_000},
}
