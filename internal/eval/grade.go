package eval

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
)

// Outcomes of one test in a runner's report.
const (
	TestPass = "pass"
	TestFail = "fail"
	TestSkip = "skip"
)

// grading is where and how tests run: dir is the grading copy, deny the
// paths its processes read as empty, layer the copy-on-write caches' scratch.
type grading struct {
	cfg   config.Config
	dir   string
	deny  []string
	layer string
}

// run runs a test command in the sandbox the configuration asks for (the
// tests run the model's code), in an environment that cannot redirect the
// build: GOFLAGS and the Python and node variables that load code are
// cleared. read are more paths the tests may read (the harness's own
// runner): the sandbox declares nothing else outside the copy.
func (g grading) run(ctx context.Context, argv []string, shell string, read ...string) (proc.Result, error) {
	sb, _, _ := assemble.Sandbox(g.cfg, g.dir)
	sb.DenyRead = append(sb.DenyRead, g.deny...)
	sb.AllowRead = append(sb.AllowRead, read...)
	sb.CacheLayer = g.layer
	return proc.Run(ctx, proc.Spec{Argv: argv, Shell: shell, Dir: g.dir, Env: gradingEnv(), Timeout: 10 * time.Minute, OutputLimit: 64 << 20, Sandbox: sb})
}

func gradingEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "GOFLAGS" || k == "GOWORK" || k == "GOTOOLCHAIN" || strings.HasPrefix(k, "PYTHON") || k == "NODE_OPTIONS" || k == "NODE_PATH" || k == "RUSTFLAGS" || k == "CARGO_BUILD_RUSTFLAGS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local", "PYTHONDONTWRITEBYTECODE=1")
}

// runTests runs the task's tests in the grading copy and returns each
// test's outcome by ID, from the runner's own report, and the output.
func runTests(ctx context.Context, g grading, t Task) (map[string]string, string, error) {
	switch t.Lang {
	case "go":
		res, err := g.run(ctx, append([]string{"go", "test", "-json", "-count=1"}, goPackages(t)...), "")
		if err != nil {
			return nil, "", err
		}
		mod := goModule(g.dir)
		got, text := parseGoJSON(res.Output, mod)
		return got, text, nil
	case "python":
		return runPython(ctx, g, slices.Concat(t.FailToPass, t.PassToPass))
	case "ts", "javascript":
		if t.Lang == "ts" {
			if err := transpile(g.dir); err != nil {
				return nil, err.Error(), nil
			}
		}
		guard, err := os.MkdirTemp("", "agentls-eval-node-")
		if err != nil {
			return nil, "", err
		}
		defer os.RemoveAll(guard)
		frozen := filepath.Join(guard, "frozen.mjs")
		if err := os.WriteFile(frozen, []byte(nodeFrozen), 0o444); err != nil {
			return nil, "", err
		}
		argv := append([]string{"node", "--import", (&url.URL{Scheme: "file", Path: filepath.ToSlash(frozen)}).String(), "--test", "--test-reporter=tap"}, nodeConcurrency()...)
		res, err := g.run(ctx, argv, "", guard)
		if err != nil {
			return nil, "", err
		}
		return parseTAP(res.Output), res.Output, nil
	case "rust":
		res, err := g.run(ctx, []string{"cargo", "test", "--offline", "--", "--include-ignored"}, "")
		if err != nil {
			return nil, "", err
		}
		return parseLibtest(res.Output), res.Output, nil
	}
	res, err := g.run(ctx, nil, t.Test)
	if err != nil {
		return nil, "", err
	}
	outcome := TestFail
	if res.ExitCode == 0 && !res.TimedOut {
		outcome = TestPass
	}
	return map[string]string{"(exit code)": outcome}, res.Output, nil
}

// goPackages are the packages that hold the task's tests ("./..." when
// it names none).
func goPackages(t Task) []string {
	var pkgs []string
	for _, id := range slices.Concat(t.FailToPass, t.PassToPass) {
		dir, _, ok := strings.Cut(id, ":")
		if !ok {
			return []string{"./..."}
		}
		if p := "./" + dir; !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		return []string{"./..."}
	}
	slices.Sort(pkgs)
	return pkgs
}

