package acp

import (
	"context"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
)

// replay sends a stored session's conversation as session/update
// notifications, the way session/load wants it: the user's messages, the
// agent's, and each tool call with its result; then the model's latest plan
// and the usage with the session's running cost, as the live session last
// sent them.
func (a *Agent) replay(ctx context.Context, s *acpSession, stored *session.Session) {
	out := a.newStream(s)
	out.priced(a.loadConfig(s), s)
	calls := map[string]*agent.ToolCall{}
	var plan *agent.WorkPlan
	for _, m := range stored.Messages {
		if ctx.Err() != nil {
			return
		}
		switch m.Role {
		case agent.RoleUser:
			if m.Content != "" {
				id := newUUID()
				out.send(sdk.SessionUpdate{UserMessageChunk: &sdk.SessionUpdateUserMessageChunk{Content: sdk.TextBlock(out.redact(m.Content)), MessageId: &id}})
			}
			out.endMessage()
		case agent.RoleAssistant:
			if strings.TrimSpace(m.Content) != "" {
				out.text(m.Content)
			}
			out.endMessage()
			for i := range m.ToolCalls {
				c := m.ToolCalls[i]
				calls[c.ID] = &c
				out.toolCall(&c)
			}
		case agent.RoleTool:
			c := calls[m.ToolCallID]
			if c == nil {
				c = &agent.ToolCall{ID: m.ToolCallID, Name: m.Name}
			}
			isErr := strings.HasPrefix(m.Content, "error:") || strings.HasPrefix(m.Content, "refused:")
			out.toolResult(agent.Event{Kind: agent.KindToolResult, Call: c, Output: m.Content, IsErr: isErr})
			if c.Name == tools.PlanToolName && !isErr {
				if p, err := agent.ParsePlan([]byte(c.Arguments)); err == nil {
					plan = &p
				}
			}
		}
	}
	if ctx.Err() != nil {
		return
	}
	if plan != nil {
		out.modelPlan(plan)
	}
	if u := lastUsage(stored); u != nil {
		out.event(agent.Event{Kind: agent.KindUsage, Usage: u, TaskUsage: &agent.Usage{}})
	}
}

// lastUsage is the usage of the stored session's last model request, from
// its newest task that recorded one.
func lastUsage(stored *session.Session) *agent.Usage {
	for i := len(stored.Tasks) - 1; i >= 0; i-- {
		if u := stored.Tasks[i].LastUsage; u != nil {
			return u
		}
	}
	return nil
}
