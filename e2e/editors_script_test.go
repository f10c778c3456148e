package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/need"
)

// editors/test.sh ends with one line per skipped editor, so a `make test`
// that skipped some says so where it is seen (issue 13, item 16). The
// script runs on a copy with stand-in editor tests and a stand-in go.
func TestEditorsTestListsSkipsAtTheEnd(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		need.Missing(t, "no bash")
	}
	dir := t.TempDir()
	script, err := os.ReadFile("../editors/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"editors/test.sh":     string(script),
		"editors/aaa/test.sh": "#!/bin/sh\necho 'SKIP aaa: no aaa found'\n",
		"editors/bbb/test.sh": "#!/bin/sh\necho 'checks passed'\necho 'SKIP bbb-2: bbb 2 missing'\n",
		"editors/ccc/test.sh": "#!/bin/sh\necho 'all 3 checks passed'\n",
		"Makefile":            "build:\n\t@true\n",
		"fakebin/go":          "#!/bin/sh\nexit 0\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(ci string) (string, error) {
		cmd := exec.Command("bash", filepath.Join(dir, "editors", "test.sh"))
		cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "fakebin")+string(os.PathListSeparator)+os.Getenv("PATH"), "AGENTLS_CI="+ci)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, tail, ok := strings.Cut(out, "== editors/ccc/test.sh\nall 3 checks passed\n")
	if !ok || tail != "== skipped editors\nSKIP aaa: no aaa found\nSKIP bbb-2: bbb 2 missing\n" {
		t.Errorf("the run does not end with the skips:\n%s", out)
	}

	// In CI an editor skipped for a missing install fails the run, and the
	// last lines say which.
	out, err = run("1")
	if err == nil {
		t.Fatalf("with AGENTLS_CI=1 two skipped editors passed:\n%s", out)
	}
	if !strings.HasSuffix(out, "FAIL: in CI every editor runs: SKIP aaa: no aaa found\nFAIL: in CI every editor runs: SKIP bbb-2: bbb 2 missing\n") {
		t.Errorf("the CI run does not end with the failing skips:\n%s", out)
	}
}
