package eval

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

const suite = "../../testdata/eval"

// Every task is a real task: on the repository as given, each of its
// FailToPass tests fails and each PassToPass test passes; with the
// project's own (fixed) files, all of them pass. Graded as a run grades,
// test by test from the runner's report, in the sandbox.
func TestEveryTaskFailsWithoutAFixAndPassesWithOne(t *testing.T) {
	tasks, err := Load(suite, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, task := range tasks {
		if task.Project == "" {
			t.Errorf("%s: the suite's tasks are projects with a base/ (so the fix is known)", task.Name)
			continue
		}
		if why := task.Missing(); why != "" {
			t.Errorf("%s: %s (.ci/install installs every toolchain the suite needs)", task.Name, why)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			checkTask(t, cfg, task)
		}()
	}
	wg.Wait()
}

func checkTask(t *testing.T, cfg config.Config, task Task) {
	ctx := context.Background()
	tmp := t.TempDir()
	unfixed, fixed := filepath.Join(tmp, "unfixed"), filepath.Join(tmp, "fixed")
	if err := materialize(ctx, task, unfixed); err != nil {
		t.Errorf("%s: %v", task.Name, err)
		return
	}
	if err := copyTree(filepath.Join(task.Dir, task.Project), fixed); err != nil {
		t.Errorf("%s: %v", task.Name, err)
		return
	}
	for _, dir := range []string{unfixed, fixed} {
		if err := copyTree(filepath.Join(task.Dir, "hidden"), dir); err != nil {
			t.Errorf("%s: %v", task.Name, err)
			return
		}
	}
	got, out, err := runTests(ctx, grading{cfg: cfg, dir: unfixed, layer: filepath.Join(tmp, "layer")}, task)
	if err != nil {
		t.Errorf("%s: %v", task.Name, err)
		return
	}
	for _, id := range task.FailToPass {
		if got[id] == TestPass {
			t.Errorf("%s: %s passes without a fix", task.Name, id)
		}
	}
	for _, id := range task.PassToPass {
		if got[id] != TestPass {
			t.Errorf("%s: %s (pass to pass) is %q on the repository as given:\n%s", task.Name, id, got[id], lastLines(out, 30))
		}
	}
	got, out, err = runTests(ctx, grading{cfg: cfg, dir: fixed, layer: filepath.Join(tmp, "layer2")}, task)
	if err != nil {
		t.Errorf("%s: %v", task.Name, err)
		return
	}
	if v := judge(task, got); !v.Passed {
		t.Errorf("%s: with the fix, %v do not pass:\n%s", task.Name, v.Failing, lastLines(out, 30))
	}
}

// The suite measures the model, not the loop: at least 20 tasks on
// projects of 30 source files or more (tests not counted), a third of the
// fixes touching two files or more, and no prompt naming a file the fix
// changes.
func TestSuiteShape(t *testing.T) {
	tasks, err := Load(suite, nil)
	if err != nil {
		t.Fatal(err)
	}
	multi := 0
	projects := map[string]string{} // directory → language
	for _, task := range tasks {
		projects[filepath.Join(task.Dir, task.Project)] = task.Lang
		var changed []string
		base := filepath.Join(task.Dir, "base")
		_ = filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(base, p)
				changed = append(changed, filepath.ToSlash(rel))
			}
			return nil
		})
		if len(changed) == 0 {
			t.Errorf("%s: base/ changes nothing", task.Name)
		}
		if len(changed) >= 2 {
			multi++
		}
		for _, f := range changed {
			if strings.Contains(task.Prompt, f) || strings.Contains(task.Prompt, filepath.Base(f)) {
				t.Errorf("%s: the prompt names %s", task.Name, f)
			}
		}
		if task.Read != nil {
			t.Errorf("%s: the scripted solution should find its files itself", task.Name)
		}
	}
	if len(tasks) < 20 || 3*multi < len(tasks) {
		t.Errorf("%d tasks, %d with fixes in two files or more", len(tasks), multi)
	}
	for dir, lang := range projects {
		n := 0
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			rel, _ := filepath.Rel(dir, p)
			if err == nil && !d.IsDir() && slices.Contains([]string{".go", ".py", ".js"}, filepath.Ext(p)) && !matchAny(defaultTestPatterns[lang], filepath.ToSlash(rel)) {
				n++
			}
			return nil
		})
		if n < 30 {
			t.Errorf("%s: %d source files that are not tests", dir, n)
		}
	}
	if _, err := Load(suite, []string{"no-such-task"}); err == nil || !strings.Contains(err.Error(), "no such task") {
		t.Errorf("unknown task: %v", err)
	}
}

