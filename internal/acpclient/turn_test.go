package acpclient

import (
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// The agent keeps its own conversation: a turn sends what the machine
// said since the agent's last answer, never the system prompt or older
// turns again.
func TestTurnPrompt(t *testing.T) {
	sys := agent.Message{Role: agent.RoleSystem, Content: "agentls's system prompt"}
	for _, tc := range []struct {
		name string
		msgs []agent.Message
		want string
	}{
		{"the task", []agent.Message{sys, {Role: agent.RoleUser, Content: "fix it"}}, "fix it"},
		{"a follow-up task in the session", []agent.Message{sys, {Role: agent.RoleUser, Content: "first"}, {Role: agent.RoleAssistant, Content: "done"},
			{Role: agent.RoleUser, Content: "second"}}, "second"},
		{"the checks failed", []agent.Message{sys, {Role: agent.RoleUser, Content: "fix it"}, {Role: agent.RoleAssistant, Content: "fixed"},
			{Role: agent.RoleUser, Content: "The project's checks failed"}}, "The project's checks failed"},
		{"two notes at once", []agent.Message{sys, {Role: agent.RoleUser, Content: "fix it"}, {Role: agent.RoleAssistant, Content: "fixed"},
			{Role: agent.RoleUser, Content: "checks failed"}, {Role: agent.RoleUser, Content: "wrap up"}}, "checks failed\n\nwrap up"},
	} {
		if got := turnPrompt(tc.msgs); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
