package session

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// sameMessages compares every field of a message: a field added to
// agent.Message or agent.ToolCall must be added there too.
func TestSameMessagesSeesEveryField(t *testing.T) {
	if n := reflect.TypeFor[agent.Message]().NumField(); n != 7 {
		t.Fatalf("agent.Message has %d fields; compare the new ones in sameMessages", n)
	}
	if n := reflect.TypeFor[agent.ToolCall]().NumField(); n != 3 {
		t.Fatalf("agent.ToolCall has %d fields; sameMessages compares them with ==", n)
	}
	base := agent.Message{Role: agent.RoleAssistant, Content: "c", ToolCallID: "i", Name: "n",
		ToolCalls: []agent.ToolCall{{ID: "a", Name: "b", Arguments: "{}"}}}
	variants := []func(m *agent.Message){
		func(m *agent.Message) { m.Role = agent.RoleUser },
		func(m *agent.Message) { m.Content = "d" },
		func(m *agent.Message) { m.ToolCallID = "j" },
		func(m *agent.Message) { m.Name = "o" },
		func(m *agent.Message) { m.ToolCalls = nil },
		func(m *agent.Message) { m.Images = []agent.Image{{MIME: "image/png", Data: "AAAA"}} },
		func(m *agent.Message) { m.ToolCalls = []agent.ToolCall{{ID: "x", Name: "b", Arguments: "{}"}} },
		func(m *agent.Message) { m.ToolCalls = []agent.ToolCall{{ID: "a", Name: "x", Arguments: "{}"}} },
		func(m *agent.Message) { m.ToolCalls = []agent.ToolCall{{ID: "a", Name: "b", Arguments: "{ }"}} },
		func(m *agent.Message) { m.Reasoning = []json.RawMessage{[]byte(`{"type":"reasoning"}`)} },
	}
	if !sameMessages([]agent.Message{base}, []agent.Message{base}) {
		t.Fatal("a message differs from itself")
	}
	for i, change := range variants {
		m := base
		change(&m)
		if sameMessages([]agent.Message{base}, []agent.Message{m}) {
			t.Errorf("variant %d compares equal", i)
		}
	}
}
