package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testkit/need"
)

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		writeFile(t, root, rel, text)
	}
}

// scopeOf is the one detected check's scope.
func scopeOf(t *testing.T, root, cmd string, changed []string, unsaved map[string][]byte) Check {
	t.Helper()
	cs := Scope(context.Background(), ScopeInput{Root: root, Commands: []string{cmd}, Changed: changed, Unsaved: unsaved})
	if len(cs) != 1 {
		t.Fatalf("Scope = %+v", cs)
	}
	return cs[0]
}

// runOne runs one command as the gate does and returns its result.
func runOne(t *testing.T, root, cmd string, unsaved map[string][]byte) Result {
	t.Helper()
	rs, err := Run(context.Background(), RunOptions{Root: root, Commands: []string{cmd}, Unsaved: unsaved})
	if err != nil || len(rs) != 1 {
		t.Fatalf("Run(%q) = %+v, %v", cmd, rs, err)
	}
	return rs[0]
}

// pyTwoHops: tests/test_top.py → pkg.top → pkg.mid → pkg.base, and a
// test that reaches none of them.
var pyTwoHops = map[string]string{
	"pyproject.toml":       "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
	"pkg/__init__.py":      "",
	"pkg/base.py":          "def value():\n    return 1\n",
	"pkg/mid.py":           "from . import base\n\ndef twice():\n    return 2 * base.value()\n",
	"pkg/top.py":           "import pkg.mid as mid\n\ndef total():\n    return mid.twice() + 1\n",
	"pkg/other.py":         "def other():\n    return 5\n",
	"tests/test_top.py":    "from pkg.top import (\n    total,\n)\n\ndef test_total():\n    assert total() == 3\n",
	"tests/test_other.py":  "from pkg import other\n\ndef test_other():\n    assert other.other() == 5\n",
	"tests/test_base_x.py": "# import pkg.base would count too; this one imports nothing of the package\n\ndef test_nothing():\n    assert True\n",
	"README.md":            "# pkg\n",
}

// A failure two imports away from the changed module (an unsaved buffer)
// is found by the scoped pytest run, which runs only the test that reaches
// it; configuration and dynamic imports run everything.
func TestPyScopeFindsAFailureTwoImportsAway(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, pyTwoHops)
	broken := map[string][]byte{"pkg/base.py": []byte("def value():\n    return 2\n")}
	c := scopeOf(t, root, "pytest -q", []string{"pkg/base.py"}, broken)
	if c.Command != "pytest -q tests/test_top.py" || !c.Estimate {
		t.Fatalf("scope = %+v", c)
	}
	r := runOne(t, root, c.Command, broken)
	if r.Passed || !strings.Contains(r.Output, "test_total") || strings.Contains(r.Output, "test_other") {
		t.Fatalf("scoped run: passed %v\n%s", r.Passed, r.Output)
	}
	if full := runOne(t, root, "pytest -q", broken); full.Passed {
		t.Fatalf("the full run passed:\n%s", full.Output)
	}
	for _, c := range []struct {
		name    string
		changed string
		unsaved map[string][]byte
	}{
		{"conftest.py", "tests/conftest.py", map[string][]byte{"tests/conftest.py": []byte("")}},
		{"pyproject.toml", "pyproject.toml", nil},
		{"a fixture", "tests/fixtures/data.json", nil},
		{"a data file", "pkg/table.csv", nil},
		{"a dynamic import", "pkg/base.py", map[string][]byte{"pkg/other.py": []byte("import importlib\nm = importlib.import_module('pkg.base')\n")}},
	} {
		if got := scopeOf(t, root, "pytest -q", []string{c.changed}, c.unsaved); got.Command != "pytest -q" {
			t.Errorf("%s: scope = %+v, want the whole run", c.name, got)
		}
	}
	// A change to documentation reaches no test.
	if got := scopeOf(t, root, "pytest -q", []string{"README.md"}, nil); got.Command != "" {
		t.Errorf("README.md: scope = %+v", got)
	}
	// A test file whose name starts with a dash is a path, not an option.
	writeFile(t, root, "-k_test.py", "from pkg.mid import twice\n\ndef test_k():\n    assert twice() == 2\n")
	c = scopeOf(t, root, "pytest -q", []string{"pkg/base.py"}, broken)
	if c.Command != "pytest -q ./-k_test.py tests/test_top.py" {
		t.Fatalf("scope = %+v", c)
	}
	if r := runOne(t, root, c.Command, broken); r.Passed || !strings.Contains(r.Output, "2 failed") {
		t.Fatalf("scoped run: passed %v\n%s", r.Passed, r.Output)
	}
}

