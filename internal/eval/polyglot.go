package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// Exercise is one exercise of a checkout of Aider's polyglot benchmark
// (Exercism's layout): ROOT/LANG/exercises/practice/NAME/ with
// .docs/instructions.md (and introduction.md, instructions.append.md),
// the stub files, the tests, and .meta/config.json naming them.
type Exercise struct {
	Lang, Name, Dir string
	Files           struct {
		Solution []string `json:"solution"`
		Test     []string `json:"test"`
		Example  []string `json:"example"`
		Editor   []string `json:"editor"`
	}
}

// ID is LANG/NAME.
func (e Exercise) ID() string { return e.Lang + "/" + e.Name }

// editable are the solution files the model is asked to change: as in
// Aider's benchmark, not the build files (CMakeLists.txt, Cargo.toml), the
// tests, the examples or anything under .meta or .docs.
func (e Exercise) editable() []string {
	var out []string
	for _, f := range e.Files.Solution {
		base := filepath.Base(f)
		if base == "CMakeLists.txt" || base == "Cargo.toml" || slices.Contains(e.Files.Test, f) || slices.Contains(e.Files.Example, f) ||
			strings.HasPrefix(f, ".meta/") || strings.HasPrefix(f, ".docs/") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// fileList names the editable files as the prompts do (base names).
func (e Exercise) fileList() string {
	var names []string
	for _, f := range e.editable() {
		names = append(names, filepath.Base(f))
	}
	return strings.Join(names, " ")
}

// PolyglotLangs are the benchmark's languages, in its order.
var PolyglotLangs = []string{"cpp", "go", "java", "javascript", "python", "rust"}

// LoadPolyglot reads the exercises of a polyglot checkout, by language then
// name. only keeps those it names (LANG, NAME or LANG/NAME) when not empty.
func LoadPolyglot(root string, only []string) ([]Exercise, error) {
	var out []Exercise
	for _, lang := range PolyglotLangs {
		dir := filepath.Join(root, lang, "exercises", "practice")
		entries, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			ex := Exercise{Lang: lang, Name: e.Name(), Dir: filepath.Join(dir, e.Name())}
			if len(only) > 0 && !slices.Contains(only, lang) && !slices.Contains(only, ex.Name) && !slices.Contains(only, ex.ID()) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(ex.Dir, ".meta", "config.json"))
			if err != nil {
				return nil, fmt.Errorf("exercise %s: %w", ex.ID(), err)
			}
			var meta struct {
				Files json.RawMessage `json:"files"`
			}
			if err := json.Unmarshal(b, &meta); err != nil || json.Unmarshal(meta.Files, &ex.Files) != nil || len(ex.Files.Solution) == 0 {
				return nil, fmt.Errorf("exercise %s: .meta/config.json needs files.solution", ex.ID())
			}
			if _, err := os.Stat(filepath.Join(ex.Dir, ".docs", "instructions.md")); err != nil {
				return nil, fmt.Errorf("exercise %s: %w", ex.ID(), err)
			}
			out = append(out, ex)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no exercises in %s (want LANG/exercises/practice/NAME/, LANG one of %s)", root, strings.Join(PolyglotLangs, ", "))
	}
	return out, nil
}

// Polyglot is how the polyglot protocol runs.
type Polyglot struct {
	// TestsVisible leaves the exercise's tests in the model's workspace
	// (agent harnesses compared on this suite do); Aider's own runs hand
	// the model only the stubs. The original tests are restored before
	// grading either way.
	TestsVisible bool
	// Tries is how many times the model works on an exercise: the test
	// output goes back to it after a failed try (default 2, Aider's).
	Tries int
}

// PolyglotSummary are the pass rates after each try, per language and
// overall, as Aider's leaderboard reports them.
type PolyglotSummary struct {
	TestsVisible bool                `json:"testsVisible"`
	Tries        int                 `json:"tries"`
	ByLang       map[string]TryRates `json:"byLang"`
	Total        TryRates            `json:"total"`
}

// TryRates count the exercises passed by try 1 and by try 2.
type TryRates struct {
	Exercises int     `json:"exercises"`
	Skipped   int     `json:"skipped,omitempty"`
	Try1      int     `json:"passedTry1"`
	Try2      int     `json:"passedTry2"`
	Rate1     float64 `json:"rate1"`
	Rate2     float64 `json:"rate2"`
}

// RunPolyglot runs exercises one after another with Aider's protocol.
func RunPolyglot(ctx context.Context, exs []Exercise, o Options, p Polyglot) Report {
	if p.Tries < 1 {
		p.Tries = 2
	}
	rep := runAll(ctx, o, "agentls-polyglot-", "%-34s %s\n", len(exs), func(i int, model string, o Options, root string) (string, Result) {
		return exs[i].ID(), runExercise(ctx, exs[i], model, o, p, root)
	})
	rep.Polyglot = summarize(rep.Results, p)
	return rep
}

func summarize(rs []Result, p Polyglot) *PolyglotSummary {
	s := &PolyglotSummary{TestsVisible: p.TestsVisible, Tries: p.Tries, ByLang: map[string]TryRates{}}
	add := func(t *TryRates, r Result) {
		if r.Skipped {
			t.Skipped++
			return
		}
		t.Exercises++
		if r.PassedOnTry == 1 {
			t.Try1++
		}
		if r.PassedOnTry >= 1 && r.PassedOnTry <= 2 {
			t.Try2++
		}
	}
	for _, r := range rs {
		l := s.ByLang[r.Lang]
		add(&l, r)
		s.ByLang[r.Lang] = l
		add(&s.Total, r)
	}
	rates := func(t *TryRates) {
		if t.Exercises > 0 {
			t.Rate1, t.Rate2 = float64(t.Try1)/float64(t.Exercises), float64(t.Try2)/float64(t.Exercises)
		}
	}
	for k, l := range s.ByLang {
		rates(&l)
		s.ByLang[k] = l
	}
	rates(&s.Total)
	return s
}

// polyglotTools are the programs each language's tests need.
func (e Exercise) missing() string {
	need := map[string][]string{"cpp": {"g++"}, "go": {"go"}, "java": {"java"}, "javascript": {"node", "npm"}, "python": {"python3"}, "rust": {"cargo"}}[e.Lang]
	if e.Lang == "cpp" && exists(filepath.Join(e.Dir, "CMakeLists.txt")) {
		need = append(need, "cmake", "make")
	}
	var miss []string
	for _, p := range need {
		if _, err := exec.LookPath(p); err != nil {
			miss = append(miss, p)
		}
	}
	if e.Lang == "java" {
		if _, err := exec.LookPath("javac"); err != nil {
			miss = append(miss, "javac")
		}
		if _, _, ok := javaRunner(e.Dir); !ok {
			miss = append(miss, "gradle (nor JUnit's console launcher in "+javaLibs+", Debian's junit5, nor the exercise's gradlew)")
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "no " + strings.Join(miss, ", ") + " on PATH"
}

// instructions is the first prompt: the exercise's documents, then what to
// change, as Aider's benchmark asks it.
func (e Exercise) instructions() string {
	var b strings.Builder
	for _, f := range []string{"introduction.md", "instructions.md", "instructions.append.md"} {
		if t, err := os.ReadFile(filepath.Join(e.Dir, ".docs", f)); err == nil {
			b.Write(t)
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\n####\n\nUse these instructions to change the files %s. Keep the names of the existing functions, classes and types: tests and other code use them. Use only the language's standard library; install no packages.\n", e.fileList())
	return b.String()
}

// retry is the next try's prompt: the test output (timings taken out, as
// Aider does, so that it does not vary), then what to do about it.
func (e Exercise) retry(output string) string {
	output = timings.ReplaceAllString(output, "")
	return strings.TrimRight(output, "\n") + fmt.Sprintf("\n\n####\n\nThe tests failed with the errors above. The tests are right; do not change them. Fix the code in %s so that they pass.\n", e.fileList())
}

var (
	timings  = regexp.MustCompile(`\bin \d+\.\d+s\b`)
	disabled = regexp.MustCompile(`@Disabled\([^)]*\)\s*\n`)
)

// copyExercise copies the exercise without .meta (its example solution)
// and .docs (given in the prompt); without its test files unless tests.
func (e Exercise) copyTo(dst string, tests bool) error {
	skip := map[string]bool{}
	if !tests {
		for _, f := range e.Files.Test {
			skip[filepath.FromSlash(f)] = true
		}
	}
	return copyLeaving(e.Dir, dst, func(rel string, d os.DirEntry) bool {
		return d.IsDir() && (rel == ".meta" || rel == ".docs" || rel == "node_modules" || rel == "build" || rel == "target") || skip[rel]
	})
}

// script is the scripted model for an exercise: .meta/script.json when
// there is one, else it writes the example solution into the solution
// files (each from the example with its extension).
func (e Exercise) script() (*fakellm.Script, error) {
	if b, err := os.ReadFile(filepath.Join(e.Dir, ".meta", "script.json")); err == nil {
		var s fakellm.Script
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: .meta/script.json: %w", e.ID(), err)
		}
		return &s, nil
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	used := map[string]bool{}
	for _, sol := range e.editable() {
		stub, err := os.ReadFile(filepath.Join(e.Dir, sol))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.ID(), err)
		}
		for _, ex := range e.Files.Example {
			if used[ex] || filepath.Ext(ex) != filepath.Ext(sol) {
				continue
			}
			used[ex] = true
			ref, err := os.ReadFile(filepath.Join(e.Dir, ex))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.ID(), err)
			}
			b.WriteString(replacePatch(sol, string(stub), string(ref)))
			break
		}
	}
	b.WriteString("*** End Patch\n")
	return patchScript(nil, b.String()), nil
}

func runExercise(ctx context.Context, ex Exercise, model string, o Options, p Polyglot, root string) (r Result) {
	r = Result{Task: ex.ID(), Lang: ex.Lang}
	start := time.Now()
	defer func() { r.WallMs = time.Since(start).Milliseconds() }()
	if why := ex.missing(); why != "" {
		r.Skipped, r.Error = true, "skipped: "+why
		return r
	}
	tmp, others, cleanup, err := jobDir(root, ex.Lang+"-"+ex.Name+"-", o, &r)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer cleanup()
	ws := filepath.Join(tmp, "work")
	if err := ex.copyTo(ws, p.TestsVisible); err == nil {
		err = gitInit(ctx, ws)
	}
	if err != nil {
		r.Error = "copying the exercise: " + err.Error()
		return r
	}
	orig, err := snapshot(ws)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	deny := sealed(o.Suite, o.Binary, others)
	r.Sealed = sandboxed(o.Config)
	ep, err := scriptedEndpoint(model, o, ex.script)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer func() { account(&r, ep.px.requests(), o, model) }()
	defer ep.close()
	prompt, session := ex.instructions(), ""
	for try := 1; try <= p.Tries; try++ {
		run := runAgent(ctx, o, ep, model, ws, filepath.Join(tmp, "state"), prompt, session, deny)
		r.Status, session = run.status, run.session
		if run.err != "" {
			r.Error = run.err
		}
		work, err := snapshot(ws)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.Change = ex.sortChange(orig, work)
		passed, out, err := ex.grade(ctx, o, filepath.Join(tmp, fmt.Sprintf("grade%d", try)), work, deny)
		if err != nil {
			r.Error = "running the tests: " + err.Error()
			return r
		}
		r.Tries = append(r.Tries, passed)
		r.TestOutput = lastLines(out, 200)
		if passed {
			r.Passed, r.PassedOnTry, r.Error = true, try, ""
			return r
		}
		r.Error = "tests failed: " + lastLines(out, 3)
		prompt = ex.retry(out)
	}
	return r
}

// sortChange: the solution files' changes are taken; test files' are
// dropped; anything else the model changed is left out of grading
// (restored), but for the .agentls.json the eval wrote.
func (ex Exercise) sortChange(orig, work map[string][]byte) Change {
	var c Change
	for _, p := range allPaths(orig, work) {
		o, inOrig := orig[p]
		w, inWork := work[p]
		if p == config.FileName || inOrig && inWork && string(o) == string(w) {
			continue
		}
		switch {
		case slices.Contains(ex.editable(), p):
			c.Applied = append(c.Applied, p)
		case slices.Contains(ex.Files.Test, p):
			c.Dropped = append(c.Dropped, p)
		default:
			c.Restored = append(c.Restored, p)
		}
	}
	return c
}

// grade copies the exercise as published (its tests included) to dir,
// puts the model's solution files in, and runs the language's tests.
func (ex Exercise) grade(ctx context.Context, o Options, dir string, work map[string][]byte, deny []string) (bool, string, error) {
	if err := ex.copyTo(dir, true); err != nil {
		return false, "", err
	}
	for _, f := range ex.editable() {
		if b, ok := work[f]; ok {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), b, 0o644); err != nil {
				return false, "", err
			}
		} else {
			_ = os.Remove(filepath.Join(dir, filepath.FromSlash(f)))
		}
	}
	// Java's exercises disable all but the first test; the benchmark runs
	// them all.
	for _, f := range ex.Files.Test {
		if strings.HasSuffix(f, ".java") {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if b, err := os.ReadFile(p); err == nil {
				_ = os.WriteFile(p, disabled.ReplaceAll(b, nil), 0o644)
			}
		}
	}
	g := grading{cfg: o.Config, dir: dir, deny: deny, layer: dir + "-layer"}
	var argv []string
	shell := ""
	switch ex.Lang {
	case "go":
		argv = []string{"go", "test", "-json", "-count=1", "./..."}
	case "python":
		got, out, err := runPython(ctx, g, []string{"--discover"})
		if err != nil {
			return false, "", err
		}
		return allPassed(got), clean(out, dir, ex.Name), nil
	case "rust":
		argv = []string{"cargo", "test", "--offline", "--", "--include-ignored"}
	case "javascript":
		argv = []string{"npm", "test", "--silent"}
	case "cpp":
		shell = "g++ -std=c++17 -o exercise_test *.cpp && ./exercise_test"
		if exists(filepath.Join(dir, "CMakeLists.txt")) {
			shell = "mkdir -p build && cd build && cmake -DEXERCISM_RUN_ALL_TESTS=1 .. && make"
		}
	case "java":
		argv, shell, _ = javaRunner(dir)
	}
	res, err := g.run(ctx, argv, shell)
	if err != nil {
		return false, "", err
	}
	out := res.Output
	var got map[string]string
	switch ex.Lang {
	case "go":
		got, out = parseGoJSON(out, goModule(dir))
	case "rust":
		got = parseLibtest(out)
	case "javascript":
		got = parseTAP(out)
	case "java":
		got = parseJUnitTree(out)
	}
	passed := res.ExitCode == 0 && !res.TimedOut
	if ex.Lang == "go" || ex.Lang == "rust" {
		passed = passed && allPassed(got)
	} else if len(got) > 0 {
		passed = passed && allPassed(got)
	}
	return passed, clean(out, dir, ex.Name), nil
}

