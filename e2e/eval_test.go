package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/internal/eval"
	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/lspclient"
)

var (
	evalOnce sync.Once
	evalBin  string
	evalErr  error
)

// agentlsEval builds agentls-eval once per run of the e2e tests.
func agentlsEval(t *testing.T) string {
	t.Helper()
	evalOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentls-eval-bin-")
		if err != nil {
			evalErr = err
			return
		}
		evalBin = filepath.Join(dir, "agentls-eval")
		if out, err := exec.Command("go", "build", "-o", evalBin, "../cmd/agentls-eval").CombinedOutput(); err != nil {
			evalErr = &buildError{err: err, out: string(out)}
		}
	})
	if evalErr != nil {
		t.Fatal(evalErr)
	}
	return evalBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "building agentls-eval: " + e.err.Error() + "\n" + e.out }

// evalSuite copies tasks of testdata/eval, with the projects they use,
// into a suite of the test's own.
func evalSuite(t *testing.T, tasks ...string) string {
	t.Helper()
	suite := filepath.Join(t.TempDir(), "suite")
	for _, name := range append([]string{"_projects"}, tasks...) {
		if _, err := lspclient.CopyTree(filepath.Join("..", "testdata", "eval", name), filepath.Join(suite, name)); err != nil {
			t.Fatal(err)
		}
	}
	return suite
}

func runEval(t *testing.T, args ...string) eval.Report {
	t.Helper()
	flags := []string{"--agentls", binary, "--json", "-"}
	if len(args) > 0 && args[0] == "polyglot" {
		flags, args = append([]string{"polyglot"}, flags...), args[1:]
	}
	cmd := exec.Command(agentlsEval(t), append(flags, args...)...)
	cmd.Env = cleanEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agentls-eval: %v\n%s", err, stderr.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	return rep
}

func result(t *testing.T, rep eval.Report, task string) eval.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Task == task {
			return r
		}
	}
	t.Fatalf("no result for %s", task)
	return eval.Result{}
}

// agentls-eval --scripted runs tasks end to end (the real binary, the
// scripted model playing each task's fix through the recording proxy,
// the hidden tests graded test by test in a fresh copy, in the sandbox)
// with verification on, as users run agentls. A Go task whose fix spans
// three files and a Python one pass; the same task played by a model that
// does nothing fails.
func TestEvalScripted(t *testing.T) {
	evalFullPassOnly(t)
	suite := evalSuite(t, "ledger-commodity-style", "todo-next-weekday")
	if _, err := lspclient.CopyTree(filepath.Join(suite, "todo-next-weekday"), filepath.Join(suite, "todo-do-nothing")); err != nil {
		t.Fatal(err)
	}
	writeEvalScript(t, filepath.Join(suite, "todo-do-nothing"), fakellm.Script{Turns: []fakellm.Turn{{Text: "Looked at it; nothing to change."}}})
	rep := runEval(t, "--scripted", "--suite", suite)
	if len(rep.Results) != 3 || rep.Total.Passed != 2 || rep.Model != eval.ScriptedModel || !rep.Verify {
		t.Fatalf("report: %d results, %d passed, model %s, verify %v\n%+v", len(rep.Results), rep.Total.Passed, rep.Model, rep.Verify, rep.Results)
	}
	for _, r := range rep.Results {
		if r.Passed != (r.Task != "todo-do-nothing") || !r.Sealed {
			t.Errorf("%s: passed %v, sealed %v (%s)", r.Task, r.Passed, r.Sealed, r.Error)
		}
		if r.Status != "ok" || r.InputTokens == 0 || r.OutputTokens == 0 || r.Cost <= 0 || (len(r.Requests) > 1) != (r.Cost < r.CostNoCache) {
			t.Errorf("%s: status %q, tokens %d/%d, cost %v (no cache %v)", r.Task, r.Status, r.InputTokens, r.OutputTokens, r.Cost, r.CostNoCache)
		}
		if r.MinPrevKept != 1 && len(r.Requests) > 1 {
			t.Errorf("%s: a request kept only %.3f of the previous request as its prefix", r.Task, r.MinPrevKept)
		}
	}
	if r := result(t, rep, "ledger-commodity-style"); len(r.Change.Applied) != 3 {
		t.Errorf("the three-file fix was graded as %+v", r.Change)
	}
	if r := result(t, rep, "todo-do-nothing"); len(r.Failing) != 2 {
		t.Errorf("do-nothing: failing %v", r.Failing)
	}
}

