package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// An accept whose workspace/applyEdit the editor never answers (VS Code's
// refactor preview left open) holds no lock: another review task of
// another session still ends, its progress ends, and the next task of that
// session starts and ends. A second command on the held task is refused.
func TestHeldApplyEditBlocksNothing(t *testing.T) {
	s := start(t, setup{files: map[string]string{"f.txt": fText, "g.txt": "gamma\n"}, script: `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"}]},
 {"text":"A proposed"},
 {"toolCalls":[{"id":"c2r","name":"read_file","arguments":"{\"path\":\"g.txt\"}"},{"id":"c2","name":"edit_file","arguments":"{\"path\":\"g.txt\",\"old_string\":\"gamma\",\"new_string\":\"GAMMA\"}"}]},
 {"text":"B proposed"},
 {"text":"C done"}]}`})
	s.Configure(func(e *lspclient.Editor) {
		e.HoldApplyEdit = func(*protocol.ApplyWorkspaceEditParams) bool { return true }
	})
	a := s.run(t, map[string]any{"task": "task A", "review": true})
	if a.Status != "ok" {
		t.Fatalf("A: %+v", a)
	}
	held := make(chan error, 1)
	go func() { held <- s.Command(s.ctx, "agentls.accept", map[string]any{"taskId": a.TaskID}, nil) }()
	if !s.WaitFor(testWait, func() bool { return len(s.Edits()) == 1 }) {
		t.Fatal("the accept never reached the editor")
	}

	b := s.run(t, map[string]any{"task": "task B", "review": true, "session": "s-held"})
	if b.Status != "ok" {
		t.Fatalf("B: %+v", b)
	}
	if !s.WaitFor(testWait, func() bool { return progressEnded(s, b.TaskID) }) {
		t.Fatal("B's progress never ended")
	}
	c := s.run(t, map[string]any{"task": "task C", "session": "s-held"})
	if c.Status != "ok" || c.Summary != "C done" {
		t.Fatalf("C: %+v", c)
	}
	err := s.Command(s.ctx, "agentls.reject", map[string]any{"taskId": a.TaskID}, nil)
	if err == nil || !strings.Contains(err.Error(), "waiting for the editor") {
		t.Errorf("reject while A's accept is held: %v", err)
	}
	select {
	case err := <-held:
		t.Fatalf("the held accept answered: %v", err)
	default:
	}
}

// progressEnded reports whether the task's $/progress end was sent.
func progressEnded(s *session, taskID string) bool {
	for _, n := range s.Notes(protocol.MethodProgress) {
		var p struct {
			Token string
			Value struct{ Kind string }
		}
		if json.Unmarshal(n.Params, &p) == nil && p.Token == "agentls-task-"+taskID && p.Value.Kind == "end" {
			return true
		}
	}
	return false
}
