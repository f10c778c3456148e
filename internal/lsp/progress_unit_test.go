package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// progressKinds lists the $/progress values' kinds and messages sent so far.
func progressKinds(c *fakeClient) []string {
	var out []string
	for _, m := range c.sentSoFar() {
		if m.method != protocol.MethodProgress {
			continue
		}
		var p struct {
			Token string
			Value struct{ Kind, Title, Message string }
		}
		json.Unmarshal(m.params, &p)
		out = append(out, p.Token+" "+p.Value.Kind+" "+p.Value.Title+p.Value.Message)
	}
	return out
}

// marker sends a message and waits for it, so that everything sent
// before it has reached the fake client.
func marker(t *testing.T, s *Server, c *fakeClient, text string) {
	t.Helper()
	s.ed.showMessage(context.Background(), protocol.MessageTypeInfo, "%s", text)
	c.waitFor(t, text, func(m sent) bool { return strings.Contains(string(m.params), text) })
}

// With workDoneProgress: a token per task, begin, reports without
// repeats, one end; the token cancels the task.
func TestProgressWithWorkDone(t *testing.T) {
	s, c := newUnitServer(t, tempRoot(t, nil))
	s.ed.caps.workDoneProgress = true
	ctx := context.Background()
	cancelled := false
	tk := &runningTask{id: "t7", cancel: func() { cancelled = true }}
	s.tasks.tasks["t7"], s.tasks.order = tk, append(s.tasks.order, tk)
	p := s.runner.beginProgress(ctx, tk, "agentls", "starting")
	p.report(ctx, "step 1")
	p.report(ctx, "step 1")
	p.report(ctx, "step 2")
	p.end(ctx, "done")
	p.end(ctx, "again")
	p.report(ctx, "late")
	marker(t, s, c, "marker-1")
	want := []string{"agentls-task-t7 begin agentlsstarting", "agentls-task-t7 report step 1", "agentls-task-t7 report step 2", "agentls-task-t7 end done"}
	if got := progressKinds(c); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("progress:\n%q\nwant\n%q", got, want)
	}
	s.tasks.cancelToken(protocol.String("agentls-task-t7"))
	if !cancelled {
		t.Error("the progress token did not cancel its task")
	}
}

// Without it, or when the client refuses the token: a message to begin,
// log lines to report, nothing to end.
func TestProgressFallsBackToMessages(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		s, c := newUnitServer(t, tempRoot(t, nil))
		if refuse {
			s.ed.caps.workDoneProgress = true
			c.mu.Lock()
			c.answer = func(method string, _ json.RawMessage) any {
				if method == protocol.MethodWindowWorkDoneProgressCreate {
					return errors.New("no progress here")
				}
				return nil
			}
			c.mu.Unlock()
		}
		ctx := context.Background()
		p := s.runner.beginProgress(ctx, &runningTask{id: "t1"}, "agentls", "starting")
		p.report(ctx, "step 1")
		p.end(ctx, "done")
		marker(t, s, c, "marker-2")
		if got := progressKinds(c); len(got) != 0 {
			t.Errorf("refuse %v: $/progress sent: %q", refuse, got)
		}
		if m := c.messages(); len(m) < 1 || m[0] != "agentls: starting" {
			t.Errorf("refuse %v: messages %q", refuse, m)
		}
		c.waitFor(t, "the report as a log line", func(m sent) bool {
			return m.method == protocol.MethodWindowLogMessage && strings.Contains(string(m.params), "agentls: step 1")
		})
	}
}
