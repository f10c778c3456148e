package e2e

import (
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// An untrusted .agentls.json naming its own endpoint, and the user saying
// "Not now": the task stops with reason untrusted and a message naming
// the setting and how to trust it; nothing goes to the endpoint of the
// user's settings (here the environment's). The old code dropped
// llm.baseURL and sent the workspace there.
func TestUntrustedEndpointStopsTheTask(t *testing.T) {
	s := start(t, setup{files: map[string]string{".agentls.json": `{"llm": {"baseURL": "http://127.0.0.1:9/v1"}}`},
		script: `{"turns":[{"text":"done."}]}`})
	var asked atomic.Int32
	s.Configure(func(e *lspclient.Editor) {
		e.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
			asked.Add(1)
			return &protocol.MessageActionItem{Title: "Not now"}
		}
	})
	for i := 0; i < 2; i++ {
		r := s.run(t, map[string]any{"task": "say hi"})
		if r.Status != "error" || r.Reason != "untrusted" {
			t.Errorf("task ended %s/%s: %s", r.Status, r.Reason, r.Error)
		}
		for _, want := range []string{"llm.baseURL", "agentls trust", "Trust this file"} {
			if !strings.Contains(r.Error, want) {
				t.Errorf("the message does not say %q: %s", want, r.Error)
			}
		}
	}
	if n := len(s.LLM.Requests()); n != 0 {
		t.Errorf("%d requests went to the endpoint of the user's settings", n)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("asked %d times; a held-back endpoint is asked about at each task", n)
	}
}
