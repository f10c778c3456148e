package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/proc"
)

// answerWith makes the fake client answer showMessageRequest with title
// ("" dismisses), recording the questions.
func answerWith(c *fakeClient, title string, asked *[]protocol.ShowMessageRequestParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answer = func(method string, params json.RawMessage) any {
		var p protocol.ShowMessageRequestParams
		protocol.Unmarshal(params, &p)
		*asked = append(*asked, p)
		if title == "" {
			return nil
		}
		return protocol.MessageActionItem{Title: title}
	}
}

// Each answer to "agentls wants to run" means what its title says; the
// question names the workspace and offers the three answers.
func TestAskToRun(t *testing.T) {
	root := tempRoot(t, nil)
	for _, c := range []struct {
		title string
		want  approval.Answer
	}{{allowOnce, approval.AllowOnce}, {allowAlways, approval.AllowAlways}, {deny, approval.Deny}, {"", approval.NoAnswer}, {"something else", approval.Deny}} {
		s, fc := newUnitServer(t, root)
		var asked []protocol.ShowMessageRequestParams
		answerWith(fc, c.title, &asked)
		got, err := s.asker.askToRun(context.Background(), "make clean", "why")
		if err != nil || got != c.want {
			t.Errorf("answer %q: %v, %v; want %v", c.title, got, err, c.want)
		}
		if len(asked) != 1 || !strings.Contains(asked[0].Message, "agentls wants to run in "+root+":\n\nmake clean") || len(asked[0].Actions) != 3 {
			t.Errorf("asked %+v", asked)
		}
	}
}

// The approver asks through the editor only when it can, and an
// "always" answer is remembered for the server's later tasks.
func TestApproverThroughTheEditor(t *testing.T) {
	s, fc := newUnitServer(t, tempRoot(t, nil))
	cfg := config.Defaults()
	cfg.Sandbox.Mode = proc.ModeOff
	var asked []protocol.ShowMessageRequestParams
	answerWith(fc, allowAlways, &asked)
	ctx := context.Background()
	if ok, reason, _ := s.asker.approver(cfg).Approve(ctx, "ls"); ok || !strings.Contains(reason, "sandbox.mode is off") || len(asked) != 0 {
		t.Errorf("a client that cannot ask: %v %q, asked %d", ok, reason, len(asked))
	}
	s.ed.caps.showMessageReq = true
	if ok, _, _ := s.asker.approver(cfg).Approve(ctx, "ls"); !ok || len(asked) != 1 {
		t.Fatalf("asked: %v, %d questions", ok, len(asked))
	}
	if ok, _, _ := s.asker.approver(cfg).Approve(ctx, "ls"); !ok || len(asked) != 1 {
		t.Errorf("a later task's approver asked again: %d questions", len(asked))
	}
}

// Yes/no questions (a protected file, network): only the affirmative
// title is a yes; a client that cannot ask refuses.
func TestYesNoQuestions(t *testing.T) {
	s, fc := newUnitServer(t, tempRoot(t, nil))
	ctx := context.Background()
	var asked []protocol.ShowMessageRequestParams
	answerWith(fc, allowChange, &asked)
	if ok, err := s.asker.confirmWrite(ctx, ".agentls.json", "configures agentls"); ok || err != nil || len(asked) != 0 {
		t.Errorf("a client that cannot ask: %v %v", ok, err)
	}
	s.ed.caps.showMessageReq = true
	if ok, err := s.asker.confirmWrite(ctx, ".agentls.json", "configures agentls"); !ok || err != nil {
		t.Errorf("allowed: %v %v", ok, err)
	}
	if q := asked[0]; !strings.Contains(q.Message, "agentls wants to change .agentls.json, which configures agentls") || q.Actions[0].Title != allowChange || q.Actions[1].Title != notAllowed {
		t.Errorf("question %+v", q)
	}
	// The network question's yes is another title: "Allow this change" is no.
	if ok, _ := s.asker.askNetwork(ctx, "curl x"); ok {
		t.Error("the wrong title counted as yes")
	}
	answerWith(fc, withNetwork, &asked)
	if ok, _ := s.asker.askNetwork(ctx, "curl x"); !ok {
		t.Error("Run again with network was not a yes")
	}
	answerWith(fc, "", &asked)
	if ok, _ := s.asker.askNetwork(ctx, "curl x"); ok {
		t.Error("a dismissed question was a yes")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.asker.askNetwork(cctx, "curl x"); err == nil {
		t.Error("a cancelled question returned no error")
	}
}
