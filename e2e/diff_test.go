package e2e

import (
	"strings"
	"testing"
)

// agentls.diff answers with what an applied task changed, as the unified
// diff `agentls sessions show --diff` prints: the editors' view of an
// applied task. After undo there is nothing left to show, and it says so.
func TestDiffOfAnAppliedTask(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: "read-edit.json"})
	r := s.run(t, map[string]any{"task": "say goodbye"})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	var d struct {
		TaskID, Diff, Reason string
		Files                []string
	}
	if err := s.Command(s.ctx, "agentls.diff", map[string]any{"taskId": r.TaskID}, &d); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Diff, "--- a/hello.txt\n+++ b/hello.txt\n@@ ") || !strings.Contains(d.Diff, "\n-hello") || !strings.Contains(d.Diff, "\n+goodbye") ||
		len(d.Files) != 1 || d.Files[0] != "hello.txt" {
		t.Fatalf("agentls.diff = %+v", d)
	}
	// No task id: the newest task with applied changes.
	var newest struct{ TaskID string }
	if err := s.Command(s.ctx, "agentls.diff", map[string]any{}, &newest); err != nil || newest.TaskID != r.TaskID {
		t.Fatalf("newest = %+v, %v", newest, err)
	}
	if err := s.Command(s.ctx, "agentls.undo", map[string]any{"taskId": r.TaskID}, nil); err != nil {
		t.Fatal(err)
	}
	d.Diff, d.Reason = "", ""
	if err := s.Command(s.ctx, "agentls.diff", map[string]any{"taskId": r.TaskID}, &d); err != nil {
		t.Fatal(err)
	}
	if d.Diff != "" || !strings.Contains(d.Reason, "undone") {
		t.Fatalf("after undo: %+v", d)
	}
}

// A task's status says what became of its changes when "ok" would
// mislead: a review task is "awaiting review" until decided and "rejected"
// when every proposal was; an undone task is "undone" (issue 25, item 9).
func TestTaskOutcome(t *testing.T) {
	outcome := func(s *session, id string) string {
		var st struct{ Outcome string }
		if err := s.Command(s.ctx, "agentls.status", map[string]any{"taskId": id}, &st); err != nil {
			t.Fatal(err)
		}
		return st.Outcome
	}
	s, r := proposeTwoHunks(t, nil)
	if o := outcome(s, r.TaskID); o != "awaiting review" {
		t.Errorf("review task before any decision: outcome %q", o)
	}
	// The end event says so too: editors show it in their status line
	// (VS Code's read "ok, verified" before anything was accepted).
	var endOutcome any = "no end event"
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "end" {
			res, _ := ev["result"].(map[string]any)
			endOutcome = res["outcome"]
		}
	}
	if endOutcome != "awaiting review" {
		t.Errorf("review task's end event: outcome %v", endOutcome)
	}
	if err := s.Command(s.ctx, "agentls.reject", map[string]any{"taskId": r.TaskID}, nil); err != nil {
		t.Fatal(err)
	}
	if o := outcome(s, r.TaskID); o != "rejected" {
		t.Errorf("review task rejected: outcome %q", o)
	}

	s2 := start(t, setup{workspace: "hello", script: "read-edit.json"})
	r2 := s2.run(t, map[string]any{"task": "say goodbye"})
	if o := outcome(s2, r2.TaskID); o != "" {
		t.Errorf("applied task: outcome %q", o)
	}
	if err := s2.Command(s2.ctx, "agentls.undo", map[string]any{"taskId": r2.TaskID}, nil); err != nil {
		t.Fatal(err)
	}
	if o := outcome(s2, r2.TaskID); o != "undone" {
		t.Errorf("undone task: outcome %q", o)
	}
}
