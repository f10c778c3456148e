package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pyProject: tests/test_top.py reaches pkg/base.py through pkg.top and
// pkg.mid; tests/test_text.py reads base.py as text, which no import
// graph sees.
func pyProject(t *testing.T, extra map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"pyproject.toml":     "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
		"pkg/__init__.py":    "",
		"pkg/base.py":        "def value():\n    return 1\n",
		"pkg/mid.py":         "from pkg import base\n\ndef twice():\n    return 2 * base.value()\n",
		"pkg/top.py":         "from pkg.mid import twice\n\ndef total():\n    return twice() + 1\n",
		"tests/test_top.py":  "from pkg.top import total\n\ndef test_total():\n    assert total() == 3\n",
		"tests/test_text.py": "import pathlib\n\ndef test_text():\n    assert 'TODO' not in pathlib.Path('pkg/base.py').read_text()\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	for rel, text := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func pyGate(root string, unsaved map[string][]byte) *Gate {
	return &Gate{Root: root, Commands: []string{"pytest -q"}, Detected: true,
		Unsaved: func([]string) map[string][]byte { return unsaved }}
}

// A failure the scoped run finds is reported from the scoped run alone,
// and the report says so.
func TestGateScopedFailureReportsTheScopedRun(t *testing.T) {
	root := pyProject(t, nil)
	unsaved := map[string][]byte{"pkg/base.py": []byte("def value():\n    return 2\n")}
	rep, err := pyGate(root, unsaved).Verify(context.Background(), []string{"pkg/base.py"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || strings.Join(rep.Commands, ";") != "pytest -q tests/test_top.py" ||
		!strings.Contains(rep.Summary, "scoped to what the change reaches (full: pytest -q)") {
		t.Fatalf("%+v", rep)
	}
}

// A scoped run that passes is an estimate: the full checks run before the
// task is verified, and find what the import graph cannot see (a test that
// reads the changed module as text).
func TestGateEstimatedScopeRunsTheFullChecks(t *testing.T) {
	root := pyProject(t, nil)
	fine := map[string][]byte{"pkg/base.py": []byte("def value():\n    return 1  # unchanged result\n")}
	rep, err := pyGate(root, fine).Verify(context.Background(), []string{"pkg/base.py"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || strings.Join(rep.Commands, ";") != "pytest -q" ||
		!strings.Contains(rep.Summary, "full checks, after the scoped ones passed (pytest -q tests/test_top.py)") {
		t.Fatalf("%+v", rep)
	}
	hidden := map[string][]byte{"pkg/base.py": []byte("def value():\n    return 1  # TODO\n")}
	rep, err = pyGate(root, hidden).Verify(context.Background(), []string{"pkg/base.py"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || strings.Join(rep.Commands, ";") != "pytest -q" || !strings.Contains(rep.Feedback, "test_text") {
		t.Fatalf("the full run did not catch what the scope missed: %+v", rep)
	}
}

// The baseline reruns the scoped command on the text before the task: a
// failure that was there before is excused in the scoped run and in the
// full one after it.
func TestGateBaselineWithScopedChecks(t *testing.T) {
	root := pyProject(t, map[string]string{
		"tests/test_top.py": "from pkg.top import total\n\ndef test_total():\n    assert total() == 3\n\ndef test_old():\n    assert total() == 4\n",
	})
	before := "def value():\n    return 1\n"
	unsaved := map[string][]byte{"pkg/base.py": []byte("def value():\n    # documented\n    return 1\n")}
	g := pyGate(root, unsaved)
	var ran []string
	g.OnStart = func(c string) { ran = append(ran, c) }
	g.Before = func(rel string) ([]byte, bool, bool) { return []byte(before), true, rel == "pkg/base.py" }
	rep, err := g.Verify(context.Background(), []string{"pkg/base.py"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || rep.PreExisting == 0 || strings.Join(ran, ";") != "pytest -q tests/test_top.py;pytest -q" {
		t.Fatalf("ran %q: %+v", ran, rep)
	}
	// The task's own failure in the same test file is not excused.
	unsaved["pkg/base.py"] = []byte("def value():\n    return 5\n")
	ran = nil
	rep, err = g.Verify(context.Background(), []string{"pkg/base.py"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || strings.Join(ran, ";") != "pytest -q tests/test_top.py" {
		t.Fatalf("ran %q: %+v", ran, rep)
	}
}
