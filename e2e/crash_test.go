package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// kill -9 the server mid-task, start it again: the session loads (a torn
// last line is skipped), agentls.continue carries the history, and the
// transcript is readable.
func TestKillNineThenContinue(t *testing.T) {
	root := copyWorkspace(t, "hello")
	state := filepath.Join(t.TempDir(), "state")
	llm, base := startModel(t, `{"turns":[
		{"toolCalls":[{"id":"c1","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
		{"text":"a very slow answer that never finishes because the server dies","chunkSize":1,"chunkDelayMs":200},
		{"expect":{"lastUserContains":"carry on"},"text":"continuing where we were"}]}`)
	env := []string{"AGENTLS_BASE_URL=" + base, "AGENTLS_MODEL=m", "XDG_STATE_HOME=" + state}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	settings := map[string]any{"verify": map[string]any{"enabled": false}}

	ed, err := lspclient.Start(ctx, lspclient.StartOptions{Binary: binary, Root: root, Caps: lspclient.VSCodeCaps(), Env: env, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	id, err := ed.Run(ctx, map[string]any{"task": "first task: read hello.txt", "session": "crashy"})
	if err != nil {
		t.Fatal(err)
	}
	if !ed.WaitFor(10*time.Second, func() bool {
		for _, ev := range ed.Events(id) {
			if ev["kind"] == "text" {
				return true
			}
		}
		return false
	}) {
		t.Fatal("second turn never streamed")
	}
	var st lspclient.TaskResult
	_ = ed.Command(ctx, "agentls.status", map[string]any{"taskId": id}, &st)
	ed.Kill() // SIGKILL: no chance to flush or close anything
	_ = ed.Cmd.Wait()
	ed.Conn.Close()

	// A torn last line, as a crash mid-write leaves it.
	files, _ := filepath.Glob(filepath.Join(state, "agentls", "workspaces", "*", "sessions", "crashy.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session file: %v", files)
	}
	f, _ := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"type":"message","seq":1,"message":{"role":"assis`)
	f.Close()

	ed2, err := lspclient.Start(ctx, lspclient.StartOptions{Binary: binary, Root: root, Caps: lspclient.VSCodeCaps(), Env: env, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	defer ed2.Close(context.Background())
	var run struct{ TaskID, Session string }
	if err := ed2.Command(ctx, "agentls.continue", map[string]any{"session": "crashy", "task": "carry on"}, &run); err != nil {
		t.Fatalf("continue: %v\n%s", err, ed2.Stderr())
	}
	r, err := ed2.Wait(ctx, run.TaskID, 20*time.Second)
	if err != nil || r.Status != "ok" || run.Session != "crashy" {
		t.Fatalf("continued task: %+v %v\n%s", r, err, ed2.Stderr())
	}
	reqs := llm.Requests()
	last := reqs[len(reqs)-1].Body.Messages
	var all strings.Builder
	for _, m := range last {
		all.WriteString(m.Role + ": " + m.Content + "\n")
	}
	if !strings.Contains(all.String(), "first task: read hello.txt") || !strings.Contains(all.String(), "hello world") {
		t.Errorf("continued request lacks the first task's history:\n%s", all.String())
	}
	var st2 struct{ Transcript string }
	_ = ed2.Command(ctx, "agentls.status", map[string]any{"taskId": run.TaskID}, &st2)
	if !strings.HasPrefix(st2.Transcript, "file://") {
		t.Fatalf("no transcript URI: %+v", st2)
	}
	data, err := os.ReadFile(strings.TrimPrefix(st2.Transcript, "file://"))
	if err != nil || !strings.Contains(string(data), "continuing where we were") {
		t.Errorf("transcript %q %v", data, err)
	}
	// Unknown sessions are refused clearly.
	if err := ed2.Command(ctx, "agentls.continue", map[string]any{"session": "nope", "task": "x"}, nil); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("unknown session: %v", err)
	}
}
