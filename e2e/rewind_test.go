package e2e

import (
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// Five turns that change files, a text answer, and the follow-up's answer.
const fiveSteps = `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"one\",\"new_string\":\"ONE\"}"}]},
 {"text":"now two and b","toolCalls":[{"id":"c2","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"two\",\"new_string\":\"TWO\"}"},{"id":"c2br","name":"read_file","arguments":"{\"path\":\"b.txt\"}"},{"id":"c2b","name":"edit_file","arguments":"{\"path\":\"b.txt\",\"old_string\":\"bee\",\"new_string\":\"BEE\"}"}]},
 {"toolCalls":[{"id":"c3","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"three\",\"new_string\":\"THREE\"}"}]},
 {"toolCalls":[{"id":"c4","name":"write_file","arguments":"{\"path\":\"c.txt\",\"content\":\"sea\\n\"}"}]},
 {"toolCalls":[{"id":"c5","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"five\",\"new_string\":\"FIVE\"}"},{"id":"c5b","name":"edit_file","arguments":"{\"path\":\"b.txt\",\"old_string\":\"BEE\",\"new_string\":\"BEE BEE\"}"}]},
 {"text":"done."},
 {"text":"continued from step 2."}]}`

type checkpoints struct {
	Session string `json:"session"`
	Steps   []struct {
		Step    int      `json:"step"`
		TaskID  string   `json:"taskId"`
		Summary string   `json:"summary"`
		Files   []string `json:"files"`
	} `json:"steps"`
	Rewound int `json:"rewound"`
}

type rewound struct {
	Applied   bool     `json:"applied"`
	Step      int      `json:"step"`
	Files     []string `json:"files"`
	Reason    string   `json:"reason"`
	Conflicts []struct {
		URI    string `json:"uri"`
		Reason string `json:"reason"`
	} `json:"conflicts"`
}

// Rewind to step 2 of a five-step task: the files are byte for byte as
// step 2 left them but for what the user typed after the task, the file
// created later is reported (this editor cannot delete through LSP), and a
// follow-up's first request holds the conversation up to step 2 only.
func TestRewindToStepTwo(t *testing.T) {
	s := start(t, setup{script: fiveSteps, files: map[string]string{
		"a.txt": "one\ntwo\nthree\nfour\nfive\n",
		"b.txt": "bee\n",
	}})
	if err := s.Open(s.ctx, "a.txt", "one\ntwo\nthree\nfour\nfive\n"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "five steps"})
	if r.Status != "ok" {
		t.Fatalf("task: %+v", r)
	}
	if got, _ := s.Text("a.txt"); got != "ONE\nTWO\nTHREE\nfour\nFIVE\n" {
		t.Fatalf("after the task a.txt = %q", got)
	}
	var cps checkpoints
	if err := s.Command(s.ctx, "agentls.checkpoints", map[string]any{"taskId": r.TaskID}, &cps); err != nil {
		t.Fatal(err)
	}
	if len(cps.Steps) != 5 || cps.Session != r.Session || cps.Rewound != -1 {
		t.Fatalf("checkpoints = %+v", cps)
	}
	if cps.Steps[1].Summary != "now two and b" || strings.Join(cps.Steps[1].Files, ",") != "a.txt,b.txt" {
		t.Errorf("step 2 = %+v", cps.Steps[1])
	}
	if !strings.Contains(cps.Steps[3].Summary, "c.txt") {
		t.Errorf("step 4's summary %q does not name its call", cps.Steps[3].Summary)
	}
	// The user types after the task ended.
	if err := s.Type(s.ctx, "a.txt", 0, 0, "// mine\n"); err != nil {
		t.Fatal(err)
	}
	var rw rewound
	if err := s.Command(s.ctx, "agentls.rewind", map[string]any{"taskId": r.TaskID, "step": 2}, &rw); err != nil {
		t.Fatal(err)
	}
	if !rw.Applied || rw.Step != 2 {
		t.Fatalf("rewind = %+v", rw)
	}
	if got, _ := s.Text("a.txt"); got != "// mine\nONE\nTWO\nthree\nfour\nfive\n" {
		t.Errorf("a.txt = %q, want step 2's text with the user's line", got)
	}
	if got, _ := s.Text("b.txt"); got != "BEE\n" {
		t.Errorf("b.txt = %q, want step 2's %q", got, "BEE\n")
	}
	if len(rw.Conflicts) != 1 || !strings.HasSuffix(rw.Conflicts[0].URI, "/c.txt") {
		t.Errorf("conflicts = %+v, want c.txt (created at step 4) reported", rw.Conflicts)
	}
	if b, _ := s.Text("c.txt"); b != "sea\n" {
		t.Errorf("c.txt = %q: kept for the user to delete", b)
	}
	if err := s.Command(s.ctx, "agentls.checkpoints", map[string]any{"session": r.Session}, &cps); err != nil || cps.Rewound != 2 {
		t.Errorf("after the rewind: %+v, %v", cps, err)
	}

	reqs := s.LLM.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	atStep2 := reqs[2].Body.Messages // the request after step 2's results
	id, err := s.Command2Continue(t, r.Session)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Wait(s.ctx, id, 30*time.Second); err != nil || res.Status != "ok" {
		t.Fatalf("follow-up: %+v, %v", res, err)
	}
	reqs = s.LLM.Requests()
	first := reqs[6].Body.Messages
	if len(first) != len(atStep2)+1 {
		t.Fatalf("follow-up's first request has %d messages, want %d (up to step 2) + 1", len(first), len(atStep2))
	}
	for i, m := range atStep2 {
		if i == 0 {
			continue // the system prompt
		}
		if first[i].Role != m.Role || first[i].Content != m.Content || len(first[i].ToolCalls) != len(m.ToolCalls) {
			t.Errorf("message %d = %+v, want %+v", i, first[i], m)
		}
	}
	for _, m := range first {
		for _, c := range m.ToolCalls {
			if c.ID == "c3" || c.ID == "c4" || c.ID == "c5" {
				t.Errorf("the follow-up still holds step 3-5's call %s", c.ID)
			}
		}
	}
	if last := first[len(first)-1]; last.Role != "user" || !strings.Contains(last.Content, "go on") {
		t.Errorf("last message %+v, want the follow-up's prompt", last)
	}
}