// utTwoHops: pyTwoHops as a unittest project: no pytest configuration,
// tests/ a package of unittest.TestCase modules.
var utTwoHops = map[string]string{
	"pkg/__init__.py":     "",
	"pkg/base.py":         "def value():\n    return 1\n",
	"pkg/mid.py":          "from . import base\n\ndef twice():\n    return 2 * base.value()\n",
	"pkg/top.py":          "import pkg.mid as mid\n\ndef total():\n    return mid.twice() + 1\n",
	"pkg/other.py":        "def other():\n    return 5\n",
	"tests/__init__.py":   "",
	"tests/test_top.py":   "import unittest\nfrom pkg.top import (\n    total,\n)\n\nclass T(unittest.TestCase):\n    def test_total(self):\n        self.assertEqual(total(), 3)\n",
	"tests/test_other.py": "import unittest\nfrom pkg import other\n\nclass T(unittest.TestCase):\n    def test_other(self):\n        self.assertEqual(other.other(), 5)\n",
	// Not a package: discovery never loads it, so no scope selects it.
	"scripts/test_stray.py": "import unittest\nfrom pkg import base\n\nclass T(unittest.TestCase):\n    def test_stray(self):\n        self.fail()\n",
	// A package named like a build directory is still one discovery
	// enters; a virtual environment is not.
	"build/__init__.py":     "",
	"build/test_built.py":   "import unittest\nfrom pkg.base import value\n\nclass T(unittest.TestCase):\n    def test_built(self):\n        self.assertEqual(value(), 1)\n",
	".venv/lib/importer.py": "import importlib\n",
	"README.md":             "# pkg\n",
}

// The same for `python3 -m unittest`: detected for a project of unittest
// tests and no pytest configuration, narrowed to the test module two
// imports from the change, run by name; configuration, a package
// discovery imports, load_tests and dynamic imports run everything.
func TestUnittestScopeFindsAFailureTwoImportsAway(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, utTwoHops)
	if got := Detect(root); len(got) != 1 || got[0] != UnittestCheck {
		t.Fatalf("Detect = %q", got)
	}
	if full := runOne(t, root, UnittestCheck, nil); !full.Passed || !strings.Contains(full.Output, "Ran 3 tests") {
		t.Fatalf("the full run on the unchanged project: passed %v\n%s", full.Passed, full.Output)
	}
	broken := map[string][]byte{"pkg/base.py": []byte("def value():\n    return 2\n")}
	c := scopeOf(t, root, UnittestCheck, []string{"pkg/base.py"}, broken)
	if c.Command != "python3 -m unittest build.test_built tests.test_top" || !c.Estimate {
		t.Fatalf("scope = %+v", c)
	}
	r := runOne(t, root, c.Command, broken)
	if r.Passed || !strings.Contains(r.Output, "test_total") || !strings.Contains(r.Output, "test_built") || !strings.Contains(r.Output, "Ran 2 tests") {
		t.Fatalf("scoped run: passed %v\n%s", r.Passed, r.Output)
	}
	if full := runOne(t, root, UnittestCheck, broken); full.Passed {
		t.Fatalf("the full run passed:\n%s", full.Output)
	}
	// Options are kept; discover goes, since modules are named.
	if c := scopeOf(t, root, "python -m unittest discover -v", []string{"pkg/base.py"}, broken); c.Command != "python -m unittest -v build.test_built tests.test_top" {
		t.Errorf("discover -v: scope = %+v", c)
	}
	for _, c := range []struct {
		name, cmd, changed string
		unsaved            map[string][]byte
	}{
		{"setup.py", UnittestCheck, "setup.py", nil},
		{"a data file", UnittestCheck, "pkg/table.csv", nil},
		{"a package discovery imports", UnittestCheck, "pkg/__init__.py", map[string][]byte{"pkg/__init__.py": []byte("x = 1\n")}},
		{"a module such a package imports", UnittestCheck, "pkg/other.py", map[string][]byte{"pkg/__init__.py": []byte("from . import other\n")}},
		{"load_tests", UnittestCheck, "pkg/base.py", map[string][]byte{"tests/__init__.py": []byte("def load_tests(loader, tests, pattern):\n    return tests\n")}},
		{"a dynamic import", UnittestCheck, "pkg/base.py", map[string][]byte{"pkg/other.py": []byte("import importlib\nm = importlib.import_module('pkg.base')\n")}},
		{"another start directory", "python3 -m unittest discover -s tests", "pkg/base.py", nil},
		{"a pattern", "python3 -m unittest discover -p '*_test.py'", "pkg/base.py", nil},
	} {
		if got := scopeOf(t, root, c.cmd, []string{c.changed}, c.unsaved); got.Command != c.cmd {
			t.Errorf("%s: scope = %+v, want the whole run", c.name, got)
		}
	}
	if got := scopeOf(t, root, UnittestCheck, []string{"README.md"}, nil); got.Command != "" {
		t.Errorf("README.md: scope = %+v", got)
	}
	// A project of pytest-style tests without configuration is no
	// unittest project: unittest would run none of its tests.
	plain := t.TempDir()
	writeTree(t, plain, map[string]string{"test_a.py": "def test_a():\n    assert True\n"})
	if got := Detect(plain); len(got) != 0 {
		t.Errorf("Detect of pytest-style tests = %q", got)
	}
}

