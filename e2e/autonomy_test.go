package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.lsp.dev/protocol"
)

// Unattended work (issue 22): a budget with a graceful end, the model's
// plan in every front end, and commands that run in the sandbox without
// a question.

// turn is one scripted model answer; calls are [name, arguments] pairs.
type turn struct {
	text   string
	calls  [][2]any
	expect map[string]string
}

// scriptOf renders turns as a fakellm script, call IDs c1, c2, … in order.
func scriptOf(turns ...turn) string {
	var out []map[string]any
	n := 0
	for _, t := range turns {
		m := map[string]any{}
		if t.text != "" {
			m["text"] = t.text
		}
		if t.expect != nil {
			m["expect"] = t.expect
		}
		var calls []map[string]any
		for _, c := range t.calls {
			n++
			args, _ := json.Marshal(c[1])
			calls = append(calls, map[string]any{"id": fmt.Sprintf("c%d", n), "name": c[0], "arguments": string(args)})
		}
		if calls != nil {
			m["toolCalls"] = calls
		}
		out = append(out, m)
	}
	b, _ := json.Marshal(map[string]any{"turns": out})
	return string(b)
}

func readTurn(limit int) turn {
	return turn{calls: [][2]any{{"read_file", map[string]any{"path": "hello.txt", "limit": limit}}}}
}

// A task of 120 model turns runs to its end under the default settings;
// before, agent.maxSteps was 25 and it stopped a fifth of the way.
func TestLongTaskCompletesUnderDefaults(t *testing.T) {
	var turns []turn
	for i := 1; i <= 120; i++ {
		turns = append(turns, readTurn(i))
	}
	turns = append(turns, turn{text: "Read it 120 times."})
	s := start(t, setup{workspace: "hello", script: scriptOf(turns...)})
	r := s.run(t, map[string]any{"task": "read a lot"})
	if r.Status != "ok" || r.Reason != "done" {
		t.Fatalf("status %q reason %q error %q", r.Status, r.Reason, r.Error)
	}
	if n := len(s.LLM.Requests()); n != 121 {
		t.Errorf("%d model requests, want 121", n)
	}
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "budget" {
			t.Errorf("warned about the budget with the defaults: %v", ev["text"])
		}
	}
}

// At its limit a task is warned at 80%, gets one turn without tools for a
// summary, its changes are checked, and it ends with reason maxSteps, in
// the end event, the result and the progress's end message. Before, it
// stopped dead after the last tool call: no warning, no summary, no checks.
func TestTaskAtItsLimitIsWarnedSummarisedAndChecked(t *testing.T) {
	turns := []turn{{calls: [][2]any{{"read_file", map[string]any{"path": "hello.txt"}}, {"edit_file", map[string]any{"path": "hello.txt", "old_string": "hello", "new_string": "goodbye"}}}}}
	for i := 2; i <= 5; i++ {
		turns = append(turns, readTurn(i))
	}
	turns = append(turns, turn{text: "Summary: hello.txt now says goodbye; nothing is left.", expect: map[string]string{"lastUserContains": "must stop"}})
	s := start(t, setup{workspace: "hello", script: scriptOf(turns...), settings: map[string]any{
		"agent":  map[string]any{"maxSteps": 5},
		"verify": map[string]any{"enabled": true, "commands": []string{"grep -q goodbye hello.txt"}},
	}})
	r := s.run(t, map[string]any{"task": "say goodbye"})
	if r.Reason != "maxSteps" || !r.Verified || !strings.Contains(r.Summary, "now says goodbye") {
		t.Fatalf("result %+v; want reason maxSteps, verified, with the summary", r)
	}
	reqs := s.LLM.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 5 and the summary turn", len(reqs))
	}
	// The warning rides on the 5th request (after 4 of 5 turns), once.
	warned := 0
	for i, req := range reqs {
		msgs := req.Body.Messages
		last := msgs[len(msgs)-1]
		if last.Role == "user" && strings.Contains(last.Content, "Wrap up") {
			warned++
			if i != 4 {
				t.Errorf("warned on request %d, want 4", i)
			}
		}
		if tools := len(req.Body.Tools); (i == 5) != (tools == 0) {
			t.Errorf("request %d offers %d tools", i, tools)
		}
	}
	if warned != 1 {
		t.Errorf("warned %d times, want once", warned)
	}
	// The end event and the progress end are notifications: they may
	// reach the client after the agentls.wait reply (seen under -race).
	s.WaitFor(testWait, func() bool {
		ended := false
		for _, ev := range s.Events(r.TaskID) {
			ended = ended || ev["kind"] == "end"
		}
		for _, n := range s.Notes(protocol.MethodProgress) {
			var p struct{ Value struct{ Kind string } }
			if ended && json.Unmarshal(n.Params, &p) == nil && p.Value.Kind == "end" {
				return true
			}
		}
		return false
	})
	var budget, verify int
	var end map[string]any
	for _, ev := range s.Events(r.TaskID) {
		switch ev["kind"] {
		case "budget":
			budget++
		case "verify":
			verify++
		case "end":
			end, _ = ev["result"].(map[string]any)
		}
	}
	if budget != 2 || verify != 1 || end == nil || end["reason"] != "maxSteps" {
		t.Errorf("budget events %d (want 2), verify events %d (want 1), end %v", budget, verify, end)
	}
	var endMsg string
	for _, n := range s.Notes(protocol.MethodProgress) {
		var p struct {
			Value struct{ Kind, Message string }
		}
		if json.Unmarshal(n.Params, &p) == nil && p.Value.Kind == "end" {
			endMsg = p.Value.Message
		}
	}
	if !strings.Contains(endMsg, "step limit") || !strings.Contains(endMsg, "Summary") {
		t.Errorf("progress end message %q; want the limit and the summary", endMsg)
	}
}