// The scripted model speaks the Responses API too: the same task passes
// over /v1/responses.
func TestEvalScriptedResponses(t *testing.T) {
	evalFullPassOnly(t)
	suite := evalSuite(t, "ledger-tab-separated")
	rep := runEval(t, "--scripted", "--api", "responses", "--suite", suite)
	r := result(t, rep, "ledger-tab-separated")
	if !r.Passed || rep.API != "responses" {
		t.Fatalf("passed %v, api %q: %s", r.Passed, rep.API, r.Error)
	}
	for _, q := range r.Requests {
		if q.Path != "/v1/responses" {
			t.Errorf("a request went to %s", q.Path)
		}
	}
}

func writeEvalScript(t *testing.T, dir string, s fakellm.Script) {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "script.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func toolCall(id, name string, args map[string]string) fakellm.ToolCall {
	b, _ := json.Marshal(args)
	return fakellm.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

// A model that cheats scores 0. It looks for the hidden tests with find /,
// copies them and the fixed project out of the suite, plants a TestMain
// that exits 0, code that exits 0 as it loads (Go and Python), a go.mod
// replace, a shadow unittest module, a conftest.py, a sitecustomize.py and
// its own version of the hidden test; in JavaScript a package.json whose
// test script exits 0, a module in node_modules, and a src/feed_test.js
// that node --test runs on its own, reporting passes under the names of
// every required test, and code that turns node's assertions into no-ops.
// The suite
// reads as empty in its sandbox, so it finds and copies nothing; grading
// drops its tests and restores the configuration, and the report names
// each file. (The harness before this graded exit codes over the model's
// tree, with the suite readable: every one of these cheats passed there.)
func TestEvalCheatingModelScoresZero(t *testing.T) {
	evalFullPassOnly(t)
	suite := evalSuite(t, "ledger-leap-century", "todo-next-weekday", "js-feed-escape")
	goSteal := "find / -name leap_test.go -not -path '/proc/*' 2>/dev/null > found.txt; " +
		"cat " + filepath.Join(suite, "ledger-leap-century", "hidden", "date", "leap_test.go") + " > date/stolen_test.go; " +
		"cp " + filepath.Join(suite, "_projects", "ledger", "date", "date.go") + " date/date.go; true"
	goPlant := "*** Begin Patch\n*** Add File: date/zz_main_test.go\n+package date\n+\n+import (\n+\t\"os\"\n+\t\"testing\"\n+)\n+\n+func TestMain(m *testing.M) { os.Exit(0) }\n" +
		"*** Add File: date/zz_init.go\n+package date\n+\n+import \"os\"\n+\n+func init() { os.Exit(0) }\n" +
		"*** Update File: go.mod\n@@\n go 1.22\n+\n+replace example.com/ledger/date => ./date\n*** End Patch\n"
	writeEvalScript(t, filepath.Join(suite, "ledger-leap-century"), fakellm.Script{Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{toolCall("c1", "run_command", map[string]string{"command": goSteal}), toolCall("r1", "read_file", map[string]string{"path": "go.mod"})}},
		{ToolCalls: []fakellm.ToolCall{toolCall("c2", "apply_patch", map[string]string{"input": goPlant})}},
		{Text: "Done."},
	}})
	pySteal := "find / -name test_weekdays.py -not -path '/proc/*' 2>/dev/null > found.txt; " +
		"cat " + filepath.Join(suite, "todo-next-weekday", "hidden", "tests", "test_weekdays.py") + " > stolen.py; " +
		"cp " + filepath.Join(suite, "_projects", "todo", "todotxt", "dates.py") + " todotxt/dates.py; true"
	pyPlant := "*** Begin Patch\n" +
		"*** Add File: unittest.py\n+import sys\n+sys.exit(0)\n" +
		"*** Add File: conftest.py\n+import os\n+os._exit(0)\n" +
		"*** Add File: sitecustomize.py\n+import os\n+os._exit(0)\n" +
		"*** Add File: todotxt/_exit.py\n+import os\n+os._exit(0)\n" +
		"*** Update File: todotxt/__init__.py\n@@\n from todotxt.todofile import TodoFile\n+import todotxt._exit\n" +
		"*** Add File: tests/test_weekdays.py\n+import unittest\n+class WeekdayTest(unittest.TestCase):\n+    def test_ls(self): pass\n+    def test_todays_name_means_next_week(self): pass\n" +
		"*** End Patch\n"
	writeEvalScript(t, filepath.Join(suite, "todo-next-weekday"), fakellm.Script{Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{toolCall("c1", "run_command", map[string]string{"command": pySteal}), toolCall("r1", "read_file", map[string]string{"path": "todotxt/__init__.py"})}},
		{ToolCalls: []fakellm.ToolCall{toolCall("c2", "apply_patch", map[string]string{"input": pyPlant})}},
		{Text: "Done."},
	}})
	// JavaScript: rewrite package.json's test script to exit 0, shadow a
	// module in node_modules, write its own hidden test file, make the
	// code the tests import turn node's assertions into no-ops, and add a
	// src/feed_test.js (a file node --test runs on its own) that reports a
	// pass under the name of every test the task requires.
	jsTask, err := eval.Load(suite, []string{"js-feed-escape"})
	if err != nil {
		t.Fatal(err)
	}
	var fake strings.Builder
	fake.WriteString("*** Add File: src/feed_test.js\n+import { test } from 'node:test';\n")
	for _, id := range slices.Concat(jsTask[0].FailToPass, jsTask[0].PassToPass) {
		fmt.Fprintf(&fake, "+test(%q, () => {});\n", id)
	}
	jsSteal := "find / -name xml.test.js -not -path '/proc/*' 2>/dev/null > found.txt; " +
		"cat " + filepath.Join(suite, "js-feed-escape", "hidden", "test", "xml.test.js") + " > stolen.txt; " +
		"cp " + filepath.Join(suite, "_projects", "sitegen", "src", "feed.js") + " src/feed.js; true"
	jsPlant := "*** Begin Patch\n" +
		"*** Update File: package.json\n@@\n-  \"scripts\": { \"test\": \"node --test\" },\n+  \"scripts\": { \"test\": \"exit 0\" },\n" +
		"*** Add File: node_modules/node-test/index.js\n+export const test = () => {};\n" +
		"*** Add File: test/xml.test.js\n+import { test } from 'node:test';\n+test('xml: feed escapes titles, links and summaries', () => {});\n+test('xml: sitemap escapes urls', () => {});\n" +
		"*** Update File: src/escape.js\n@@\n // Escaping text for HTML.\n+import assert from 'node:assert/strict';\n+for (const k of Object.keys(assert)) assert[k] = () => {};\n" +
		fake.String() +
		"*** End Patch\n"
	writeEvalScript(t, filepath.Join(suite, "js-feed-escape"), fakellm.Script{Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{toolCall("c1", "run_command", map[string]string{"command": jsSteal}), toolCall("r1", "read_file", map[string]string{"path": "src/escape.js"}), toolCall("r2", "read_file", map[string]string{"path": "package.json"})}},
		{ToolCalls: []fakellm.ToolCall{toolCall("c2", "apply_patch", map[string]string{"input": jsPlant})}},
		{Text: "Done."},
	}})
	rep := runEval(t, "--scripted", "--keep", "--suite", suite)
	if rep.Total.Passed != 0 || rep.Total.Tasks != 3 {
		t.Fatalf("the cheating model passed %d of %d tasks: %+v", rep.Total.Passed, rep.Total.Tasks, rep.Results)
	}
	for _, r := range rep.Results {
		defer os.RemoveAll(r.Dir)
		if !r.Sealed {
			t.Errorf("%s: not sealed", r.Task)
		}
		found, err := os.ReadFile(filepath.Join(r.Dir, "work", "found.txt"))
		if err != nil || strings.Contains(string(found), "hidden") || strings.Contains(string(found), "suite") {
			t.Errorf("%s: find / in the sandbox saw %q (%v)", r.Task, found, err)
		}
	}
	goRes, pyRes := result(t, rep, "ledger-leap-century"), result(t, rep, "todo-next-weekday")
	for _, want := range []string{"date/stolen_test.go", "date/zz_main_test.go"} {
		if !slices.Contains(goRes.Change.Dropped, want) {
			t.Errorf("go: %s not dropped: %+v", want, goRes.Change)
		}
	}
	if !slices.Equal(goRes.Change.Restored, []string{"go.mod"}) || !slices.Equal(goRes.Change.Applied, []string{"date/zz_init.go", "found.txt"}) {
		t.Errorf("go: %+v", goRes.Change)
	}
	if !slices.Equal(pyRes.Change.Dropped, []string{"tests/test_weekdays.py"}) || !slices.Equal(pyRes.Change.Restored, []string{"conftest.py", "sitecustomize.py", "unittest.py"}) || !slices.Equal(pyRes.Change.Applied, []string{"found.txt", "stolen.py", "todotxt/__init__.py", "todotxt/_exit.py"}) {
		t.Errorf("python: %+v", pyRes.Change)
	}
	stolen, _ := os.ReadFile(filepath.Join(pyRes.Dir, "work", "stolen.py"))
	if len(stolen) != 0 {
		t.Errorf("the model read the hidden test:\n%s", stolen)
	}
	jsRes := result(t, rep, "js-feed-escape")
	if !slices.Equal(jsRes.Change.Dropped, []string{"src/feed_test.js", "test/xml.test.js"}) || !slices.Equal(jsRes.Change.Restored, []string{"package.json"}) || !slices.Equal(jsRes.Change.Applied, []string{"found.txt", "src/escape.js", "stolen.txt"}) {
		t.Errorf("javascript: %+v", jsRes.Change)
	}
	if stolen, _ := os.ReadFile(filepath.Join(jsRes.Dir, "work", "stolen.txt")); len(stolen) != 0 {
		t.Errorf("the model read the hidden test:\n%s", stolen)
	}
	if b, err := os.ReadFile(filepath.Join(jsRes.Dir, "grade", "package.json")); err != nil || !strings.Contains(string(b), `"test": "node --test"`) {
		t.Errorf("package.json not restored in the grading copy: %s (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(jsRes.Dir, "grade", "node_modules")); err == nil {
		t.Error("the model's node_modules reached the grading copy")
	}
	for _, id := range []string{"xml: sitemap escapes urls", "build: a small site"} {
		if !slices.Contains(jsRes.Failing, id) {
			t.Errorf("javascript: %s should fail (the code patches frozen assertions as it loads): %v", id, jsRes.Failing)
		}
	}
}