// nodeFrozen is a module node loads in every test process before the
// tests (--import, from outside the grading copy): it freezes the
// assertion modules and node:test, so code under test that the tests
// import cannot turn their assertions into no-ops (assert.equal = () => {}).
const nodeFrozen = `import assert from 'node:assert';
import strict from 'node:assert/strict';
import * as nodeTest from 'node:test';
for (const o of [assert, strict, nodeTest.default, nodeTest.test, nodeTest.describe, nodeTest.it]) {
  if (o) Object.freeze(o);
}
`

// nodeConcurrency runs several test files at once where node can (20.10
// and later): by default it runs one fewer than the cores, one on a
// two-core machine.
var nodeConcurrency = sync.OnceValue(func() []string {
	out, err := exec.Command("node", "--help").Output()
	if err != nil || !strings.Contains(string(out), "--test-concurrency") {
		return nil
	}
	return []string{"--test-concurrency=4"}
})

func goModule(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// parseGoJSON reads go test -json events: "dir:Test" → outcome (dir
// relative to the module, "." for its root), and the tests' text.
func parseGoJSON(out, module string) (map[string]string, string) {
	got := map[string]string{}
	var text strings.Builder
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct{ Action, Package, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			text.WriteString(sc.Text() + "\n")
			continue
		}
		text.WriteString(ev.Output)
		if ev.Test == "" {
			continue
		}
		dir := strings.TrimPrefix(strings.TrimPrefix(ev.Package, module), "/")
		if dir == "" {
			dir = "."
		}
		id := dir + ":" + ev.Test
		switch ev.Action {
		case "pass":
			got[id] = TestPass
		case "fail":
			got[id] = TestFail
		case "skip":
			got[id] = TestSkip
		}
	}
	return got, text.String()
}

// pyRunner runs the named unittest tests and prints each outcome on a line
// that starts with the nonce. The repository goes on the path after the
// standard library (python -I puts neither it nor the script's directory
// first), so a module in it cannot stand in for one of the library's.
const pyRunner = `import sys, json, unittest, traceback
nonce, root, names = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.append(root)
import os
os.chdir(root)
out = {}
class Result(unittest.TextTestResult):
    def addSuccess(self, t):
        super().addSuccess(t); out.setdefault(t.id(), "pass")
    def addFailure(self, t, e):
        super().addFailure(t, e); out[t.id()] = "fail"
    def addError(self, t, e):
        super().addError(t, e); out[t.id()] = "fail"
    def addSkip(self, t, r):
        super().addSkip(t, r); out[t.id()] = "skip"
    def addExpectedFailure(self, t, e):
        super().addExpectedFailure(t, e); out[t.id()] = "fail"
    def addUnexpectedSuccess(self, t):
        super().addUnexpectedSuccess(t); out[t.id()] = "fail"
    def addSubTest(self, t, s, e):
        super().addSubTest(t, s, e)
        if e is not None: out[t.id()] = "fail"
suite = unittest.TestSuite()
if names == ["--discover"]:
    names = []
    suite.addTests(unittest.defaultTestLoader.discover(root, pattern="*_test.py", top_level_dir=root))
for n in names:
    try:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromName(n))
    except Exception:
        traceback.print_exc()
unittest.TextTestRunner(resultclass=Result, stream=sys.stdout, verbosity=2).run(suite)
sys.stdout.flush()
print(nonce + json.dumps(out))
`

