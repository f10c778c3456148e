package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// Sub-agents (issue 34): the explore tool hands a question to a helper
// with a fresh context; several run at once, their answers come back in
// order, and only the answers join the task's conversation.

const (
	questionA   = "Where is the session timeout enforced?"
	questionB   = "Who calls Greet?"
	exploreTask = "make the timeout configurable"
)

var exploreFiles = map[string]string{
	"session.go": "package main\n\nfunc expire() { timeout := 30; _ = timeout }\n",
	"main.go":    "package main\n\nfunc main() {\n\t_ = 1\n\tGreet()\n}\n",
	"greet.go":   "package main\n\nfunc Greet() {}\n",
}

// exploreScript: the task explores twice in one turn; each helper reads
// and answers; the task then finishes. Each of the three conversations
// (fakellm's Conversations: keyed by the first user message, the task's
// prompt or a helper's question) is answered by its own turns, whatever
// order the requests come in. Every turn costs 100 tokens in and 10 out,
// so the task's totals say whose calls were counted.
func exploreScript(t *testing.T) string {
	t.Helper()
	u := map[string]int{"prompt_tokens": 100, "completion_tokens": 10}
	args := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	convs := map[string][]map[string]any{
		exploreTask: {
			{"text": "I will look around first.", "usage": u, "toolCalls": []map[string]any{
				{"id": "e1", "name": "explore", "arguments": args(map[string]string{"question": questionA})},
				{"id": "e2", "name": "explore", "arguments": args(map[string]string{"question": questionB})},
			}},
			{"usage": u, "expect": map[string]string{"lastToolContains": "main.go:5"}, "text": "Both found."},
		},
		// Helper A is slow to answer its first turn, so helper B's
		// requests come while A's is still held back.
		questionA: {
			{"usage": u, "delayMs": 1500, "toolCalls": []map[string]any{{"id": "a1", "name": "read_file", "arguments": args(map[string]string{"path": "session.go"})}}},
			{"usage": u, "expect": map[string]string{"lastToolContains": "timeout := 30"}, "text": "The timeout is enforced in session.go:3 (expire)."},
		},
		questionB: {
			{"usage": u, "toolCalls": []map[string]any{{"id": "b1", "name": "grep", "arguments": args(map[string]string{"pattern": "Greet\\("})}}},
			{"usage": u, "expect": map[string]string{"lastToolContains": "main.go"}, "text": "Greet is called from main.go:5."},
		},
	}
	b, _ := json.Marshal(map[string]any{"conversations": convs})
	return string(b)
}

// conversationOf is which of the script's conversations a request belongs
// to: the key its first user message holds.
func conversationOf(r fakellm.RecordedRequest, keys ...string) string {
	for _, m := range r.Body.Messages {
		if m.Role != "user" {
			continue
		}
		for _, k := range keys {
			if strings.Contains(m.Content, k) {
				return k
			}
		}
		return ""
	}
	return ""
}