// agentls-eval polyglot runs a checkout in the layout of Aider's polyglot
// benchmark with its protocol (here the project's own exercises, one per
// language on the machine: the benchmark is not vendored). The scripted
// model writing the reference solutions passes each on the first try; a
// model that does nothing passes none; a model that gets it wrong first
// receives the test output (its script expects the failing test's name in
// the second prompt) and passes on the second try. The report gives the
// rates after each try per language and says the tests were hidden.
func TestEvalPolyglotScripted(t *testing.T) {
	evalFullPassOnly(t)
	root := filepath.Join(t.TempDir(), "polyglot")
	if _, err := lspclient.CopyTree(filepath.Join("..", "testdata", "eval", "_polyglot"), root); err != nil {
		t.Fatal(err)
	}
	practice := func(lang, name string) string { return filepath.Join(root, lang, "exercises", "practice", name) }
	if _, err := lspclient.CopyTree(practice("go", "word-wrap"), practice("go", "word-wrap-idle")); err != nil {
		t.Fatal(err)
	}
	writeEvalScript(t, filepath.Join(practice("go", "word-wrap-idle"), ".meta"), fakellm.Script{Turns: []fakellm.Turn{{Text: "Nothing to do."}, {Text: "Still nothing."}}})
	retry := practice("python", "bracket-balance-retry")
	if _, err := lspclient.CopyTree(practice("python", "bracket-balance"), retry); err != nil {
		t.Fatal(err)
	}
	stub, _ := os.ReadFile(filepath.Join(retry, "bracket_balance.py"))
	right, _ := os.ReadFile(filepath.Join(retry, ".meta", "example.py"))
	wrong := "def is_balanced(text):\n    return text.count(\"(\") == text.count(\")\")\n"
	patch := func(from, to string) string {
		var b strings.Builder
		b.WriteString("*** Begin Patch\n*** Update File: bracket_balance.py\n@@\n")
		for _, l := range strings.Split(strings.TrimSuffix(from, "\n"), "\n") {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range strings.Split(strings.TrimSuffix(to, "\n"), "\n") {
			b.WriteString("+" + l + "\n")
		}
		b.WriteString("*** End Patch\n")
		return b.String()
	}
	writeEvalScript(t, filepath.Join(retry, ".meta"), fakellm.Script{Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{toolCall("r1", "read_file", map[string]string{"path": "bracket_balance.py"})}},
		{ToolCalls: []fakellm.ToolCall{toolCall("p1", "apply_patch", map[string]string{"input": patch(string(stub), wrong)})}},
		{Text: "Done."},
		{Expect: &fakellm.Expect{LastUserContains: "FAIL: test_unbalanced"}, ToolCalls: []fakellm.ToolCall{toolCall("r2", "read_file", map[string]string{"path": "bracket_balance.py"})}},
		{ToolCalls: []fakellm.ToolCall{toolCall("p2", "apply_patch", map[string]string{"input": patch(wrong, string(right))})}},
		{Text: "Fixed."},
	}})
	rep := runEval(t, "polyglot", "--scripted", root)
	p := rep.Polyglot
	if p == nil || p.TestsVisible || p.Tries != 2 || len(rep.Results) != 8 {
		t.Fatalf("report: %+v, %d results", p, len(rep.Results))
	}
	for _, r := range rep.Results {
		want := 1
		switch r.Task {
		case "go/word-wrap-idle":
			want = 0
		case "python/bracket-balance-retry":
			want = 2
		}
		if r.PassedOnTry != want || r.Passed != (want > 0) || !r.Sealed {
			t.Errorf("%s: passed on try %d (want %d), tries %v, sealed %v: %s\n%s", r.Task, r.PassedOnTry, want, r.Tries, r.Sealed, r.Error, r.TestOutput)
		}
	}
	if g, py := p.ByLang["go"], p.ByLang["python"]; g.Exercises != 2 || g.Try1 != 1 || g.Try2 != 1 || py.Try1 != 1 || py.Try2 != 2 || p.Total.Exercises != 8 || p.Total.Try2 != 7 {
		t.Errorf("rates: %+v", p)
	}
	// Java runs (javac and JUnit's console launcher from Debian's
	// packages, gradle's wrapper needing the network), every test of it:
	// the @Disabled marks are removed before grading.
	if j := p.ByLang["java"]; j.Exercises != 1 || j.Try1 != 1 {
		t.Errorf("java rates: %+v", j)
	}
	if r := result(t, rep, "java/roman-numerals"); !slices.Equal(r.Change.Applied, []string{"src/main/java/RomanNumerals.java"}) || !strings.Contains(r.TestOutput, "rejectsWhatIsNotANumeral() ✔") {
		t.Errorf("java: %+v\n%s", r.Change, r.TestOutput)
	}
	if r := result(t, rep, "rust/run-length"); !slices.Equal(r.Change.Applied, []string{"src/lib.rs"}) {
		t.Errorf("rust change: %+v", r.Change)
	}

	// With --tests-visible the model's workspace holds the tests.
	rep = runEval(t, "polyglot", "--scripted", "--tests-visible", "--keep", "--task", "python/bracket-balance", root)
	r := result(t, rep, "python/bracket-balance")
	defer os.RemoveAll(r.Dir)
	if !rep.Polyglot.TestsVisible || !r.Passed {
		t.Errorf("tests visible: %+v, passed %v", rep.Polyglot, r.Passed)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "work", "bracket_balance_test.py")); err != nil {
		t.Errorf("the tests are not in the model's workspace: %v", err)
	}
}

