package e2e

import (
	"os/exec"
	"strings"
	"testing"
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
	for _, want := range []string{"status ok, verified true", `+	return fmt.Sprintf("Hello, %s!", name)`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