// javaLibs is where Debian's packages put Java libraries: junit5 the JUnit
// Platform's console launcher, libassertj-core-java AssertJ, junit4 JUnit 4
// (testdata/eval/install.sh installs them).
var javaLibs = "/usr/share/java"

// javaTestLibs are the libraries an exercise's tests may use besides
// JUnit 5 (Aider's Java exercises assert with AssertJ; older ones are
// JUnit 4 tests, which the launcher's vintage engine runs).
var javaTestLibs = []string{"assertj-core.jar", "junit4.jar", "hamcrest-core.jar"}

// javaRunner is how a Java exercise's tests run. Gradle on PATH runs them
// as Aider's benchmark does (gradle test --offline). Without it, when
// JUnit's console launcher is installed, javac compiles src/main/java and
// src/test/java and the launcher runs every test: the exercise's gradlew
// would download Gradle first, which a machine without the network cannot.
// The exercise's gradlew is the last resort. ok is false when none is
// there.
func javaRunner(dir string) (argv []string, shell string, ok bool) {
	if _, err := exec.LookPath("gradle"); err == nil {
		return []string{"gradle", "test", "--offline"}, "", true
	}
	launcher := filepath.Join(javaLibs, "junit-platform-console-standalone.jar")
	if exists(launcher) {
		cp := []string{"build/classes"}
		for _, j := range javaTestLibs {
			if p := filepath.Join(javaLibs, j); exists(p) {
				cp = append(cp, p)
			}
		}
		q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
		tests := q(strings.Join(append([]string{"build/test-classes"}, cp...), ":"))
		shell = "set -e; rm -rf build/classes build/test-classes; mkdir -p build/classes build/test-classes\n" +
			"javac -encoding UTF-8 -d build/classes $(find src/main/java -name '*.java')\n" +
			"javac -encoding UTF-8 -d build/test-classes -cp " + q(strings.Join(append(cp, launcher), ":")) + " $(find src/test/java -name '*.java')\n" +
			"java -jar " + q(launcher) + " --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests -cp " + tests + " --scan-class-path build/test-classes\n"
		return nil, shell, true
	}
	if exists(filepath.Join(dir, "gradlew")) {
		return []string{"./gradlew", "test", "--offline"}, "", true
	}
	return nil, "", false
}

var junitTreeLine = regexp.MustCompile(`─ (\S+\(.*\)) (✔|✘|↷)`)

// parseJUnitTree reads the JUnit console launcher's tree: each test
// method's outcome by its name (one() ✔, two() ✘ expected …, three() ↷);
// the same method name in two classes keeps its worst outcome.
func parseJUnitTree(out string) map[string]string {
	return parseMarked(out, junitTreeLine, map[string]string{"✔": TestPass, "✘": TestFail, "↷": TestSkip})
}

// allPassed: at least one test ran and none failed.
func allPassed(got map[string]string) bool {
	ran := false
	for _, v := range got {
		switch v {
		case TestFail:
			return false
		case TestPass:
			ran = true
		}
	}
	return ran
}

// clean takes the grading directory's path out of test output, as Aider
// does, so the model sees the exercise's name.
func clean(out, dir, name string) string {
	return strings.ReplaceAll(out, dir, name)
}
