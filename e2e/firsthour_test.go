package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCLIStatus runs the binary in dir and returns its exit status and
// stderr; unlike runCLI a non-zero status is not a failure.
func runCLIStatus(t *testing.T, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatalf("agentls %s: %v", strings.Join(args, " "), err)
	return 0, ""
}

// The README's no-key path ("Try it"): `make demo-cli` replays a recording made by
// `agentls run` on a copy of the demo workspace, with no key, no endpoint
// and no network, and the edit lands and passes the checks.
func TestCLIRunsWithoutAKeyFromTheDemoRecording(t *testing.T) {
	dir := copyWorkspace(t, "demo")
	rec, err := filepath.Abs(filepath.Join("..", "testdata", "recordings", "demo-cli.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	env := append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir())
	code, out := runCLIStatus(t, dir, env, "run", "--replay", rec, "Make greet_test.go pass")
	if code != 0 || !strings.Contains(out, "ok, verified") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "greet.go"))
	if !strings.Contains(string(b), `"Hello, %s!"`) {
		t.Fatalf("greet.go not edited:\n%s", b)
	}
}

// With no key and no endpoint set, agentls run says what to set instead
// of failing on the default host's DNS lookup.
func TestCLIWithoutKeyOrEndpointSaysWhatToSet(t *testing.T) {
	dir := copyWorkspace(t, "hello")
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out := runCLIStatus(t, dir, append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir()), "run", "say hi")
	if code != 2 || !strings.Contains(out, "AGENTLS_API_KEY") || !strings.Contains(out, "--base-url") ||
		!strings.Contains(out, "make demo-cli") || strings.Contains(out, "no such host") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// Started in the home directory (no project), agentls run without a
// terminal refuses and says how to mean it; a folder with no project
// marker is warned about.
func TestCLIRefusesTheHomeDirectoryAsWorkspace(t *testing.T) {
	home := copyWorkspace(t, "")
	env := append(cleanEnv(), "HOME="+home, "XDG_STATE_HOME="+t.TempDir(), "AGENTLS_API_KEY=sk-test", "AGENTLS_MODEL=m")
	code, out := runCLIStatus(t, home, env, "run", "--base-url", "http://127.0.0.1:1/v1", "tidy up")
	if code != 2 || !strings.Contains(out, "refusing to make your home directory") || !strings.Contains(out, "--workspace") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".local")); err == nil {
		t.Error("it wrote into the home directory")
	}

	_, base := startModel(t, "hello.json")
	sub := filepath.Join(home, "notes")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out = runCLIStatus(t, sub, env, "run", "--base-url", base, "say hi")
	if code != 0 || !strings.Contains(out, sub+" (no project marker here or above: this folder is the workspace)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// A task that never reached the model (connection refused) leaves no
// session to continue and is not an "earlier task" of the next one.
func TestCLISetupFailureIsNotRemembered(t *testing.T) {
	dir := copyWorkspace(t, "hello")
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir(), "AGENTLS_API_KEY=sk-test", "AGENTLS_MODEL=m")
	code, out := runCLIStatus(t, dir, env, "run", "--base-url", "http://127.0.0.1:1/v1", "rename the FIRSTPROMPT helper")
	if code != 1 || strings.Contains(out, "continue it with") || !strings.Contains(out, "nothing was recorded") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, list := runCLIStatus(t, dir, env, "sessions", "list", "--json")
	if code != 0 || strings.Contains(list, "FIRSTPROMPT") {
		t.Fatalf("sessions list (exit %d): %s", code, list)
	}
	llm, base := startModel(t, "hello.json")
	runCLI(t, dir, env, "run", "--base-url", base, "say hi")
	for _, m := range llm.Requests()[0].Body.Messages {
		if strings.Contains(m.Content, "FIRSTPROMPT") {
			t.Fatalf("the failed task reached the next prompt:\n%s", m.Content)
		}
	}
}

// A typo'd key in .agentls.json is reported with its line and column and
// the key meant.
func TestCLIConfigTypoSaysWhereAndWhatWasMeant(t *testing.T) {
	dir := copyWorkspace(t, "hello")
	if err := os.WriteFile(filepath.Join(dir, ".agentls.json"), []byte("{\n  \"agent\": {\n    \"maxStep\": 3\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, base := startModel(t, "hello.json")
	env := append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir(), "AGENTLS_API_KEY=sk-test", "AGENTLS_MODEL=m")
	out := runCLI(t, dir, env, "run", "--base-url", base, "say hi")
	if !strings.Contains(out, `line 3, column 5: unknown setting; did you mean "agent.maxSteps"?`) {
		t.Fatalf("stderr:\n%s", out)
	}
}