var planTurns = []turn{
	{calls: [][2]any{{"update_plan", map[string]any{"plan": []map[string]string{
		{"step": "Read hello.txt", "status": "in_progress"}, {"step": "Say goodbye", "status": "pending"}}}}}},
	{calls: [][2]any{{"update_plan", map[string]any{"explanation": "read it", "plan": []map[string]string{
		{"step": "Read hello.txt", "status": "completed"}, {"step": "Say goodbye", "status": "in_progress"}}}}}},
	{text: "Planned."},
}

// update_plan reaches the LSP client three ways: $/progress, the
// agentls/event stream and the transcript in window/logMessage.
func TestPlanReachesTheLSPClient(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: scriptOf(planTurns...)})
	r := s.run(t, map[string]any{"task": "plan"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	var plans []string
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] != "plan" {
			continue
		}
		p, _ := ev["plan"].(map[string]any)
		steps, _ := p["plan"].([]any)
		var parts []string
		for _, st := range steps {
			m, _ := st.(map[string]any)
			parts = append(parts, fmt.Sprintf("%v=%v", m["step"], m["status"]))
		}
		plans = append(plans, strings.Join(parts, ","))
	}
	want := []string{"Read hello.txt=in_progress,Say goodbye=pending", "Read hello.txt=completed,Say goodbye=in_progress"}
	if strings.Join(plans, "|") != strings.Join(want, "|") {
		t.Errorf("plan events %q, want %q", plans, want)
	}
	var reports []string
	for _, n := range s.Notes(protocol.MethodProgress) {
		var p struct {
			Value struct{ Kind, Message string }
		}
		if json.Unmarshal(n.Params, &p) == nil && p.Value.Kind == "report" {
			reports = append(reports, p.Value.Message)
		}
	}
	if !containsAll(strings.Join(reports, "\n"), "plan 0/2: Read hello.txt", "plan 1/2: Say goodbye") {
		t.Errorf("progress reports %q lack the plan", reports)
	}
	var logs []string
	for _, n := range s.Notes(protocol.MethodWindowLogMessage) {
		var p protocol.LogMessageParams
		if json.Unmarshal(n.Params, &p) == nil {
			logs = append(logs, p.Message)
		}
	}
	if !containsAll(strings.Join(logs, "\n"), "[x] Read hello.txt", "[>] Say goodbye") {
		t.Errorf("the transcript lacks the plan:\n%s", strings.Join(logs, "\n"))
	}
}

// update_plan is ACP's plan update: the model's steps and statuses, and
// the fixed two-line plan is not sent once the model has one.
func TestPlanReachesTheACPClient(t *testing.T) {
	r := startACP(t, "hello", scriptOf(planTurns...), false, nil)
	id := r.newSession(t)
	if res := r.prompt(t, id, "plan"); res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", res.StopReason)
	}
	var plans []string
	for _, u := range r.client.snapshot() {
		if u.Plan == nil {
			continue
		}
		var parts []string
		for _, e := range u.Plan.Entries {
			parts = append(parts, fmt.Sprintf("%s=%s", e.Content, e.Status))
		}
		plans = append(plans, strings.Join(parts, ","))
	}
	// The machine's own plan before the model's; nothing of it after.
	var model []string
	for i, p := range plans {
		if strings.HasPrefix(p, "Read hello.txt") {
			model = plans[i:]
			break
		}
	}
	want := []string{"Read hello.txt=in_progress,Say goodbye=pending", "Read hello.txt=completed,Say goodbye=in_progress"}
	if strings.Join(model, "|") != strings.Join(want, "|") {
		t.Errorf("plan updates %q; want the model's plans %q, and nothing after them", plans, want)
	}
}