var jsTwoHops = map[string]string{
	"package.json":          `{"name":"p","type":"module","scripts":{"test":"node --test"}}`,
	"src/base.js":           "export const value = () => 1;\n",
	"src/mid.js":            "export { value } from './base.js';\nimport { value } from './base.js';\nexport const twice = () => 2 * value();\n",
	"src/top.cjs":           "const mid = require('./mid.js');\nmodule.exports = { total: () => 3 };\n",
	"src/top.js":            "import { twice } from './mid.js';\nexport const total = () => twice() + 1;\n",
	"src/other.js":          "export const other = () => 5;\n",
	"test/top.test.js":      "import test from 'node:test';\nimport assert from 'node:assert';\nimport { total } from '../src/top.js';\ntest('total', () => assert.equal(total(), 3));\n",
	"test/other.test.js":    "import test from 'node:test';\nimport assert from 'node:assert';\nimport { other } from '../src/other.js';\ntest('other', () => assert.equal(other(), 5));\n",
	"lib/helper_test.js":    "import test from 'node:test';\ntest('nothing', () => {});\n",
	"node_modules/x/x.js":   "export const x = 1;\n",
	"node_modules/x/x.test": "not a test\n",
}

// The same for node's own test runner through the JS import graph.
func TestJSScopeFindsAFailureTwoImportsAway(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		need.Missing(t, "node is needed: .ci/install installs it")
	}
	root := t.TempDir()
	writeTree(t, root, jsTwoHops)
	broken := map[string][]byte{"src/base.js": []byte("export const value = () => 2;\n")}
	c := scopeOf(t, root, "npm test", []string{"src/base.js"}, broken)
	if c.Command != "node --test test/top.test.js" || !c.Estimate {
		t.Fatalf("scope = %+v", c)
	}
	r := runOne(t, root, c.Command, broken)
	if r.Passed || !strings.Contains(r.Output, "total") {
		t.Fatalf("scoped run: passed %v\n%s", r.Passed, r.Output)
	}
	for _, c := range []struct {
		name    string
		changed string
		unsaved map[string][]byte
	}{
		{"package.json", "package.json", nil},
		{"tsconfig.json", "tsconfig.json", nil},
		{"a data file", "test/fixtures/data.txt", nil},
		{"a computed require", "src/base.js", map[string][]byte{"src/other.js": []byte("const m = require(name);\n")}},
		{"a subpath import", "src/base.js", map[string][]byte{"src/other.js": []byte("import x from '#base';\n")}},
	} {
		if got := scopeOf(t, root, "npm test", []string{c.changed}, c.unsaved); got.Command != "npm test" {
			t.Errorf("%s: scope = %+v, want the whole run", c.name, got)
		}
	}
	// jest and vitest follow the imports themselves.
	for script, want := range map[string]string{
		"jest":                 "npm test -- --findRelatedTests --passWithNoTests src/base.js",
		"vitest run":           "npx --no-install vitest related --run --passWithNoTests src/base.js",
		"mocha":                "npm test",
		"jest && eslint":       "npm test",
		`jest","pretest":"tsc`: "npm test",
	} {
		writeFile(t, root, "package.json", `{"scripts":{"test":"`+script+`"}}`)
		if got := scopeOf(t, root, "npm test", []string{"src/base.js"}, nil); got.Command != want {
			t.Errorf("%q: scope %q, want %q", script, got.Command, want)
		}
	}
}