func TestPrefixAndUsage(t *testing.T) {
	a := canonical([]byte(`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"tools":[{"x":1}]}`))
	b := canonical([]byte(`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":"a"}],"tools":[{"x":1}],"stream":true}`))
	n := commonPrefix(a, b)
	if s := share(n, len(b)); s <= 0.5 || s >= 1 {
		t.Errorf("share of b %v", s)
	}
	if k := share(n, len(a)); k != 1 {
		t.Errorf("a is all prefix of b: %v", k)
	}
	in, cached, out := usageOf([]byte("data: {\"choices\":[]}\n\ndata: {\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":7,\"prompt_tokens_details\":{\"cached_tokens\":64}}}\n\ndata: [DONE]\n"))
	if in != 100 || cached != 64 || out != 7 {
		t.Errorf("chat usage %d %d %d", in, cached, out)
	}
	in, cached, out = usageOf([]byte("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":50,\"output_tokens\":5,\"input_tokens_details\":{\"cached_tokens\":32}}}}\n"))
	if in != 50 || cached != 32 || out != 5 {
		t.Errorf("responses usage %d %d %d", in, cached, out)
	}
}

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 0.2775}, {10, 10, 0.7225, 1}, {5, 10, 0.2366, 0.7634}, {1, 2, 0.0945, 0.9055}, {0, 0, 0, 0},
	} {
		r := Wilson(c.k, c.n)
		if math.Abs(r.Lo-c.lo) > 1e-3 || math.Abs(r.Hi-c.hi) > 1e-3 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, r.Lo, r.Hi, c.lo, c.hi)
		}
	}
}

func TestCompareFlips(t *testing.T) {
	a := Report{Model: "m1", Results: []Result{{Task: "x", Passed: true}, {Task: "x", Passed: true}, {Task: "y"}, {Task: "z", Skipped: true}}}
	b := Report{Model: "m2", Results: []Result{{Task: "x"}, {Task: "x", Passed: true}, {Task: "y", Passed: true}}}
	c := Compare(a, b, "a", "b")
	if len(c.Tasks) != 2 || c.Tasks[0].Flipped != "lost" || c.Tasks[1].Flipped != "gained" {
		t.Errorf("%+v", c.Tasks)
	}
	if c.A.Rate.Passed != 2 || c.A.Rate.Runs != 3 || c.B.Rate.Passed != 2 || c.B.Rate.Runs != 3 {
		t.Errorf("totals %+v %+v", c.A.Rate, c.B.Rate)
	}
	// A side's sums and first-try rate leave the skipped runs out.
	p := Report{Polyglot: &PolyglotSummary{}, Results: []Result{{Task: "x", Passed: true, PassedOnTry: 1, InputTokens: 3, WallMs: 5}, {Task: "y", Passed: true, PassedOnTry: 2, InputTokens: 4, Cost: 0.5}, {Task: "z", Skipped: true, PassedOnTry: 1, InputTokens: 100, WallMs: 100}}}
	s := side(p, "p")
	if s.InputTokens != 7 || s.WallMs != 5 || s.Cost != 0.5 || s.Rate.Runs != 2 || s.Try1 == nil || s.Try1.Passed != 1 || s.Try1.Runs != 2 {
		t.Errorf("side %+v try1 %+v", s, s.Try1)
	}
}