func runPython(ctx context.Context, g grading, ids []string) (map[string]string, string, error) {
	scratch, err := os.MkdirTemp("", "agentls-eval-runner-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(scratch)
	script := filepath.Join(scratch, "run_tests.py")
	if err := os.WriteFile(script, []byte(pyRunner), 0o644); err != nil {
		return nil, "", err
	}
	var n [12]byte
	_, _ = rand.Read(n[:])
	nonce := "AGENTLS-EVAL-" + hex.EncodeToString(n[:]) + " "
	res, err := g.run(ctx, append([]string{"python3", "-I", "-B", script, nonce, g.dir}, ids...), "", scratch)
	if err != nil {
		return nil, "", err
	}
	got := map[string]string{}
	var text strings.Builder
	for _, l := range strings.Split(res.Output, "\n") {
		if rest, ok := strings.CutPrefix(l, nonce); ok {
			_ = json.Unmarshal([]byte(rest), &got)
			continue
		}
		text.WriteString(l + "\n")
	}
	return got, text.String(), nil
}

var tapLine = regexp.MustCompile(`^\s*(ok|not ok) \d+ - (.*?)(\s+#\s*(SKIP|TODO).*)?$`)

// parseTAP reads node --test's TAP report: the test's name → outcome.
// A name reported more than once keeps its worst outcome: a test that
// failed stays failed whatever else reports a pass under its name.
func parseTAP(out string) map[string]string {
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		m := tapLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		outcome := TestFail
		switch {
		case m[4] != "":
			outcome = TestSkip
		case m[1] == "ok":
			outcome = TestPass
		}
		keepWorst(got, m[2], outcome)
	}
	return got
}

// outcomeRank orders outcomes from best to worst.
var outcomeRank = map[string]int{TestPass: 0, TestSkip: 1, TestFail: 2}

// keepWorst records outcome for name unless a worse one is already there:
// a test that failed stays failed whatever else reports a pass under its
// name (another test binary, a later line, or output the code printed).
func keepWorst(got map[string]string, name, outcome string) {
	if prev, ok := got[name]; !ok || outcomeRank[outcome] > outcomeRank[prev] {
		got[name] = outcome
	}
}

// parseMarked reads a report whose lines re matches with the test's name
// in group 1 and a marker in group 2 that outcomes maps to its outcome; a
// name reported more than once keeps its worst outcome.
func parseMarked(out string, re *regexp.Regexp, outcomes map[string]string) map[string]string {
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			keepWorst(got, m[1], outcomes[m[2]])
		}
	}
	return got
}

var libtestLine = regexp.MustCompile(`^test (\S+) \.\.\. (ok|FAILED|ignored)`)

// parseLibtest reads cargo test's per-test lines. cargo runs one binary
// per target, so the same name (tests::it_works) can come from two of
// them: it keeps the worst outcome.
func parseLibtest(out string) map[string]string {
	return parseMarked(out, libtestLine, map[string]string{"ok": TestPass, "FAILED": TestFail, "ignored": TestSkip})
}

// pythonStdlib names the standard library's top-level modules, from the
// interpreter that runs the tests.
func pythonStdlib() map[string]bool {
	out, err := exec.Command("python3", "-I", "-c", "import sys; print(' '.join(sys.stdlib_module_names))").Output()
	if err != nil {
		return nil
	}
	m := map[string]bool{}
	for _, n := range strings.Fields(string(out)) {
		m[n] = true
	}
	return m
}

// Verdict is the grading of one task: every FailToPass and PassToPass
// test must have passed.
type Verdict struct {
	Passed bool `json:"passed"`
	// Failing are the required tests that did not pass (missing from
	// the report counts as failing).
	Failing []string `json:"failing,omitempty"`
}

func judge(t Task, got map[string]string) Verdict {
	want := slices.Concat(t.FailToPass, t.PassToPass)
	if len(want) == 0 {
		want = []string{"(exit code)"}
	}
	var v Verdict
	for _, id := range want {
		if got[id] != TestPass {
			v.Failing = append(v.Failing, id)
		}
	}
	v.Passed = len(v.Failing) == 0
	return v
}

func describe(v Verdict, n int) string {
	if v.Passed {
		return ""
	}
	f := v.Failing
	if len(f) > 3 {
		f = append(f[:3:3], fmt.Sprintf("… %d more", len(v.Failing)-3))
	}
	return fmt.Sprintf("%d of %d required tests failed: %s", len(v.Failing), n, strings.Join(f, ", "))
}