// headless runs `agentls run` without a terminal in dir against script,
// with more flags, and returns its stderr and exit code.
func headless(t *testing.T, dir, script string, args ...string) (string, int) {
	t.Helper()
	_, base := startModel(t, script)
	env := append(cleanEnv(), "AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model",
		"XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	cmd := exec.Command(binary, append([]string{"run", "--base-url", base, "--no-verify"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stderr.String(), 0
	case errors.As(err, &exit):
		return stderr.String(), exit.ExitCode()
	}
	t.Fatalf("agentls run: %v\n%s", err, stderr.String())
	return "", -1
}

// The CLI shows the plan as it changes and in the transcript; at its limit
// a headless run says why it stopped and exits 1.
func TestHeadlessPlanAndLimit(t *testing.T) {
	turns := append(append([]turn(nil), planTurns[:2]...), turn{text: "Summary: planned only.", expect: map[string]string{"lastUserContains": "must stop"}})
	out, code := headless(t, copyWorkspace(t, "hello"), scriptOf(turns...), "--max-steps", "2", "plan it")
	if code != 1 {
		t.Errorf("exit code %d, want 1 (stopped at the limit)\n%s", code, out)
	}
	if !containsAll(out, "plan (0 of 2 done)", "[>] Read hello.txt", "plan (1 of 2 done)", "[x] Read hello.txt", "[>] Say goodbye",
		"Summary: planned only.", "stopped at the step limit: 2 model turns", "── stopped: step limit ·") {
		t.Errorf("output lacks the plan or the limit:\n%s", out)
	}
	i := strings.Index(out, "transcript: ")
	if i < 0 {
		t.Fatalf("no transcript path:\n%s", out)
	}
	path := strings.TrimSpace(strings.SplitN(out[i+len("transcript: "):], "\n", 2)[0])
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !containsAll(string(md), "### Plan (1 of 2 done)", "- [>] Say goodbye", "- stopped: step limit ·") {
		t.Errorf("transcript lacks the plan or the limit:\n%s", md)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// goTestTurns run `go test ./...` mid-task; the model's next turn expects
// its result, so a refusal fails the script.
var goTestTurns = []turn{
	{calls: [][2]any{{"run_command", map[string]any{"command": "go test ./..."}}}},
	{text: "The test fails as expected.", expect: map[string]string{"lastToolContains": "--- FAIL: TestGreeting"}},
}

// With the defaults a mid-task `go test` runs in the sandbox without a
// question. Before, every command was asked about.
func TestSandboxedGoTestRunsUnasked(t *testing.T) {
	s := start(t, setup{workspace: "demo", script: scriptOf(goTestTurns...)})
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		return &p.Actions[0]
	}
	r := s.run(t, map[string]any{"task": "run the tests"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if len(asked) != 0 {
		t.Errorf("asked %q; want go test to run unasked in the sandbox", asked)
	}
}

// A command that wants the network runs in the sandbox without it, and
// the user is asked before it runs again with network; a no keeps it off.
// A command the parser cannot see through is still asked about.
func TestLeavingTheSandboxIsAsked(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "curl -sS --max-time 10 http://example.com/"}}}},
		turn{calls: [][2]any{{"run_command", map[string]any{"command": `eval "touch made.txt"`}}}, expect: map[string]string{"lastToolContains": "had no network"}},
		turn{text: "done", expect: map[string]string{"lastToolContains": "denied"}},
	)})
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		return &p.Actions[len(p.Actions)-1] // no
	}
	r := s.run(t, map[string]any{"task": "fetch"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "failed without network") || !strings.Contains(asked[1], "wants to run") || !strings.Contains(asked[1], "eval") {
		t.Errorf("asked %q; want the network question, then the eval command", asked)
	}
	if out := toolOutputs(s); strings.Contains(out, "[run again with network") {
		t.Errorf("the command ran again with network although the user said no:\n%s", out)
	}
	if fileExists(filepath.Join(s.Root, "made.txt")) {
		t.Error("the refused command ran")
	}
}