func exploreWorkspace(t *testing.T) string {
	t.Helper()
	dir := copyWorkspace(t, "hello")
	for rel, body := range exploreFiles {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runHeadless runs `agentls run` in dir against the fake model at base.
func runHeadless(t *testing.T, dir, base string, args ...string) (string, int) {
	t.Helper()
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

// checkExploreRequests holds what issue 34 asks of the requests: the
// helpers' hold their question, the task's stable prefix and tools, and
// none of the task's messages; the task's next request holds the two
// answers in call order and none of what the helpers read.
func checkExploreRequests(t *testing.T, llm *fakellm.Server) {
	t.Helper()
	reqs := llm.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6: %v", len(reqs), turnsOf(reqs))
	}
	parent := reqs[0].Body
	var nested []fakellm.ChatRequest
	var last fakellm.ChatRequest
	// Where each helper's requests came in the order of arrival.
	at := map[string][]int{}
	for i, r := range reqs {
		if r.Turn < 0 {
			t.Fatalf("request %d had no turn: %+v", i, r.Body.Messages)
		}
		c := conversationOf(r, exploreTask, questionA, questionB)
		at[c] = append(at[c], i)
		switch {
		case c == questionA || c == questionB:
			nested = append(nested, r.Body)
		case c == exploreTask && i > 0:
			last = r.Body
		}
	}
	if len(nested) != 4 || last.Model == "" {
		t.Fatalf("conversations of the requests: %v", at)
	}
	// The helpers ran at once: helper B's requests came while helper A's
	// first answer was held back (1.5 s), before A's second request.
	if len(at[questionA]) != 2 || len(at[questionB]) != 2 || at[questionB][0] > at[questionA][1] {
		t.Errorf("the helpers ran one after the other (requests in arrival order: %v)", at)
	}
	toolNames := func(r fakellm.ChatRequest) string {
		b, _ := json.Marshal(r.Tools)
		return string(b)
	}
	for i, r := range nested {
		all, _ := json.Marshal(r.Messages)
		if strings.Contains(string(all), exploreTask) || strings.Contains(string(all), "I will look around first") {
			t.Errorf("helper request %d holds the task's messages:\n%s", i, all)
		}
		if r.Messages[0].Role != "system" || r.Messages[0].Content != parent.Messages[0].Content {
			t.Errorf("helper request %d does not start with the task's system prompt (no shared cache prefix)", i)
		}
		if toolNames(r) != toolNames(parent) {
			t.Errorf("helper request %d offers other tools than the task (no shared cache prefix)", i)
		}
		if r.Messages[1].Role != "user" || !(strings.Contains(r.Messages[1].Content, questionA) || strings.Contains(r.Messages[1].Content, questionB)) {
			t.Errorf("helper request %d's first message is not its question: %+v", i, r.Messages[1])
		}
	}
	var tools []fakellm.Message
	for _, m := range last.Messages {
		if m.Role == "tool" {
			tools = append(tools, m)
		}
	}
	if len(tools) != 2 || tools[0].ToolCallID != "e1" || !strings.Contains(tools[0].Content, "session.go:3") ||
		tools[1].ToolCallID != "e2" || !strings.Contains(tools[1].Content, "main.go:5") {
		t.Errorf("the task's results are not the two answers in order: %+v", tools)
	}
	all, _ := json.Marshal(last.Messages)
	if strings.Contains(string(all), "timeout := 30") || strings.Contains(string(all), "func Greet") {
		t.Errorf("the task's next request holds what the helpers read:\n%s", all)
	}
}

func turnsOf(reqs []fakellm.RecordedRequest) []int {
	var out []int
	for _, r := range reqs {
		out = append(out, r.Turn)
	}
	return out
}

func TestExploreTwiceInOneTurnHeadless(t *testing.T) {
	dir := exploreWorkspace(t)
	llm, base := startModel(t, exploreScript(t))
	out, code := runHeadless(t, dir, base, exploreTask)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	checkExploreRequests(t, llm)
	// The helpers' steps show under the task's explore calls; the totals
	// count their four calls with the task's two.
	if !containsAll(out, "→ explore "+questionA, "→ explore "+questionB, "│ explore (Where is the session timeout enforced?) → read_file session.go",
		"│ explore (Who calls Greet?) → grep Greet\\(", "│ explore (Who calls Greet?) ── ok", "600 in / 60 out tokens") {
		t.Errorf("output lacks the nested steps or the totals:\n%s", out)
	}
	i := strings.Index(out, "transcript: ")
	if i < 0 {
		t.Fatalf("no transcript path:\n%s", out)
	}
	md, err := os.ReadFile(strings.TrimSpace(strings.SplitN(out[i+len("transcript: "):], "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !containsAll(string(md), "    - explore (Where is the session timeout enforced?) → read_file session.go", "    - explore (Who calls Greet?) → grep Greet") {
		t.Errorf("the transcript lacks the nested steps:\n%s", md)
	}
}

// A helper only reads (one helper: the script's turns in order serve the
// task and it): its edit is refused before anything runs, and its
// command runs in the read-only sandbox, which lets it write nothing.
func TestExploreCannotWrite(t *testing.T) {
	dir := exploreWorkspace(t)
	args := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	script, _ := json.Marshal(map[string]any{"turns": []map[string]any{
		{"toolCalls": []map[string]any{{"id": "e1", "name": "explore", "arguments": args(map[string]string{"question": "Can you write?"})}}},
		{"toolCalls": []map[string]any{
			{"id": "w1", "name": "edit_file", "arguments": args(map[string]string{"path": "hello.txt", "old_string": "hello", "new_string": "pwned"})},
			{"id": "w2", "name": "run_command", "arguments": args(map[string]string{"command": "echo pwned > made.txt; echo pwned >> hello.txt"})},
			{"id": "w3", "name": "explore", "arguments": args(map[string]string{"question": "deeper"})},
		}},
		{"expect": map[string]string{"lastToolContains": "helper"}, "text": "I could not write."},
		{"expect": map[string]string{"lastToolContains": "I could not write."}, "text": "Done."},
	}})
	llm, base := startModel(t, string(script))
	out, code := runHeadless(t, dir, base, "--allow", "*", "try")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Errorf("the helper's command wrote made.txt")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "hello.txt")); strings.Contains(string(b), "pwned") {
		t.Errorf("the helper changed hello.txt: %q", b)
	}
	reqs := llm.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	results := map[string]string{}
	for _, m := range reqs[2].Body.Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	if !strings.Contains(results["w1"], "refused: edit_file is not available here") {
		t.Errorf("the helper's edit was not refused: %q", results["w1"])
	}
	if !strings.Contains(results["w2"], "Read-only file system") && !strings.Contains(results["w2"], "refused") {
		t.Errorf("the helper's writing command was neither refused nor kept read-only: %q", results["w2"])
	}
	if !strings.Contains(results["w3"], "cannot start helpers") {
		t.Errorf("the helper started a helper: %q", results["w3"])
	}
	if !containsAll(out, "│ explore (Can you write?) ✗ edit_file: refused") {
		t.Errorf("the refusal is not shown under the call:\n%s", out)
	}
}

// A helper that reaches its step bound (agent.subagentSteps) answers
// with what it found so far, in a last turn without tools.
func TestExploreStepBoundReturnsWhatItFound(t *testing.T) {
	dir := exploreWorkspace(t)
	if err := os.WriteFile(filepath.Join(dir, ".agentls.json"), []byte(`{"agent":{"subagentSteps":2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	read := func(p string) map[string]any {
		return map[string]any{"toolCalls": []map[string]any{{"name": "read_file", "arguments": args(map[string]string{"path": p})}}}
	}
	script, _ := json.Marshal(map[string]any{"turns": []map[string]any{
		{"toolCalls": []map[string]any{{"id": "e1", "name": "explore", "arguments": args(map[string]string{"question": "Look everywhere"})}}},
		read("main.go"), read("greet.go"),
		{"expect": map[string]string{"lastUserContains": "must stop"}, "text": "So far: Greet is in greet.go:3."},
		{"expect": map[string]string{"lastToolContains": "So far: Greet is in greet.go:3."}, "text": "Done."},
	}})
	llm, base := startModel(t, string(script))
	out, code := runHeadless(t, dir, base, "look")
	if code != 0 || llm.Pending() != 0 {
		t.Fatalf("exit %d, %d turns left\n%s", code, llm.Pending(), out)
	}
	reqs := llm.Requests()
	var answer string
	for _, m := range reqs[len(reqs)-1].Body.Messages {
		if m.Role == "tool" && m.ToolCallID == "e1" {
			answer = m.Content
		}
	}
	if !containsAll(answer, "stopped at its limit", "what it found so far", "So far: Greet is in greet.go:3.", "read_file") {
		t.Errorf("the answer at the bound: %q", answer)
	}
	if len(reqs[3].Body.Tools) != 0 {
		t.Errorf("the helper's last turn was offered tools")
	}
}

// The editor sees the helpers' steps inside the task: agentls/event
// notifications of kind nested under each explore call, progress reports
// and log lines; the task's totals count the helpers' tokens.
func TestExploreInTheEditor(t *testing.T) {
	// A price for every model, so the totals carry a cost: $1,000 and
	// $10,000 per million tokens make 600 in / 60 out cost $1.20, and the
	// task's own two calls alone $0.40.
	prices := map[string]any{"*": map[string]any{"input": 1000, "output": 10000}}
	s := start(t, setup{workspace: "hello", files: exploreFiles, script: exploreScript(t),
		settings: map[string]any{"llm": map[string]any{"prices": prices}}})
	r := s.run(t, map[string]any{"task": exploreTask})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	checkExploreRequests(t, s.LLM)
	nested := map[string][]string{}
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] != "nested" {
			continue
		}
		call, _ := ev["call"].(map[string]any)
		inner, _ := ev["nested"].(map[string]any)
		step := fmt.Sprint(inner["kind"])
		if c, ok := inner["call"].(map[string]any); ok {
			step += " " + fmt.Sprint(c["name"])
		}
		nested[fmt.Sprint(call["id"])] = append(nested[fmt.Sprint(call["id"])], step)
	}
	for _, id := range []string{"e1", "e2"} {
		if got := strings.Join(nested[id], ","); !strings.HasPrefix(got, "toolCall ") || !strings.HasSuffix(got, "end") {
			t.Errorf("nested steps of %s: %s", id, got)
		}
	}
	if got := strings.Join(nested["e1"], ","); got != "toolCall read_file,toolResult read_file,end" {
		t.Errorf("nested steps of e1: %s", got)
	}
	res := s.endResult(t, r.TaskID)
	usage, _ := res["usage"].(map[string]any)
	if usage["inputTokens"] != float64(600) || usage["outputTokens"] != float64(60) {
		t.Errorf("the task's totals do not count the helpers: %v", usage)
	}
	if cost, _ := res["cost"].(float64); math.Abs(cost-1.2) > 1e-9 {
		t.Errorf("the task's cost is $%v, not $1.20: the helpers' tokens are not priced into it", res["cost"])
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
	if !containsAll(strings.Join(reports, "\n"), "explore (Where is the session timeout enforced?) → read_file session.go", "explore (Who calls Greet?) → grep") {
		t.Errorf("progress reports lack the helpers' steps: %q", reports)
	}
}

// An ACP client sees each helper inside its explore tool call: the call's
// content is its trace while it runs, then the trace and the answer.
func TestExploreInACP(t *testing.T) {
	r := startACP(t, "hello", exploreScript(t), false, nil)
	for rel, body := range exploreFiles {
		if err := os.WriteFile(filepath.Join(r.root, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := r.newSession(t)
	if res := r.prompt(t, id, exploreTask); res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", res.StopReason)
	}
	checkExploreRequests(t, r.llm)
	ups := r.client.snapshot()
	starts, ends, _ := toolCalls(ups)
	for _, c := range []struct{ id, step, answer string }{
		{"e1", "explore (Where is the session timeout enforced?) → read_file session.go", "session.go:3"},
		{"e2", "explore (Who calls Greet?) → grep Greet", "main.go:5"},
	} {
		if st := starts[c.id]; st == nil || st.Kind != sdk.ToolKindSearch {
			t.Errorf("%s: no search tool call started: %+v", c.id, st)
		}
		running := false
		for _, u := range ups {
			if tu := u.ToolCallUpdate; tu != nil && string(tu.ToolCallId) == c.id && tu.Status == nil && strings.Contains(contentText(tu.Content), c.step) {
				running = true
			}
		}
		if !running {
			t.Errorf("%s: no update showed the helper's step %q while it ran", c.id, c.step)
		}
		end := ends[c.id]
		if end == nil || end.Status == nil || *end.Status != sdk.ToolCallStatusCompleted || !containsAll(contentText(end.Content), c.step, c.answer) {
			t.Errorf("%s: the call did not end with the trace and the answer: %+v", c.id, end)
		}
	}
}

func contentText(cs []sdk.ToolCallContent) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Content != nil && c.Content.Content.Text != nil {
			b.WriteString(c.Content.Content.Text.Text + "\n")
		}
	}
	return b.String()
}