// TypeScript under node's runner through the tsx loader: the script's
// options are kept, the test files it names (a pattern the shell expands)
// are the candidates, and './mid' resolves to mid.ts.
func TestJSScopeTypeScriptTestsThroughTsx(t *testing.T) {
	root := t.TempDir()
	script := "node --import tsx --test test/*.test.ts"
	writeTree(t, root, map[string]string{
		"package.json":       `{"name":"p","private":true,"type":"module","scripts":{"test":"` + script + `"}}`,
		"src/base.ts":        "export const value = (): number => 1;\n",
		"src/mid.ts":         "import { value } from './base';\nexport const twice = (): number => 2 * value();\n",
		"src/top.ts":         "import { twice } from './mid';\nexport const total = (): number => twice() + 1;\n",
		"src/other.ts":       "export const other = (): number => 5;\n",
		"test/top.test.ts":   "import test from 'node:test';\nimport assert from 'node:assert';\nimport { total } from '../src/top';\ntest('total', () => assert.equal(total(), 3));\n",
		"test/other.test.ts": "import test from 'node:test';\nimport assert from 'node:assert';\nimport { other } from '../src/other';\ntest('other', () => assert.equal(other(), 5));\n",
		"test/helper.ts":     "import { total } from '../src/top';\nexport const h = total;\n",
	})
	nm := filepath.Join("testdata", "tsc", "node_modules")
	for _, pkg := range []string{"tsx", "esbuild", "@esbuild"} {
		if _, err := os.Stat(filepath.Join(nm, pkg)); err != nil {
			need.Missing(t, "tsx is not installed (internal/verify/testdata/tsc/install.sh, run by .ci/install): %v", err)
		}
		linkTree(t, filepath.Join(nm, pkg), filepath.Join(root, "node_modules", pkg))
	}
	broken := map[string][]byte{"src/base.ts": []byte("export const value = (): number => 2;\n")}
	c := scopeOf(t, root, "npm test", []string{"src/base.ts"}, broken)
	if c.Command != "node --import tsx --test test/top.test.ts" || !c.Estimate {
		t.Fatalf("scope = %+v", c)
	}
	r := runOne(t, root, c.Command, broken)
	if r.Passed || !strings.Contains(r.Output, "total") || strings.Contains(r.Output, "other") {
		t.Fatalf("scoped run: passed %v\n%s", r.Passed, r.Output)
	}
	if full := runOne(t, root, "npm test", broken); full.Passed {
		t.Fatalf("the full run passed:\n%s", full.Output)
	}
	if c := scopeOf(t, root, "npm test", []string{"src/other.ts"}, nil); c.Command != "node --import tsx --test test/other.test.ts" {
		t.Errorf("other.ts: scope = %+v", c)
	}
	for s, want := range map[string]string{
		"node --import tsx --test test/top.test.ts test/other.test.ts": "node --import tsx --test test/top.test.ts",
		"node --test --import=tsx test/*.test.ts":                      "node --test --import=tsx test/top.test.ts",
		"node --import tsx --test test/*.spec.ts":                      "npm test", // matches nothing: node fails on the word
		"node --import tsx --test test/":                               "npm test", // a directory
		"node --import tsx --test --test-shard=1/2 test/*.test.ts":     "npm test",
		"node --import $(echo tsx) --test test/*.test.ts":              "npm test",
		"node --import tsx --test test/*.test.ts; rm -rf x":            "npm test",
		"node --import tsx test/*.test.ts":                             "npm test", // no --test
	} {
		writeFile(t, root, "package.json", `{"type":"module","scripts":{"test":"`+s+`"}}`)
		if got := scopeOf(t, root, "npm test", []string{"src/base.ts"}, nil); got.Command != want {
			t.Errorf("%q: scope %q, want %q", s, got.Command, want)
		}
	}
}

