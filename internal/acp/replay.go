package acp

import (
	"context"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/session"
)

// replay sends a stored session's conversation as session/update
// notifications, the way session/load wants it: the user's messages, the
// agent's, and each tool call with its result.
func (a *Agent) replay(ctx context.Context, s *acpSession, stored *session.Session) {
	out := a.newStream(s)
	calls := map[string]*agent.ToolCall{}
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
		}
	}
}