// Command2Continue starts agentls.continue in the session.
func (s *session) Command2Continue(t *testing.T, sess string) (string, error) {
	var run struct {
		TaskID string `json:"taskId"`
	}
	err := s.Command(s.ctx, "agentls.continue", map[string]any{"session": sess, "task": "go on"}, &run)
	return run.TaskID, err
}

// A rewind is refused while a task of the session runs, and when the
// editor refuses its edit nothing is rewound: the files stay and the
// conversation is not cut.
func TestRewindRefusedWhileRunningOrByTheEditor(t *testing.T) {
	s := start(t, setup{files: map[string]string{"a.txt": "one\ntwo\n"}, script: `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"one\",\"new_string\":\"ONE\"}"}]},
 {"toolCalls":[{"id":"c2r","name":"read_file","arguments":"{\"path\":\"a.txt\"}"},{"id":"c2","name":"edit_file","arguments":"{\"path\":\"a.txt\",\"old_string\":\"two\",\"new_string\":\"TWO\"}"}]},
 {"text":"done."}]}`})
	s.Configure(func(e *lspclient.Editor) {
		e.HoldApplyEdit = func(*protocol.ApplyWorkspaceEditParams) bool { return true }
	})
	id, err := s.Run(s.ctx, map[string]any{"task": "two steps", "session": "s-rw"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.WaitFor(testWait, func() bool { return len(s.Edits()) == 1 }) {
		t.Fatal("the first edit never reached the editor")
	}
	var rw rewound
	if err := s.Command(s.ctx, "agentls.rewind", map[string]any{"session": "s-rw", "step": 0}, &rw); err != nil {
		t.Fatal(err)
	}
	if rw.Applied || !strings.Contains(rw.Reason, "still running") {
		t.Errorf("rewind of a running task's session: %+v", rw)
	}
	s.Configure(func(e *lspclient.Editor) { e.HoldApplyEdit = nil })
	s.ReleaseHeld()
	if r, err := s.Wait(s.ctx, id, 30*time.Second); err != nil || r.Status != "ok" {
		t.Fatalf("task: %+v, %v", r, err)
	}

	s.Configure(func(e *lspclient.Editor) {
		e.OnApplyEdit = func(*protocol.ApplyWorkspaceEditParams) (bool, string) { return false, "the user said no" }
	})
	if err := s.Command(s.ctx, "agentls.rewind", map[string]any{"taskId": id, "step": 1}, &rw); err != nil {
		t.Fatal(err)
	}
	if rw.Applied || !strings.Contains(rw.Reason, "the user said no") || !strings.Contains(rw.Reason, "nothing was rewound") {
		t.Errorf("rewind the editor refused: %+v", rw)
	}
	if got, _ := s.Text("a.txt"); got != "ONE\nTWO\n" {
		t.Errorf("a.txt = %q after a refused rewind", got)
	}
	var cps checkpoints
	if err := s.Command(s.ctx, "agentls.checkpoints", map[string]any{"session": "s-rw"}, &cps); err != nil || cps.Rewound != -1 || len(cps.Steps) != 2 {
		t.Errorf("after a refused rewind: %+v, %v", cps, err)
	}
	if err := s.Command(s.ctx, "agentls.rewind", map[string]any{"session": "s-rw"}, nil); err == nil || !strings.Contains(err.Error(), "step") {
		t.Errorf("a rewind without a step: %v", err)
	}
}