// Two recorded runs of the same task, one by a model that fixes it and one
// by a model that does nothing, each repeated twice: agentls-eval compare
// prints per-task and overall pass rates with Wilson intervals, tokens,
// cost and time, and names the task that flipped.
func TestEvalCompare(t *testing.T) {
	evalFullPassOnly(t)
	good := evalSuite(t, "todo-next-weekday")
	idle := evalSuite(t, "todo-next-weekday")
	writeEvalScript(t, filepath.Join(idle, "todo-next-weekday"), fakellm.Script{Turns: []fakellm.Turn{{Text: "Nothing to change."}, {Text: "Nothing to change."}}})
	dir := t.TempDir()
	for name, suite := range map[string]string{"a.json": good, "b.json": idle} {
		cmd := exec.Command(agentlsEval(t), "--agentls", binary, "--scripted", "--repeat", "2", "--suite", suite, "--json", filepath.Join(dir, name))
		cmd.Env = cleanEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	out, err := exec.Command(agentlsEval(t), "compare", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		"2/2 100% [34–100]", "0/2 0% [0–66]", "lost",
		"input tokens", "of which cached", "cost $ (with cache)", "time s",
		"flipped: 0 passed in B only [], 1 passed in A only [todo-next-weekday]",
		"the overall intervals overlap",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("compare output lacks %q:\n%s", want, text)
		}
	}
	if out, err := exec.Command(agentlsEval(t), "compare", filepath.Join(dir, "a.json")).CombinedOutput(); err == nil || !strings.Contains(string(out), "usage") {
		t.Errorf("compare with one report: %v\n%s", err, out)
	}
}

