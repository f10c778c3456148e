package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// Task is one evaluation task, in the shape of a SWE-bench instance: a
// repository at a known state, a problem statement, the tests that must go
// from failing to passing (FailToPass) and those that must keep passing
// (PassToPass). SUITE/NAME/ holds task.json and hidden/, the tests copied
// into the grading copy only once the model is done. The repository is
// one of:
//   - Repo (a path, relative to the task's directory, or a URL) at Commit:
//     cloned with git;
//   - Project (a directory, relative to the task's directory, holding the
//     project as it should be) with base/ of the task copied over it: the
//     state with the bug;
//   - repo/ in the task's directory.
//
// The scripted model plays script.json when the task has one, else
// solution.patch (apply_patch's format), else the project's own version of
// every file base/ changes.
type Task struct {
	Name string `json:"-"`
	Dir  string `json:"-"`
	// Lang names the toolchain and the test runner: go, python, ts,
	// javascript, rust, or any other with Test set.
	Lang   string `json:"lang"`
	Prompt string `json:"prompt"`

	Repo    string `json:"repo,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Project string `json:"project,omitempty"`

	// FailToPass and PassToPass are test IDs as the runner reports them
	// (Go: "dir:TestName", dir relative to the module, "." for its root;
	// Python: unittest's "module.Class.test"; node and Rust: the test's
	// name).
	FailToPass []string `json:"failToPass,omitempty"`
	PassToPass []string `json:"passToPass,omitempty"`
	// Test is a shell command judged by its exit code, for languages
	// without a runner here (the report says so).
	Test string `json:"test,omitempty"`
	// TestPatterns are globs (on a path's base name, or on the path when
	// they hold a "/") of the files that are tests: the model's changes to
	// them are dropped before grading. Default: the language's.
	TestPatterns []string `json:"testPatterns,omitempty"`
	// Read lists files the scripted solution reads before patching, as a
	// model would.
	Read []string `json:"read,omitempty"`
}

// runners are the languages graded test by test from the runner's own
// report.
var runners = map[string]bool{"go": true, "python": true, "ts": true, "javascript": true, "rust": true}

// toolchains are the programs a language's tasks need.
var toolchains = map[string][]string{
	"go": {"go"}, "python": {"python3"}, "ts": {"node"}, "javascript": {"node"},
	"rust": {"cargo"}, "cpp": {"g++"}, "java": {"java"},
}

// Missing says which of the task's toolchain programs are not on PATH
// ("" when none): such a task is skipped with this reason.
func (t Task) Missing() string {
	var miss []string
	for _, p := range toolchains[t.Lang] {
		if _, err := exec.LookPath(p); err != nil {
			miss = append(miss, p)
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "no " + strings.Join(miss, ", ") + " on PATH"
}

// Load reads every task under suite, sorted by name; only names in
// (when not empty) are kept. Directories whose name starts with "_" or
// "." hold what tasks share (projects), not tasks.
func Load(suite string, only []string) ([]Task, error) {
	entries, err := os.ReadDir(suite)
	if err != nil {
		return nil, fmt.Errorf("eval suite: %w", err)
	}
	var tasks []Task
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") || (len(only) > 0 && !slices.Contains(only, e.Name())) {
			continue
		}
		dir, err := filepath.Abs(filepath.Join(suite, e.Name()))
		if err != nil {
			return nil, err
		}
		t, err := LoadTask(dir)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	if len(only) > 0 && len(tasks) != len(only) {
		var missing []string
		for _, n := range only {
			if !slices.ContainsFunc(tasks, func(t Task) bool { return t.Name == n }) {
				missing = append(missing, n)
			}
		}
		return nil, fmt.Errorf("no such task: %s", strings.Join(missing, ", "))
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("no tasks in %s", suite)
	}
	return tasks, nil
}

// LoadTask reads the task in dir.
func LoadTask(dir string) (Task, error) {
	name := filepath.Base(dir)
	b, err := os.ReadFile(filepath.Join(dir, "task.json"))
	if err != nil {
		return Task{}, fmt.Errorf("task %s: %w", name, err)
	}
	t := Task{Name: name, Dir: dir}
	if err := json.Unmarshal(b, &t); err != nil {
		return Task{}, fmt.Errorf("task %s: task.json: %w", name, err)
	}
	switch {
	case t.Prompt == "" || t.Lang == "":
		return Task{}, fmt.Errorf("task %s: task.json needs prompt and lang", name)
	case runners[t.Lang] && len(t.FailToPass) == 0 && t.Test == "":
		return Task{}, fmt.Errorf("task %s: task.json needs failToPass (the tests a fix makes pass)", name)
	case !runners[t.Lang] && t.Test == "":
		return Task{}, fmt.Errorf("task %s: no test runner for %q here: task.json needs test (a shell command, judged by its exit code)", name, t.Lang)
	case t.Repo != "" && t.Project != "":
		return Task{}, fmt.Errorf("task %s: repo and project exclude each other", name)
	case t.Repo != "" && t.Commit == "":
		return Task{}, fmt.Errorf("task %s: repo needs commit", name)
	}
	return t, nil
}

// Solution is the scripted model's conversation for t: read the files a
// model would read, apply the recorded solution, say it is done.
func (t Task) Solution() (*fakellm.Script, error) {
	if b, err := os.ReadFile(filepath.Join(t.Dir, "script.json")); err == nil {
		var s fakellm.Script
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("task %s: script.json: %w", t.Name, err)
		}
		return &s, nil
	}
	patch, err := t.solutionPatch()
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	return patchScript(t.Read, patch), nil
}

func (t Task) solutionPatch() (string, error) {
	if b, err := os.ReadFile(filepath.Join(t.Dir, "solution.patch")); err == nil || t.Project == "" {
		return string(b), err
	}
	// The project is the fixed state: the solution puts back its version
	// of every file the task's base/ overrides.
	base := filepath.Join(t.Dir, "base")
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		broken, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fixed, err := os.ReadFile(filepath.Join(t.Dir, t.Project, rel))
		if err != nil {
			return err
		}
		b.WriteString(replacePatch(filepath.ToSlash(rel), string(broken), string(fixed)))
		return nil
	})
	b.WriteString("*** End Patch\n")
	return b.String(), err
}

// replacePatch is an apply_patch section that turns old into new as one
// hunk.
func replacePatch(path, old, new string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*** Update File: %s\n@@\n", path)
	for _, l := range strings.SplitAfter(strings.TrimSuffix(old, "\n"), "\n") {
		b.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
	}
	for _, l := range strings.SplitAfter(strings.TrimSuffix(new, "\n"), "\n") {
		b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}

func patchScript(read []string, patch string) *fakellm.Script {
	var turns []fakellm.Turn
	// The model reads what it changes first, as agent.readBeforeEdit asks
	// of every model.
	read = append([]string(nil), read...)
	for _, l := range strings.Split(patch, "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(l), "*** Update File:"); ok && !slices.Contains(read, strings.TrimSpace(p)) {
			read = append(read, strings.TrimSpace(p))
		}
	}
	if len(read) > 0 {
		var calls []fakellm.ToolCall
		for i, p := range read {
			a, _ := json.Marshal(map[string]string{"path": p})
			calls = append(calls, fakellm.ToolCall{ID: fmt.Sprintf("call_read_%d", i), Name: "read_file", Arguments: string(a)})
		}
		turns = append(turns, fakellm.Turn{ToolCalls: calls})
	}
	if patch != "" {
		a, _ := json.Marshal(map[string]string{"input": patch})
		turns = append(turns, fakellm.Turn{ToolCalls: []fakellm.ToolCall{{ID: "call_patch", Name: "apply_patch", Arguments: string(a)}}})
	}
	turns = append(turns, fakellm.Turn{Text: "Done: applied the fix and checked it."})
	return &fakellm.Script{Turns: turns}
}
