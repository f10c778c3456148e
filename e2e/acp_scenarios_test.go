package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// A full task through a client that offers fs: the read and the edit go
// through the client (its buffer, not the disk, gets the new text), the
// edit's tool call carries the diff, and the verify gate checks the
// client's text and reports as a tool call.
func TestACPTaskThroughClientFS(t *testing.T) {
	r := startACP(t, "hello", readEditScript, true, map[string]any{
		"verify": map[string]any{"enabled": true, "commands": []string{"grep -q goodbye hello.txt"}},
	})
	id := r.newSession(t)
	start := time.Now()
	res := r.prompt(t, id, "Replace hello with goodbye in hello.txt")
	if res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q, want end_turn", res.StopReason)
	}
	ups := r.client.snapshot()
	t.Logf("first session/update %v after session/prompt; %d updates", r.client.first.Sub(start), len(ups))
	starts, ends, text := toolCalls(ups)
	if !strings.Contains(text, "Let me look.") || !strings.Contains(text, "goodbye") {
		t.Errorf("agent text %q", text)
	}
	if s := starts["call_read"]; s == nil || s.Kind != sdk.ToolKindRead || len(s.Locations) != 1 || s.Locations[0].Path != filepath.Join(r.root, "hello.txt") {
		t.Errorf("read tool call %+v", s)
	}
	if s := starts["call_edit"]; s == nil || s.Kind != sdk.ToolKindEdit {
		t.Errorf("edit tool call %+v", s)
	}
	e := ends["call_edit"]
	if e == nil || *e.Status != sdk.ToolCallStatusCompleted {
		t.Fatalf("edit tool call end %+v", e)
	}
	var diff *sdk.ToolCallContentDiff
	for _, c := range e.Content {
		if c.Diff != nil {
			diff = c.Diff
		}
	}
	if diff == nil || diff.OldText == nil || !strings.Contains(*diff.OldText, "hello") || !strings.Contains(diff.NewText, "goodbye") || diff.Path != filepath.Join(r.root, "hello.txt") {
		t.Fatalf("edit diff %+v", diff)
	}
	v := ends["verify-1"]
	if v == nil || *v.Status != sdk.ToolCallStatusCompleted {
		t.Errorf("verify tool call %+v (the check sees the client's unsaved text only through the overlay)", v)
	}
	plans := 0
	for _, u := range ups {
		if u.Plan != nil {
			plans++
		}
	}
	if plans == 0 {
		t.Errorf("no plan update")
	}
	r.client.mu.Lock()
	reads, writes, buf := r.client.reads, r.client.writes, r.client.buffers[filepath.Join(r.root, "hello.txt")]
	r.client.mu.Unlock()
	if len(reads) == 0 || len(writes) != 1 || !strings.Contains(buf, "goodbye") {
		t.Errorf("client fs: reads %v, writes %v, buffer %q", reads, writes, buf)
	}
	if disk, _ := os.ReadFile(filepath.Join(r.root, "hello.txt")); strings.Contains(string(disk), "goodbye") {
		t.Errorf("the disk was written although the client offers fs/write_text_file")
	}
	if res.Usage == nil || res.Usage.InputTokens == 0 {
		t.Errorf("usage %+v", res.Usage)
	}
}

// Without client fs the edit lands on disk, inside the workspace.
func TestACPTaskOnDisk(t *testing.T) {
	r := startACP(t, "hello", readEditScript, false, nil)
	id := r.newSession(t)
	if res := r.prompt(t, id, "Replace hello"); res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", res.StopReason)
	}
	if disk, _ := os.ReadFile(filepath.Join(r.root, "hello.txt")); !strings.Contains(string(disk), "goodbye") {
		t.Errorf("hello.txt on disk: %q", disk)
	}
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	if len(r.client.reads)+len(r.client.writes) != 0 {
		t.Errorf("the agent used client fs it was not offered: %v %v", r.client.reads, r.client.writes)
	}
}