// Headless, the same `go test` runs unasked; before, it was refused for
// want of a terminal.
func TestHeadlessGoTestRunsUnasked(t *testing.T) {
	out, code := headless(t, copyWorkspace(t, "demo"), scriptOf(goTestTurns...), "run the tests")
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, out)
	}
}

// Headless, a command that needs a question nobody can answer is refused
// and the run ends with reason approval and exit code 1; before, it ended
// "ok" with exit code 0. Network is never given without a yes.
func TestHeadlessRefusalEndsNonZero(t *testing.T) {
	for _, c := range []struct{ name, command, why string }{
		{"unparsable", `eval "touch made.txt"`, "eval"},
		{"network", "curl -sS --max-time 10 http://example.com/", "needs the network"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyWorkspace(t, "hello")
			out, code := headless(t, dir, scriptOf(
				turn{calls: [][2]any{{"run_command", map[string]any{"command": c.command}}}},
				turn{text: "I could not run it."},
			), "--json", "do it")
			if code != 1 {
				t.Errorf("exit code %d, want 1\n%s", code, out)
			}
			var end map[string]any
			for _, l := range strings.Split(out, "\n") {
				var ev map[string]any
				if json.Unmarshal([]byte(l), &ev) == nil && ev["kind"] == "end" {
					end, _ = ev["result"].(map[string]any)
				}
			}
			if end == nil || end["reason"] != "approval" || !strings.Contains(fmt.Sprint(end["error"]), c.why) {
				t.Errorf("end %v; want reason approval naming %q", end, c.why)
			}
			if fileExists(filepath.Join(dir, "made.txt")) || strings.Contains(out, "[run again with network") {
				t.Errorf("the refused command ran:\n%s", out)
			}
		})
	}
}

// Where the sandbox is unavailable, tools.approval "sandboxed" admits
// nothing: the plainest command is asked about.
func TestWithoutSandboxSandboxedApprovalAsks(t *testing.T) {
	s := start(t, setup{script: runCommandScript("true"), env: []string{"AGENTLS_TEST_NO_SANDBOX=1"}})
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		return &protocol.MessageActionItem{Title: "Deny"}
	}
	s.run(t, map[string]any{"task": "run"})
	if len(asked) != 1 || !strings.Contains(asked[0], "wants to run") {
		t.Errorf("asked %q; want the command asked about", asked)
	}
}

// tools.approval "never" asks nothing: a plain command runs in the
// sandbox, one that would be asked about is refused, saying why.
func TestApprovalNeverAsksNothing(t *testing.T) {
	s := start(t, setup{workspace: "hello", settings: map[string]any{"tools": map[string]any{"approval": "never"}}, script: scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "cat hello.txt"}}}},
		turn{calls: [][2]any{{"run_command", map[string]any{"command": `eval "touch made.txt"`}}}, expect: map[string]string{"lastToolContains": "hello world"}},
		turn{text: "done", expect: map[string]string{"lastToolContains": `tools.approval is "never"`}},
	)})
	r := s.run(t, map[string]any{"task": "run"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if n := len(s.Notes(protocol.MethodWindowShowMessageRequest)); n != 0 {
		t.Errorf("asked %d questions under tools.approval never", n)
	}
	if fileExists(filepath.Join(s.Root, "made.txt")) {
		t.Error("the refused command ran")
	}
}

// A command mid-task sees the editor's unsaved text, as the checks do: a
// buffer edited into a build error makes `go test` fail. Before, the
// command ran on the saved files and passed.
func TestCommandSeesUnsavedBuffers(t *testing.T) {
	s := start(t, setup{files: map[string]string{
		"go.mod":    "module m\n\ngo 1.21\n",
		"m.go":      "package m\n\nfunc Two() int { return 2 }\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(Two())\n\t}\n}\n",
	}, script: scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "go test ./..."}}}},
		turn{text: "The build is broken.", expect: map[string]string{"lastToolContains": "FAIL"}},
	)})
	if err := s.Open(s.ctx, "m.go", "package m\n\nfunc Two() int { return \"two\" }\n"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "test it"})
	if r.Status != "ok" {
		t.Fatalf("%+v\n%s", r, toolOutputs(s))
	}
	if !strings.Contains(toolOutputs(s), "m.go:3") {
		t.Errorf("go test did not report the buffer's error:\n%s", toolOutputs(s))
	}
}

