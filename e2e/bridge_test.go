package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/lspclient"
	"go.lsp.dev/protocol"
)

// buildFakeACP builds the project's scripted ACP agent (cmd/fakeacp).
func buildFakeACP(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakeacp")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/fakeacp").CombinedOutput(); err != nil {
		t.Fatalf("building fakeacp: %v\n%s", err, out)
	}
	return bin
}

// The bridge: agentls.run drives an external ACP agent. Its read sees the
// unsaved buffer, its permission request becomes window/showMessageRequest,
// its write becomes a versioned workspace/applyEdit into the buffer, and
// the checks' failure after its turn goes back to it as a follow-up prompt.
func TestBridgeDrivesACPAgent(t *testing.T) {
	fake := buildFakeACP(t)
	s := start(t, setup{workspace: "hello", settings: map[string]any{
		"agent":  map[string]any{"backend": map[string]any{"acp": map[string]any{"command": fake}}},
		"verify": map[string]any{"enabled": true, "commands": []string{"! grep -q BROKEN hello.txt"}},
	}})
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		return &protocol.MessageActionItem{Title: "Allow once"}
	}
	if err := s.Open(s.ctx, "hello.txt", "hello from the buffer\n"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "make it BROKEN"})
	var text strings.Builder
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "text" {
			text.WriteString(ev["text"].(string))
		}
	}
	got := text.String()
	for _, want := range []string{"read: hello from the buffer", "permission: yes", "follow-up: The project's checks failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("the agent's text lacks %q:\n%s", want, got)
		}
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "run make test") {
		t.Errorf("showMessageRequest: %q", asked)
	}
	if r.Status != "ok" || !r.Verified || len(r.FilesChanged) != 1 {
		t.Errorf("result %+v", r)
	}
	if len(s.Edits()) != 2 {
		t.Errorf("%d applyEdits, want 2 (the turn and the follow-up)", len(s.Edits()))
	}
	if buf, _ := s.Text("hello.txt"); buf != "goodbye from the buffer\n" {
		t.Errorf("buffer %q", buf)
	}
	if disk, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt")); string(disk) != "hello world\nsecond line\n" {
		t.Errorf("the disk changed: %q", disk)
	}
}

// Under a client that cannot answer showMessageRequest (Helix), the bridge
// never sends one: the agent's permission question is answered by the
// policy (nothing allowed, so refused) and the turn goes on.
func TestBridgeAsksNothingOfAClientThatCannotAnswer(t *testing.T) {
	fake := buildFakeACP(t)
	caps := lspclient.HelixCaps()
	s := start(t, setup{workspace: "hello", caps: &caps, settings: map[string]any{
		"agent": map[string]any{"backend": map[string]any{"acp": map[string]any{"command": fake}}},
	}})
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		return &protocol.MessageActionItem{Title: "Allow once"}
	}
	r := s.run(t, map[string]any{"task": "make it BROKEN"})
	if len(asked) != 0 {
		t.Errorf("a client without showMessageRequest was asked %q", asked)
	}
	var text strings.Builder
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "text" {
			text.WriteString(ev["text"].(string))
		}
	}
	if !strings.Contains(text.String(), "permission: no") {
		t.Errorf("the agent was not told no:\n%s", text.String())
	}
}

// A bridge task obeys the agent machine's rules, as a task on agentls's own
// tools does: the checks' failure goes back to the agent agent.maxRetries
// times (the bridge's own loop allowed one follow-up whatever the setting),
// agent.maxSteps bounds its turns (the bridge's loop had no bound), and the
// task then ends "verifyFailed" with the machine's events.
func TestBridgeObeysTheMachinesLimits(t *testing.T) {
	fake := buildFakeACP(t)
	for _, tc := range []struct {
		name             string
		agent            map[string]any
		followUps, steps int
	}{
		{"maxRetries", map[string]any{"maxRetries": 2}, 2, 3},
		{"maxSteps", map[string]any{"maxRetries": 5, "maxSteps": 1}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.agent["backend"] = map[string]any{"acp": map[string]any{"command": fake}}
			s := start(t, setup{workspace: "hello", settings: map[string]any{
				"agent":  tc.agent,
				"verify": map[string]any{"enabled": true, "commands": []string{"! grep -q BROKEN hello.txt"}},
			}})
			s.OnShowMessageRequest = func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
				return &protocol.MessageActionItem{Title: "Allow once"}
			}
			r := s.run(t, map[string]any{"task": "make it STAY BROKEN"})
			var text strings.Builder
			verifies, steps := 0, -1.0
			for _, ev := range s.Events(r.TaskID) {
				switch ev["kind"] {
				case "text":
					text.WriteString(ev["text"].(string))
				case "verify":
					verifies++
				case "end":
					steps, _ = ev["result"].(map[string]any)["steps"].(float64)
				}
			}
			if n := strings.Count(text.String(), "follow-up: The project's checks failed"); n != tc.followUps {
				t.Errorf("%d follow-ups, want %d:\n%s", n, tc.followUps, text.String())
			}
			if verifies != tc.followUps+1 || int(steps) != tc.steps {
				t.Errorf("%d verify events and %v steps, want %d and %d", verifies, steps, tc.followUps+1, tc.steps)
			}
			if r.Status != "ok" || r.Reason != "verifyFailed" || r.Verified || len(r.FilesChanged) != 1 {
				t.Errorf("result %+v", r)
			}
		})
	}
}