// A command is asked about with allow-once, allow-always and reject; a
// rejection keeps it from running.
func TestACPPermissionDenied(t *testing.T) {
	r := startACP(t, "hello", `{"turns":[
	 {"toolCalls":[{"id":"call_cmd","name":"run_command","arguments":"{\"command\":\"touch pwned\"}"}]},
	 {"expect":{"lastToolContains":"denied"},"text":"Not allowed, stopping."}]}`, false, alwaysAsk())
	r.client.answer = "reject"
	id := r.newSession(t)
	if res := r.prompt(t, id, "make a file"); res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", res.StopReason)
	}
	if _, err := os.Stat(filepath.Join(r.root, "pwned")); err == nil {
		t.Fatal("the rejected command ran")
	}
	r.client.mu.Lock()
	asked := r.client.asked
	r.client.mu.Unlock()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	var kinds []string
	for _, o := range asked[0].Options {
		kinds = append(kinds, string(o.Kind))
	}
	if strings.Join(kinds, ",") != "allow_once,allow_always,reject_once" || asked[0].ToolCall.ToolCallId != "call_cmd" {
		t.Errorf("permission request %+v", asked[0])
	}
	_, ends, _ := toolCalls(r.client.snapshot())
	if e := ends["call_cmd"]; e == nil || *e.Status != sdk.ToolCallStatusFailed {
		t.Errorf("the command's tool call %+v, want failed", e)
	}
}

// session/cancel mid-stream ends the prompt with "cancelled".
func TestACPCancel(t *testing.T) {
	r := startACP(t, "hello", `{"turns":[{"text":"`+strings.Repeat("slow words ", 200)+`","chunkSize":4,"chunkDelayMs":20}]}`, false, nil)
	id := r.newSession(t)
	done := make(chan sdk.PromptResponse, 1)
	start := time.Now()
	go func() {
		res, err := r.Prompt(r.ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("talk")}})
		if err != nil {
			t.Errorf("prompt: %v", err)
		}
		done <- res
	}()
	for len(r.client.snapshot()) < 3 {
		select {
		case <-r.client.notify:
		case <-r.ctx.Done():
			t.Fatal("no updates")
		}
	}
	first := r.client.first.Sub(start)
	sent := time.Now()
	if err := r.Cancel(r.ctx, sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	t.Logf("first update after %v; session/cancel → cancelled response in %v", first, time.Since(sent))
	if res.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("stop reason %q, want cancelled", res.StopReason)
	}
}

// session/load replays a stored session, in a new process.
func TestACPLoadSession(t *testing.T) {
	r := startACP(t, "hello", readEditScript, false, nil)
	id := r.newSession(t)
	r.prompt(t, id, "Replace hello with goodbye")
	r2 := connectACP(t, r.ctx, r.root, r.llm, "http://127.0.0.1:1/v1", r.state, `{"verify":{"enabled":false}}`, false)
	if _, err := r2.LoadSession(r.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: r.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	ups := r2.client.snapshot()
	var user string
	for _, u := range ups {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			user += u.UserMessageChunk.Content.Text.Text
		}
	}
	starts, ends, text := toolCalls(ups)
	if !strings.Contains(user, "Replace hello with goodbye") || starts["call_read"] == nil || ends["call_edit"] == nil || !strings.Contains(text, "hello became goodbye") {
		t.Fatalf("replay: user %q, text %q, calls %v", user, text, starts)
	}
	if _, err := r2.LoadSession(r.ctx, sdk.LoadSessionRequest{SessionId: "20990101-000000-abcdef", Cwd: r.root, McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("loading an unknown session succeeded")
	}
}

// Malformed input gets a JSON-RPC error and the agent serves on.
func TestACPMalformed(t *testing.T) {
	cmd := exec.Command(binary, "acp")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	rd := bufio.NewReader(out)
	ask := func(line string) map[string]any {
		t.Helper()
		if _, err := in.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		b, err := rd.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %s: %v", line, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("reply %s: %v", b, err)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	if m := ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1`); code(m) != -32700 || m["id"] != nil {
		t.Errorf("truncated JSON: %v", m)
	}
	if m := ask(`[1,2]`); code(m) != -32600 {
		t.Errorf("an array: %v", m)
	}
	if m := ask(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"prompt":"x"}}`); code(m) != -32602 || m["id"] != float64(2) {
		t.Errorf("bad params: %v", m)
	}
	if m := ask(`{"jsonrpc":"2.0","id":3,"method":"session/fly","params":{}}`); code(m) != -32601 {
		t.Errorf("unknown method: %v", m)
	}
	if m := ask(`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"relative","mcpServers":[]}}`); code(m) != -32602 {
		t.Errorf("relative cwd: %v", m)
	}
	// A prompt over the 10 MB a message the SDK reads (a few large images)
	// is refused under its id; it used to end the connection.
	big := `{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"image","mimeType":"image/png","data":"` +
		strings.Repeat("QUFB", 11<<18) + `"}]}}`
	if m := ask(big); code(m) != -32600 || m["id"] != float64(6) {
		t.Errorf("an 11 MB message: %.300v", m)
	}
	m := ask(`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":1}}`)
	if res, _ := m["result"].(map[string]any); res == nil || res["protocolVersion"] != float64(1) {
		t.Errorf("initialize after the garbage: %v", m)
	}
}

