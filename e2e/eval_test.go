package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/eval"
	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// agentls-eval --scripted runs tasks end to end (the real binary, the
// scripted model playing each recorded solution through the recording
// proxy, the hidden tests in the sandbox) and reports them as JSON; a
// solution that does not fix the bug fails its task. The whole suite runs
// with make eval-scripted; here one task per language, and a broken one.
func TestEvalScripted(t *testing.T) {
	suite := t.TempDir()
	for _, name := range []string{"go-reverse-words", "py-roman", "ts-range"} {
		if _, err := lspclient.CopyTree(filepath.Join("..", "testdata", "eval", name), filepath.Join(suite, name)); err != nil {
			t.Fatal(err)
		}
	}
	// The same Python task with a "solution" that changes nothing the
	// hidden tests look at.
	if _, err := lspclient.CopyTree(filepath.Join("..", "testdata", "eval", "py-roman"), filepath.Join(suite, "py-roman-unfixed")); err != nil {
		t.Fatal(err)
	}
	noop := "*** Begin Patch\n*** Add File: NOTES.md\n+looked at it\n*** End Patch\n"
	if err := os.WriteFile(filepath.Join(suite, "py-roman-unfixed", "solution.patch"), []byte(noop), 0o644); err != nil {
		t.Fatal(err)
	}
	evalBin := filepath.Join(t.TempDir(), "agentls-eval")
	if out, err := exec.Command("go", "build", "-o", evalBin, "../cmd/agentls-eval").CombinedOutput(); err != nil {
		t.Fatalf("building agentls-eval: %v\n%s", err, out)
	}
	cmd := exec.Command(evalBin, "--agentls", binary, "--scripted", "--suite", suite, "--json", "-")
	cmd.Env = cleanEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agentls eval: %v\n%s", err, stderr.String())
	}
	var rep eval.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	if len(rep.Results) != 4 || rep.Total.Passed != 3 || rep.Model != eval.ScriptedModel {
		t.Fatalf("report: %d results, %d passed, model %s\n%s", len(rep.Results), rep.Total.Passed, rep.Model, stderr.String())
	}
	for _, r := range rep.Results {
		if r.Passed != (r.Task != "py-roman-unfixed") {
			t.Errorf("%s: passed %v (%s)", r.Task, r.Passed, r.Error)
		}
		if r.Status != "ok" || r.Turns != 3 || r.InputTokens == 0 || r.OutputTokens == 0 || r.Cost <= 0 || r.Cost >= r.CostNoCache {
			t.Errorf("%s: status %q, %d turns, tokens %d/%d, cost %v (no cache %v)", r.Task, r.Status, r.Turns, r.InputTokens, r.OutputTokens, r.Cost, r.CostNoCache)
		}
		// Each request repeats the whole previous one: all of it could
		// be served from a provider's cache.
		if r.MinPrevKept != 1 {
			t.Errorf("%s: a request kept only %.3f of the previous request as its prefix", r.Task, r.MinPrevKept)
		}
	}
	t.Logf("3 tasks and a broken one in %d ms; min share of input repeated from the previous request %.1f%%", rep.Total.WallMs, 100*rep.Total.MinPrefixShare)
}