// Cargo: a crate two dependencies away from the changed one is tested; a
// member the change does not reach is not; a manifest runs everything.
func TestRustScopeFindsAFailureTwoCratesAway(t *testing.T) {
	if _, err := exec.LookPath("cargo"); err != nil {
		need.Missing(t, "cargo is needed: .ci/install installs it")
	}
	if ok, why := proc.Available(); !ok {
		t.Fatalf("the sandbox `cargo metadata` runs in is not available: %s", why)
	}
	root := t.TempDir()
	crate := func(name, deps, src string) {
		writeFile(t, root, name+"/Cargo.toml", "[package]\nname = \""+name+"\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"+deps)
		writeFile(t, root, name+"/src/lib.rs", src)
	}
	writeFile(t, root, "Cargo.toml", "[workspace]\nmembers = [\"a\", \"b\", \"c\", \"d\"]\nresolver = \"2\"\n")
	crate("c", "", "pub fn value() -> i32 { 1 }\n")
	crate("b", "c = { path = \"../c\" }\n", "pub fn twice() -> i32 { 2 * c::value() }\n")
	crate("a", "b = { path = \"../b\" }\n", "pub fn total() -> i32 { b::twice() + 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn total() { assert_eq!(super::total(), 3); }\n}\n")
	crate("d", "", "pub fn other() -> i32 { 5 }\n")
	// Cargo's build directory is there, as after any earlier build (the
	// checks' view shows it as on disk).
	writeFile(t, root, "target/.keep", "")
	in := ScopeInput{Root: root, Commands: []string{"cargo test"}, Changed: []string{"c/src/lib.rs"},
		Unsaved: map[string][]byte{"c/src/lib.rs": []byte("pub fn value() -> i32 { 2 }\n")}}
	cs := Scope(context.Background(), in)
	if cs[0].Command != "cargo test -p a -p b -p c" || cs[0].Estimate {
		t.Fatalf("scope = %+v", cs[0])
	}
	r := runOne(t, root, cs[0].Command, in.Unsaved)
	if r.Passed || !strings.Contains(r.Output, "tests::total") {
		t.Fatalf("scoped run: passed %v\n%s", r.Passed, r.Output)
	}
	in.Changed = []string{"d/src/lib.rs"}
	if cs := Scope(context.Background(), in); cs[0].Command != "cargo test -p d" {
		t.Fatalf("scope of d = %+v", cs[0])
	}
	in.Changed = []string{"b/Cargo.toml"}
	if cs := Scope(context.Background(), in); cs[0].Command != "cargo test" {
		t.Fatalf("scope of a manifest = %+v", cs[0])
	}
}

// The detected TypeScript check: tsc, incremental, finds a type error two
// imports away from an unsaved change, and keeps its build information
// under node_modules for the next run.
func TestTscCheckFindsATypeErrorTwoImportsAway(t *testing.T) {
	src := filepath.Join("testdata", "tsc", "node_modules", "typescript")
	if _, err := os.Stat(filepath.Join(src, "bin", "tsc")); err != nil {
		need.Missing(t, "TypeScript is not installed (internal/verify/testdata/tsc/install.sh, run by .ci/install): %v", err)
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"package.json":          `{"name":"p","private":true,"scripts":{"test":"node --test"}}`,
		"tsconfig.json":         `{"compilerOptions":{"strict":true,"target":"es2022","module":"esnext","moduleResolution":"bundler"},"include":["src"]}`,
		"src/base.ts":           "export function value(): number {\n  return 1;\n}\n",
		"src/mid.ts":            "import { value } from './base';\n\nexport const twice = () => value();\n",
		"src/top.ts":            "import { twice } from './mid';\n\nexport const total: number = twice() + 1;\n",
		"node_modules/.bin/tsc": "#!/bin/sh\nexec node \"$(dirname \"$0\")/../typescript/bin/tsc\" \"$@\"\n",
	})
	// The compiler lies in the project, as npm installs it: a sandboxed
	// check reads nothing of the test's tree outside the workspace.
	linkTree(t, src, filepath.Join(root, "node_modules", "typescript"))
	if err := os.Chmod(filepath.Join(root, "node_modules/.bin/tsc"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmds := DetectWith(root, nil)
	if len(cmds) != 2 || cmds[0] != TscCheck {
		t.Fatalf("Detect = %q", cmds)
	}
	if r := runOne(t, root, TscCheck, nil); !r.Passed {
		t.Fatalf("tsc failed on the unchanged project:\n%s", r.Output)
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules/.cache/agentls/tsc.tsbuildinfo")); err != nil {
		t.Fatalf("no build information kept for the next run: %v", err)
	}
	broken := map[string][]byte{"src/base.ts": []byte("export function value(): string {\n  return 'one';\n}\n")}
	r := runOne(t, root, TscCheck, broken)
	if r.Passed || len(r.Diagnostics) == 0 || !strings.HasSuffix(r.Diagnostics[0].Path, filepath.Join("src", "top.ts")) {
		t.Fatalf("passed %v, %+v\n%s", r.Passed, r.Diagnostics, r.Output)
	}
}

// linkTree makes dst a copy of src, hard-linking each file where it can.
func linkTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if os.Link(p, to) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