func TestSortChange(t *testing.T) {
	orig := map[string][]byte{"go.mod": []byte("module m"), "a.go": []byte("a"), "a_test.go": []byte("t")}
	work := map[string][]byte{"go.mod": []byte("module m\nreplace x => y"), "a.go": []byte("A"), "b.go": []byte("b"),
		"z_test.go": []byte("TestMain"), "json.py": []byte(""), "pkg/json.py": []byte(""), "unittest/__init__.py": []byte(""), "conftest.py": []byte("")}
	c := sortChange(orig, work, defaultTestPatterns["go"], map[string]bool{"json": true, "unittest": true})
	want := Change{Applied: []string{"a.go", "b.go", "pkg/json.py"}, Dropped: []string{"a_test.go", "z_test.go"}, Restored: []string{"conftest.py", "go.mod", "json.py", "unittest/__init__.py"}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
	// Every file node --test would run on its own is a test: a model's
	// src/feed_test.js could report passes under the hidden tests' names.
	orig = map[string][]byte{"package.json": []byte(`{"scripts":{"test":"node --test"}}`), "src/feed.js": []byte("a")}
	work = map[string][]byte{"package.json": []byte(`{"scripts":{"test":"exit 0"}}`), "src/feed.js": []byte("b"),
		"src/feed_test.js": nil, "src/feed-test.mjs": nil, "src/test-feed.cjs": nil, "test.js": nil, "lib/a.test.js": nil, "test/xml.test.js": nil, "src/testing.js": nil}
	c = sortChange(orig, work, defaultTestPatterns["javascript"], nil)
	want = Change{Applied: []string{"src/feed.js", "src/testing.js"}, Dropped: []string{"lib/a.test.js", "src/feed-test.mjs", "src/feed_test.js", "src/test-feed.cjs", "test.js", "test/xml.test.js"}, Restored: []string{"package.json"}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("javascript: got %+v\nwant %+v", c, want)
	}
}

func TestRunnerReports(t *testing.T) {
	got, text := parseGoJSON(`{"Action":"run","Package":"m/a","Test":"TestX"}
{"Action":"output","Package":"m/a","Test":"TestX","Output":"--- PASS: TestX\n"}
{"Action":"pass","Package":"m/a","Test":"TestX"}
{"Action":"fail","Package":"m","Test":"TestY/sub"}
{"Action":"skip","Package":"m","Test":"TestZ"}
build failed
`, "m")
	if !reflect.DeepEqual(got, map[string]string{"a:TestX": TestPass, ".:TestY/sub": TestFail, ".:TestZ": TestSkip}) || !strings.Contains(text, "build failed") || !strings.Contains(text, "--- PASS: TestX") {
		t.Errorf("go: %v\n%s", got, text)
	}
	got = parseTAP("TAP version 13\n# Subtest: adds\nok 1 - adds\n    not ok 2 - nested one\nok 3 - later # SKIP not now\nnot ok 4 - twice\nok 5 - twice\nok 6 - nested one\n")
	if !reflect.DeepEqual(got, map[string]string{"adds": TestPass, "nested one": TestFail, "later": TestSkip, "twice": TestFail}) {
		t.Errorf("tap: %v", got)
	}
	got = parseLibtest("running 3 tests\ntest encodes ... ok\ntest tests::decodes ... FAILED\ntest slow ... ignored\n")
	if !reflect.DeepEqual(got, map[string]string{"encodes": TestPass, "tests::decodes": TestFail, "slow": TestSkip}) {
		t.Errorf("libtest: %v", got)
	}
	// Two test binaries with the same test name: the failure must stay,
	// whichever binary cargo ran last.
	got = parseLibtest("running 1 test\ntest tests::it_works ... FAILED\nrunning 1 test\ntest tests::it_works ... ok\n")
	if got["tests::it_works"] != TestFail {
		t.Errorf("libtest, a name twice: %v", got)
	}
	if allPassed(map[string]string{}) || allPassed(map[string]string{"a": TestPass, "b": TestFail}) || !allPassed(map[string]string{"a": TestPass, "b": TestSkip}) {
		t.Error("allPassed")
	}
	v := judge(Task{FailToPass: []string{"a"}, PassToPass: []string{"b"}}, map[string]string{"a": TestPass})
	if v.Passed || !reflect.DeepEqual(v.Failing, []string{"b"}) {
		t.Errorf("a test missing from the report must fail: %+v", v)
	}
}

// Any language loads; one without a runner here needs a test command; a
// task whose toolchain is missing is skipped with the reason and does not
// stop the others or count in the pass rate.
func TestAnyLanguageAndMissingToolchains(t *testing.T) {
	suite := t.TempDir()
	write := func(name, spec string) {
		if err := os.MkdirAll(filepath.Join(suite, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(suite, name, "task.json"), []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("rust-task", `{"lang": "rust", "prompt": "p", "failToPass": ["tests::x"]}`)
	write("zig-task", `{"lang": "zig", "prompt": "p", "test": "zig build test"}`)
	tasks, err := Load(suite, nil)
	if err != nil || len(tasks) != 2 {
		t.Fatalf("%v %v", tasks, err)
	}
	write("bad-task", `{"lang": "zig", "prompt": "p"}`)
	if _, err := Load(suite, nil); err == nil || !strings.Contains(err.Error(), `no test runner for "zig"`) {
		t.Errorf("a language without a runner and no test command: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if why := tasks[0].Missing(); why != "no cargo on PATH" {
		t.Errorf("missing: %q", why)
	}
	rep := Run(context.Background(), tasks[:1], Options{Binary: "/nonexistent", Scripted: true})
	if r := rep.Results[0]; !r.Skipped || !strings.Contains(r.Error, "no cargo") || rep.Total.Tasks != 0 || rep.Total.Skipped != 1 {
		t.Errorf("%+v %+v", r, rep.Total)
	}
}

func TestPolyglotProtocol(t *testing.T) {
	var ex Exercise
	ex.Lang, ex.Name = "rust", "x"
	ex.Files.Solution = []string{"src/lib.rs", "Cargo.toml"}
	ex.Files.Test = []string{"tests/x.rs"}
	if got := ex.editable(); !reflect.DeepEqual(got, []string{"src/lib.rs"}) {
		t.Errorf("editable %v", got)
	}
	got := ex.retry("test a ... FAILED\ntest result: FAILED. 1 passed; 1 failed; finished in 0.05s\n")
	if strings.Contains(got, "0.05s") || !strings.Contains(got, "test a ... FAILED") || !strings.Contains(got, "lib.rs") {
		t.Errorf("retry prompt:\n%s", got)
	}
	if b := string(disabled.ReplaceAll([]byte("  @Disabled(\"Remove to run test\")\n  @Test\n"), nil)); strings.Contains(b, "Disabled") || !strings.Contains(b, "@Test") {
		t.Errorf("java: %q", b)
	}
}

// The sealed paths cover the suite and the repository around it, never a
// repository that holds the home directory (dotfiles in git) or the
// temporary directory.
func TestSealedPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	suite := filepath.Join(home, "src", "proj", "testdata", "eval")
	if err := os.MkdirAll(suite, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", home}, {"init", "-q", filepath.Join(home, "src", "proj")}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	real := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }
	got := sealed(suite, filepath.Join(home, "bin", "agentls"), []string{"/tmp/other-task"})
	if !slices.Contains(got, real(suite)) || !slices.Contains(got, real(filepath.Join(home, "src", "proj"))) || !slices.Contains(got, "/tmp/other-task") {
		t.Errorf("sealed %v", got)
	}
	if slices.Contains(got, real(home)) {
		t.Errorf("the home directory's repository is sealed: %v", got)
	}
}

// TypeScript tasks are type-stripped, then judged test by test from
// node's TAP report.
func TestTypeScriptRunner(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"src/add.ts":   "export function add(a: number, b: number): number { return a + b; }\n",
		"add.test.ts":  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './src/add.js';\ntest('adds', () => assert.equal(add(1, 2), 3));\ntest('is wrong', () => assert.equal(add(1, 2), 4));\n",
		"package.json": `{"type": "module"}`,
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	task := Task{Lang: "ts", FailToPass: []string{"adds", "is wrong"}}
	got, out, err := runTests(context.Background(), grading{cfg: config.Defaults(), dir: dir, layer: filepath.Join(t.TempDir(), "layer")}, task)
	if err != nil {
		t.Fatal(err)
	}
	if got["adds"] != TestPass || got["is wrong"] != TestFail {
		t.Errorf("%v\n%s", got, out)
	}
}

// The Java path of the polyglot runner, graded as a run grades: the stub
// fails; a solution that passes only the first test (the one the
// exercise leaves enabled) fails too, since every @Disabled mark is
// removed; the reference solution passes, each test read from the
// launcher's report.
func TestJavaPolyglotRunner(t *testing.T) {
	exs, err := LoadPolyglot(filepath.Join(suite, "_polyglot"), []string{"java"})
	if err != nil || len(exs) != 1 {
		t.Fatalf("%v %v", exs, err)
	}
	ex := exs[0]
	if why := ex.missing(); why != "" {
		t.Fatalf("%s (.ci/install installs Java's test libraries)", why)
	}
	sol := "src/main/java/RomanNumerals.java"
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(ex.Dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	onlyOne := []byte("class RomanNumerals {\n    static String toRoman(int n) { return \"I\"; }\n    static int fromRoman(String s) { return 1; }\n}\n")
	o := Options{Config: config.Defaults()}
	for _, c := range []struct {
		name   string
		code   []byte
		passed bool
		want   []string
	}{
		{"stub", read(sol), false, []string{"one() ✘"}},
		{"first test only", onlyOne, false, []string{"one() ✔", "fourAndNine() ✘", "rejectsWhatIsNotANumeral() ✘"}},
		{"reference", read(".meta/src/reference/java/RomanNumerals.java"), true, []string{"one() ✔", "readsBack() ✔", "rejectsWhatIsNotANumeral() ✔"}},
	} {
		passed, out, err := ex.grade(context.Background(), o, filepath.Join(t.TempDir(), "grade"), map[string][]byte{sol: c.code}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if passed != c.passed {
			t.Errorf("%s: passed %v\n%s", c.name, passed, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, out)
			}
		}
	}
	got := parseJUnitTree("│  └─ T ✔\n│     ├─ a() ✔\n│     ├─ b(int) ✘ expected: <1>\n│     └─ c() ↷ off\n")
	if !reflect.DeepEqual(got, map[string]string{"a()": TestPass, "b(int)": TestFail, "c()": TestSkip}) {
		t.Errorf("tree: %v", got)
	}
	// The same method name in two classes: the failure stays.
	got = parseJUnitTree("│  ├─ A ✘\n│  │  └─ run() ✘ boom\n│  └─ B ✔\n│     └─ run() ✔\n")
	if got["run()"] != TestFail {
		t.Errorf("tree, a name twice: %v", got)
	}
}

// Code under test cannot turn node's assertions into no-ops: grading
// freezes node:assert, node:assert/strict and node:test before the tests
// load, so a module that patches them fails instead of passing the tests
// that import it.
func TestNodeAssertionsFrozen(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"package.json": `{"type": "module"}`,
		"src/add.js": "import assert from 'node:assert/strict';\nimport loose from 'node:assert';\nimport { test } from 'node:test';\n" +
			"for (const a of [assert, loose]) for (const k of Object.keys(a)) a[k] = () => {};\n" +
			"export function add(a, b) { return a - b; }\n",
		"test/add.test.js":   "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/add.js';\ntest('adds', () => assert.equal(add(1, 2), 3));\n",
		"test/other.test.js": "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\ntest('other', () => assert.deepEqual([1], [1]));\n",
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	task := Task{Lang: "javascript", FailToPass: []string{"adds"}, PassToPass: []string{"other"}}
	got, out, err := runTests(context.Background(), grading{cfg: config.Defaults(), dir: dir, layer: filepath.Join(t.TempDir(), "layer")}, task)
	if err != nil {
		t.Fatal(err)
	}
	if got["adds"] == TestPass || got["other"] != TestPass {
		t.Errorf("got %v\n%s", got, out)
	}
}
