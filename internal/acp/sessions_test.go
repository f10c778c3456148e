package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/prompts"
	sdk "github.com/coder/acp-go-sdk"
)

func TestSplitCommand(t *testing.T) {
	for _, c := range []struct {
		in, name, args string
		ok             bool
	}{
		{"/verify", "verify", "", true},
		{"  /model gpt-5 ", "model", "gpt-5", true},
		{"/greet\nAda and Bob", "greet", "Ada and Bob", true},
		{"/usr/bin is empty", "", "", false},
		{"no command", "", "", false},
		{"/-x", "", "", false},
	} {
		name, args, ok := prompts.Split(c.in)
		if name != c.name || args != c.args || ok != c.ok {
			t.Errorf("prompts.Split(%q) = %q, %q, %v; want %q, %q, %v", c.in, name, args, ok, c.name, c.args, c.ok)
		}
	}
}

func TestSessionTitle(t *testing.T) {
	if got := sessionTitle("Fix the bug\nin main.go"); got != "Fix the bug" {
		t.Errorf("first line: %q", got)
	}
	long := strings.Repeat("é", 60) // 120 bytes
	got := sessionTitle(long)
	if !strings.HasSuffix(got, "…") || len(got) > 80+len("…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("cut title %q", got)
	}
}

// The initialize answer keeps what the SDK made and adds
// sessionCapabilities.delete.
func TestWithDeleteCapability(t *testing.T) {
	res := sdk.InitializeResponse{ProtocolVersion: 1, AgentCapabilities: sdk.AgentCapabilities{LoadSession: true,
		SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{}}}}
	b, _ := json.Marshal(withDeleteCapability(res))
	var m struct {
		AgentCapabilities struct {
			LoadSession         bool                       `json:"loadSession"`
			SessionCapabilities map[string]json.RawMessage `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	sc := m.AgentCapabilities.SessionCapabilities
	if !m.AgentCapabilities.LoadSession || string(sc["delete"]) != "{}" || string(sc["list"]) != "{}" {
		t.Errorf("initialize answer %s", b)
	}
}

// The wire counts a request as pending until its answer is written, calls
// the answer's hook with its result, and drain returns once nothing is
// pending (or at its bound).
func TestWirePendingAndHooks(t *testing.T) {
	var out bytes.Buffer
	w := newWire(&out)
	w.request(json.RawMessage(`1`))
	var got string
	w.onAnswer(json.RawMessage(`1`), func(r json.RawMessage) { got = string(r) })
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"id":1}}` + "\n"))
	done := make(chan struct{})
	go func() { w.drain(time.Minute); close(done) }()
	select {
	case <-done:
		t.Fatal("drain returned with an answer pending")
	case <-time.After(50 * time.Millisecond):
	}
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}` + "\n"))
	<-done
	if got != `{"sessionId":"s"}` {
		t.Errorf("hook got %q", got)
	}
	w.request(json.RawMessage(`2`))
	w.drain(10 * time.Millisecond) // returns at its bound with 2 unanswered
}