// A workspace .agentls.json that widens power is held back in ACP too: the
// session's first prompt asks to trust it, and until then tools.allow ["*"]
// admits nothing, so the command is asked about (and rejected here).
func TestACPWorkspaceSettingsNeedTrust(t *testing.T) {
	r := startACP(t, "hello", `{"turns":[
	 {"toolCalls":[{"id":"call_cmd","name":"run_command","arguments":"{\"command\":\"touch pwned\"}"}]},
	 {"text":"done"}]}`, false, alwaysAsk())
	if err := os.WriteFile(filepath.Join(r.root, ".agentls.json"), []byte(`{"tools": {"allow": ["*"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r.client.answer = "reject"
	id := r.newSession(t)
	r.prompt(t, id, "make a file")
	if _, err := os.Stat(filepath.Join(r.root, "pwned")); err == nil {
		t.Fatal("the untrusted allow rule let the command run")
	}
	r.client.mu.Lock()
	asked := r.client.asked
	r.client.mu.Unlock()
	if len(asked) != 2 || asked[0].ToolCall.Title == nil || !strings.HasPrefix(*asked[0].ToolCall.Title, "Trust ") || asked[1].ToolCall.ToolCallId != "call_cmd" {
		var titles []string
		for _, a := range asked {
			if a.ToolCall.Title != nil {
				titles = append(titles, *a.ToolCall.Title)
			}
		}
		t.Errorf("asked %d times %q; want the trust question, then the command", len(asked), titles)
	}
}

// session/load in a new process shows the session as the live one left it:
// the model's latest plan and the usage with the session's running cost,
// not an empty plan and no usage (Zed's panel showed both empty after a
// restart).
func TestACPLoadReplaysPlanAndUsage(t *testing.T) {
	settings := map[string]any{"llm": map[string]any{"prices": map[string]any{"test-model": map[string]any{"input": 1.0, "output": 2.0}}}}
	r := startACP(t, "hello", `{"turns":[
	 {"toolCalls":[{"id":"call_plan","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"Read hello.txt\",\"status\":\"completed\"},{\"step\":\"Say goodbye\",\"status\":\"in_progress\"}]}"}]},
	 {"toolCalls":[{"id":"call_plan2","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"Read hello.txt\",\"status\":\"completed\"},{\"step\":\"Say goodbye\",\"status\":\"completed\"}]}"}]},
	 {"text":"Planned."},
	 {"text":"Second task."}]}`, false, settings)
	id := r.newSession(t)
	r.prompt(t, id, "Plan it")
	r.prompt(t, id, "Again")
	last := func(ups []sdk.SessionUpdate) (*sdk.SessionUpdatePlan, *sdk.SessionUsageUpdate) {
		var plan *sdk.SessionUpdatePlan
		var usage *sdk.SessionUsageUpdate
		for _, u := range ups {
			if u.Plan != nil {
				plan = u.Plan
			}
			if u.UsageUpdate != nil {
				usage = u.UsageUpdate
			}
		}
		return plan, usage
	}
	livePlan, liveUsage := last(r.client.snapshot())
	if livePlan == nil || liveUsage == nil || liveUsage.Cost == nil {
		t.Fatalf("the live session sent plan %+v, usage %+v", livePlan, liveUsage)
	}
	raw, _ := json.Marshal(map[string]any{"verify": map[string]any{"enabled": false}, "llm": settings["llm"]})
	r2 := connectACP(t, r.ctx, r.root, r.llm, "http://127.0.0.1:1/v1", r.state, string(raw), false)
	if _, err := r2.LoadSession(r.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: r.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	plan, usage := last(r2.client.snapshot())
	if plan == nil {
		t.Fatal("session/load replayed no plan")
	}
	var steps []string
	for _, e := range plan.Entries {
		steps = append(steps, e.Content+":"+string(e.Status))
	}
	if got := strings.Join(steps, ", "); got != "Read hello.txt:completed, Say goodbye:completed" {
		t.Errorf("replayed plan %s, want the latest one", got)
	}
	if usage == nil {
		t.Fatal("session/load replayed no usage")
	}
	if usage.Used != liveUsage.Used || usage.Size != liveUsage.Size {
		t.Errorf("replayed usage %d/%d, the live session's last %d/%d", usage.Used, usage.Size, liveUsage.Used, liveUsage.Size)
	}
	if usage.Cost == nil || fmt.Sprintf("%.9f", usage.Cost.Amount) != fmt.Sprintf("%.9f", liveUsage.Cost.Amount) {
		t.Errorf("replayed cost %+v, the live session's running cost %+v", usage.Cost, liveUsage.Cost)
	}
}
