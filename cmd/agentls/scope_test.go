package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentls run on a Python project (issue 42): the detected pytest runs
// scoped to the test the model's change reaches two imports away; its
// failure goes back to the model; the fix passes the scoped run, and the
// full checks run once before the task is verified. The output says which
// ran each time.
func TestRunScopesPytestToWhatTheChangeReaches(t *testing.T) {
	e := newEnv(t, nil)
	for rel, text := range map[string]string{
		"pyproject.toml":      "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
		"pkg/__init__.py":     "",
		"pkg/base.py":         "def value():\n    return 1\n",
		"pkg/mid.py":          "from pkg import base\n\ndef twice():\n    return 2 * base.value()\n",
		"pkg/top.py":          "from pkg.mid import twice\n\ndef total():\n    return twice() + 1\n",
		"pkg/other.py":        "def other():\n    return 5\n",
		"tests/test_top.py":   "from pkg.top import total\n\ndef test_total():\n    assert total() == 3\n",
		"tests/test_other.py": "from pkg.other import other\n\ndef test_other():\n    assert other() == 5\n",
	} {
		p := filepath.Join(e.ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "r1", "name": "read_file", "arguments": "{\"path\":\"pkg/base.py\"}"}]},
		{"toolCalls": [{"id": "e1", "name": "edit_file", "arguments": "{\"path\":\"pkg/base.py\",\"old_string\":\"return 1\",\"new_string\":\"return 2\"}"}]},
		{"text": "Changed the value."},
		{"toolCalls": [{"id": "e2", "name": "edit_file", "arguments": "{\"path\":\"pkg/base.py\",\"old_string\":\"return 2\",\"new_string\":\"return 1  # total() depends on it\"}"}]},
		{"text": "Put it back."}
	]}`)
	r := e.run("run", "--trust", "--base-url", srv.URL(), "change the value")
	for _, want := range []string{
		"`pytest -q tests/test_top.py` failed (exit 1)",
		"scoped to what the change reaches (full: pytest -q)",
		"1 check passed (pytest -q); full checks, after the scoped ones passed (pytest -q tests/test_top.py)",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if r.code != 0 || srv.Pending() != 0 || t.Failed() {
		t.Fatalf("exit %d, pending %d:\n%s", r.code, srv.Pending(), r.stderr)
	}
}
