package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/need"
)

// make demo's recording still replays through the server: a change to the
// tools or prompts that the recording no longer matches fails here, and
// `make demo-record` makes it anew.
func TestDemoReplays(t *testing.T) {
	cmd := exec.Command("go", "run", "./cmd/demo", "-agentls", binary)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, want := range []string{"status ok, verified true", `+	return fmt.Sprintf("Hello, %s!", name)`,
		// Readable event lines (issue 13, item 16): edit_file's own words
		// rather than "ok (0 lines)", a summary on [verify] and [end].
		"[result] edit_file: ok: edited greet.go: 1 replacement, lines 8–11\n",
		"[verify] passed: 2 checks passed (go vet ./...; go test ./...)\n",
		"[end] ok, verified · 1 file changed · 3 steps"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"\n\n[", "[verify] {", "[end] {", "(0 lines)"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("demo output has %q:\n%s", bad, out)
		}
	}
}

// make demo says what it is doing before it compiles: on a fresh machine
// the build is a minute and a half of silence.
func TestMakeDemoSaysItIsBuilding(t *testing.T) {
	// Under make test this runs inside make: no directory lines, and none
	// of the outer make's variables.
	cmd := exec.Command("make", "-n", "--no-print-directory", "demo")
	cmd.Dir = ".."
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MAKELEVEL" && k != "MFLAGS" && k != "MAKEOVERRIDES" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		need.Missing(t, "make: %v\n%s", err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if !strings.HasPrefix(first, "echo ") || !strings.Contains(first, "building") {
		t.Errorf("make demo starts with %q, not a word about the build:\n%s", first, out)
	}
}