// What a command writes lands where it belongs: a file the editor holds
// is changed in the editor by an applyEdit, keeping what the user typed
// (the disk stays as saved); other files are written and deleted on disk.
// Before, the command rewrote the saved file, dropping the user's unsaved
// line from what the editor would save next, and the buffer never knew.
func TestCommandWritesReachTheEditor(t *testing.T) {
	s := start(t, setup{workspace: "hello", files: map[string]string{"old.txt": "old\n"}, script: scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "sed -i 's/hello/goodbye/' hello.txt && echo made > new.txt && rm old.txt"}}}},
		turn{text: "Done."},
	)})
	typed := "hello world\nsecond line\nthe user typed this\n"
	if err := s.Open(s.ctx, "hello.txt", typed); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "rewrite"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if got, _ := s.Text("hello.txt"); got != "goodbye world\nsecond line\nthe user typed this\n" {
		t.Errorf("buffer %q; want the command's change with the user's line kept", got)
	}
	if disk, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt")); string(disk) != "hello world\nsecond line\n" {
		t.Errorf("the open file's disk copy changed: %q", disk)
	}
	var edited bool
	for _, e := range s.Edits() {
		if b, _ := json.Marshal(e); strings.Contains(string(b), "hello.txt") {
			edited = true
		}
	}
	if !edited {
		t.Error("no applyEdit for hello.txt")
	}
	if b, err := os.ReadFile(filepath.Join(s.Root, "new.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("new.txt on disk: %q, %v", b, err)
	}
	if fileExists(filepath.Join(s.Root, "old.txt")) {
		t.Error("old.txt was not deleted")
	}
}

// Over ACP a task at its limit streams the model's summary and ends with
// stopReason max_turn_requests.
func TestACPLimitEndsWithASummary(t *testing.T) {
	r := startACP(t, "hello", scriptOf(readTurn(1), turn{text: "Summary: read hello.txt.", expect: map[string]string{"lastUserContains": "must stop"}}),
		false, map[string]any{"agent": map[string]any{"maxSteps": 1}})
	id := r.newSession(t)
	if res := r.prompt(t, id, "read"); res.StopReason != sdk.StopReasonMaxTurnRequests {
		t.Fatalf("stop reason %q, want max_turn_requests", res.StopReason)
	}
	if _, _, text := toolCalls(r.client.snapshot()); !strings.Contains(text, "Summary: read hello.txt.") {
		t.Errorf("the summary was not streamed: %q", text)
	}
}

// The user types while a command runs: the command's change goes onto
// the buffer as it is then. A line only the user changed keeps the user's
// text and the command's change elsewhere lands; a line both changed keeps
// the user's text, and the model is told.
func TestCommandWriteMergesWithTyping(t *testing.T) {
	dir := t.TempDir()
	began, flag := filepath.Join(dir, "began"), filepath.Join(dir, "go-on")
	cmd := "sed -i 's/hello/goodbye/; s/third/THIRD/' hello.txt; touch " + began + "; while [ ! -e " + flag + " ]; do sleep 0.05; done"
	// The command's /tmp is its own: the test's directory is declared
	// writable for it (sandbox.writableRoots) so the two can meet there.
	s := start(t, setup{workspace: "hello", script: scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": cmd}}}},
		turn{text: "Done.", expect: map[string]string{"lastToolContains": "the user edited line 1"}},
	), settings: map[string]any{"sandbox": map[string]any{"writableRoots": []string{dir}}}})
	if err := s.Open(s.ctx, "hello.txt", "hello world\nsecond line\nthird line\n"); err != nil {
		t.Fatal(err)
	}
	id, err := s.Run(s.ctx, map[string]any{"task": "rewrite"})
	if err != nil {
		t.Fatal(err)
	}
	// The command has run sed on the buffer's text in its view and waits.
	if !s.WaitFor(testWait, func() bool { return fileExists(began) }) {
		t.Fatal("the command never started")
	}
	// The user rewrites line 1 (which the command changes too) and line 2
	// (which it does not).
	if err := s.Type(s.ctx, "hello.txt", 0, len("hello world\nsecond line"), "hi there\nsecond line, edited"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := s.Wait(s.ctx, id, testWait)
	if err != nil || r.Status != "ok" {
		t.Fatalf("%+v %v\n%s", r, err, toolOutputs(s))
	}
	if got, _ := s.Text("hello.txt"); got != "hi there\nsecond line, edited\nTHIRD line\n" {
		t.Errorf("buffer %q; want the user's lines 1 and 2 and the command's line 3", got)
	}
}
