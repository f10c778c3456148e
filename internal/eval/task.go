package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Task is one evaluation task: testdata/eval/NAME/ holds task.json, the
// repository the agent gets (repo/), the hidden tests (hidden/, copied over
// the repository once the agent is done) and the recorded solution
// (solution.patch, in apply_patch's format) the scripted model plays.
type Task struct {
	Name string `json:"-"`
	Dir  string `json:"-"`
	// Lang is "go", "python" or "ts".
	Lang string `json:"lang"`
	// Prompt is what the user asks.
	Prompt string `json:"prompt"`
	// Test is the shell command that runs the hidden tests; exit 0 passes.
	Test string `json:"test"`
	// Read lists files the scripted solution reads before patching, as a
	// model would.
	Read []string `json:"read,omitempty"`
}

// Load reads every task under suite, sorted by name; only names in
// (when not empty) are kept.
func Load(suite string, only []string) ([]Task, error) {
	entries, err := os.ReadDir(suite)
	if err != nil {
		return nil, fmt.Errorf("eval suite: %w", err)
	}
	var tasks []Task
	for _, e := range entries {
		if !e.IsDir() || (len(only) > 0 && !slices.Contains(only, e.Name())) {
			continue
		}
		dir := filepath.Join(suite, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "task.json"))
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", e.Name(), err)
		}
		t := Task{Name: e.Name(), Dir: dir}
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("task %s: task.json: %w", e.Name(), err)
		}
		if t.Prompt == "" || t.Test == "" || !slices.Contains([]string{"go", "python", "ts"}, t.Lang) {
			return nil, fmt.Errorf("task %s: task.json needs prompt, test and lang (go, python or ts)", e.Name())
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

// Solution is the task's recorded solution patch.
func (t Task) Solution() (string, error) {
	b, err := os.ReadFile(filepath.Join(t.Dir, "solution.patch"))
	return string(b), err
}

// copyTree copies the regular files under src into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