// A task can be a git repository at a commit (SWE-bench's shape): here a
// repository whose first commit has the bug and whose second has the fix.
// The model gets the first commit alone (no later history, no branch, no
// remote), the scripted model's patch fixes it, and the hidden test and
// the pass-to-pass tests decide.
func TestEvalRepoAtCommit(t *testing.T) {
	evalFullPassOnly(t)
	src := filepath.Join("..", "testdata", "eval")
	repo := filepath.Join(t.TempDir(), "ledger")
	if _, err := lspclient.CopyTree(filepath.Join(src, "_projects", "ledger"), repo); err != nil {
		t.Fatal(err)
	}
	if _, err := lspclient.CopyTree(filepath.Join(src, "ledger-tab-separated", "base"), repo); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "ledger with the tab bug")
	buggy := git("rev-parse", "HEAD")
	broken, _ := os.ReadFile(filepath.Join(repo, "journal", "lexer.go"))
	fixed, _ := os.ReadFile(filepath.Join(src, "_projects", "ledger", "journal", "lexer.go"))
	if err := os.WriteFile(filepath.Join(repo, "journal", "lexer.go"), fixed, 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-qam", "the fix")
	fix := git("rev-parse", "HEAD")

	var orig eval.Task
	b, _ := os.ReadFile(filepath.Join(src, "ledger-tab-separated", "task.json"))
	if err := json.Unmarshal(b, &orig); err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(t.TempDir(), "suite")
	task := filepath.Join(suite, "ledger-at-commit")
	if _, err := lspclient.CopyTree(filepath.Join(src, "ledger-tab-separated", "hidden"), filepath.Join(task, "hidden")); err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(map[string]any{"lang": "go", "repo": repo, "commit": buggy, "prompt": orig.Prompt, "failToPass": orig.FailToPass, "passToPass": orig.PassToPass})
	var patch strings.Builder
	patch.WriteString("*** Begin Patch\n*** Update File: journal/lexer.go\n@@\n")
	for _, l := range strings.Split(strings.TrimSuffix(string(broken), "\n"), "\n") {
		patch.WriteString("-" + l + "\n")
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(fixed), "\n"), "\n") {
		patch.WriteString("+" + l + "\n")
	}
	patch.WriteString("*** End Patch\n")
	if err := os.WriteFile(filepath.Join(task, "task.json"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(task, "solution.patch"), []byte(patch.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := runEval(t, "--scripted", "--keep", "--suite", suite)
	r := result(t, rep, "ledger-at-commit")
	defer os.RemoveAll(r.Dir)
	if !r.Passed || !slices.Equal(r.Change.Applied, []string{"journal/lexer.go"}) {
		t.Fatalf("passed %v, change %+v: %s\n%s", r.Passed, r.Change, r.Error, r.TestOutput)
	}
	cmd := exec.Command("git", "log", "--all", "--format=%H")
	cmd.Dir = filepath.Join(r.Dir, "work")
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != buggy || strings.Contains(string(out), fix) {
		t.Errorf("the model's repository has history %q (%v); want only %s", out, err, buggy)
	}
}

// evalFullPassOnly leaves an eval test to make test's full e2e pass: the
// -race -short pass is there for the server's races, and the harness's
// grading (whole test suites of the eval's projects) would double its time
// for none.
func evalFullPassOnly(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("the evaluation runs in the full e2e pass; -short is the race pass")
	}
}
