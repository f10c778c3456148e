package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// helixCall is a request as Helix makes it: answered within 20 s or the
// editor gives up; no $/cancelRequest is ever sent.
func (s *session) helixCall(t *testing.T, name string, args map[string]any, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 20*time.Second)
	defer cancel()
	began := time.Now()
	if err := s.Command(ctx, name, args, out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if d := time.Since(began); d > 2*time.Second {
		t.Errorf("%s took %s; Helix users wait on every command", name, d)
	}
}

// A client with exactly Helix's capabilities, which ignores agentls/event,
// completes run, cancel, review and undo through commands alone.
func TestHelixWorkflow(t *testing.T) {
	caps := lspclient.HelixCaps()
	s := start(t, setup{caps: &caps, files: map[string]string{"f.txt": fText}, script: `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"}]},
 {"text":"changed"},
 {"text":"a slow answer that will be cancelled","chunkSize":1,"chunkDelayMs":100},
 {"toolCalls":[{"id":"c3r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c3","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"omega\",\"new_string\":\"OMEGA\"}"}]},
 {"text":"proposed"}]}`})
	if err := s.Open(s.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	// run → wait (polling status, as a Helix user would) → undo.
	var run struct{ TaskID string }
	s.helixCall(t, "agentls.run", map[string]any{"task": "shout alpha", "uri": s.URI("f.txt")}, &run)
	var st lspclient.TaskResult
	for i := 0; i < 100 && st.Status != "ok"; i++ {
		s.helixCall(t, "agentls.status", map[string]any{"taskId": run.TaskID}, &st)
		time.Sleep(50 * time.Millisecond)
	}
	if got, _ := s.Text("f.txt"); !strings.HasPrefix(got, "ALPHA") {
		t.Fatalf("edit not applied: %q", got)
	}
	var undo struct{ Applied bool }
	s.helixCall(t, "agentls.undo", map[string]any{"taskId": run.TaskID}, &undo)
	if got, _ := s.Text("f.txt"); got != fText || !undo.Applied {
		t.Fatalf("undo: %v %q", undo, got)
	}
	// cancel the newest task without naming it.
	s.helixCall(t, "agentls.run", map[string]any{"task": "slow"}, &run)
	st = lspclient.TaskResult{}
	for deadline := time.Now().Add(10 * time.Second); st.Status != "running"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the slow task never ran: %+v", st)
		}
		s.helixCall(t, "agentls.status", map[string]any{"taskId": run.TaskID}, &st)
	}
	var c struct{ Cancelled bool }
	s.helixCall(t, "agentls.cancel", map[string]any{}, &c)
	if !c.Cancelled {
		t.Fatal("cancel found no running task")
	}
	r, err := s.Wait(s.ctx, run.TaskID, 5*time.Second)
	if err != nil || r.Status != "cancelled" {
		t.Fatalf("cancelled task: %+v %v", r, err)
	}
	// review, accepted through the command.
	s.helixCall(t, "agentls.run", map[string]any{"task": "shout omega", "review": true}, &run)
	if r, err := s.Wait(s.ctx, run.TaskID, 10*time.Second); err != nil || r.Status != "ok" {
		t.Fatalf("review task: %+v %v", r, err)
	}
	var acc struct{ Applied bool }
	s.helixCall(t, "agentls.accept", map[string]any{"taskId": run.TaskID}, &acc)
	if got, _ := s.Text("f.txt"); got != strings.Replace(fText, "omega", "OMEGA", 1) {
		t.Fatalf("after accept: %q", got)
	}
	// Helix sees the outcome through showMessage, not agentls/event.
	if len(s.Notes("window/showMessage")) < 3 {
		t.Error("task ends not reported with showMessage")
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Helix drops command results and errors: agentls mirrors them as
// messages; undo needs no task id and run takes a relative path.
func TestHelixConveniences(t *testing.T) {
	caps := lspclient.HelixCaps()
	s := start(t, setup{caps: &caps, files: map[string]string{"f.txt": fText}, script: `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"}]},
 {"text":"changed"}]}`})
	if err := s.Open(s.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	var run struct{ TaskID string }
	s.helixCall(t, "agentls.run", map[string]any{"task": "shout", "path": "f.txt"}, &run)
	if _, err := s.Wait(s.ctx, run.TaskID, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.LLM.Requests()[0].Body.Messages[1].Content, "f.txt") {
		t.Errorf("path did not reach the editor context: %+v", s.LLM.Requests()[0].Body.Messages)
	}
	s.helixCall(t, "agentls.undo", map[string]any{}, nil)
	if got, _ := s.Text("f.txt"); got != fText {
		t.Errorf("undo without a task id: %q", got)
	}
	_ = s.Command(s.ctx, "agentls.accept", map[string]any{}, nil)
	s.helixCall(t, "agentls.status", map[string]any{"taskId": run.TaskID}, nil)
	var msgs []string
	for _, n := range s.Notes("window/showMessage") {
		msgs = append(msgs, string(n.Params))
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "agentls.accept: ") || !strings.Contains(all, `agentls.status: {\"taskId\":\"t1\"`) {
		t.Errorf("results and errors not mirrored:\n%s", all)
	}
}

// Helix users learn a task's id when it starts: run, continue, verify and
// cancel are echoed as one short line each.
func TestHelixEchoesStartedTasks(t *testing.T) {
	caps := lspclient.HelixCaps()
	s := start(t, setup{caps: &caps, script: `{"turns":[
 {"text":"first"},
 {"text":"a slow answer that will be cancelled","chunkSize":1,"chunkDelayMs":100}]}`,
		settings: map[string]any{"verify": map[string]any{"enabled": false, "commands": []string{"true"}}}})
	var run struct{ TaskID, Session string }
	s.helixCall(t, "agentls.run", map[string]any{"task": "one"}, &run)
	if _, err := s.Wait(s.ctx, run.TaskID, testWait); err != nil {
		t.Fatal(err)
	}
	var cont struct{ TaskID string }
	s.helixCall(t, "agentls.continue", map[string]any{"session": run.Session, "task": "two"}, &cont)
	s.helixCall(t, "agentls.cancel", map[string]any{"taskId": cont.TaskID}, nil)
	if _, err := s.Wait(s.ctx, cont.TaskID, testWait); err != nil {
		t.Fatal(err)
	}
	var ver struct{ TaskID string }
	s.helixCall(t, "agentls.verify", map[string]any{}, &ver)
	if _, err := s.Wait(s.ctx, ver.TaskID, testWait); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"agentls.run: task " + run.TaskID + " started (session " + run.Session + ")",
		"agentls.continue: task " + cont.TaskID + " started (session " + run.Session + ")",
		"agentls.cancel: cancelling task " + cont.TaskID,
		"agentls.verify: task " + ver.TaskID + " started",
	}
	var msgs []string
	for _, n := range s.Notes("window/showMessage") {
		var p struct{ Message string }
		_ = json.Unmarshal(n.Params, &p)
		msgs = append(msgs, p.Message)
	}
	for _, w := range want {
		found := false
		for _, m := range msgs {
			if strings.HasPrefix(m, w) && !strings.Contains(m, "\n") && len(m) < 120 {
				found = true
			}
		}
		if !found {
			t.Errorf("no one-line echo %q in:\n%s", w, strings.Join(msgs, "\n"))
		}
	}
}
