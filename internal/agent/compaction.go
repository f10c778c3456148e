package agent

// Compaction: when the history nears the context window, the oldest turns
// are summarized (Compact → Compacted) or digested by the machine itself.

import (
	"fmt"
	"strings"
)

// tokens estimates the request size: about four bytes a token, plus a
// little per message, plus the tool schemas.
func (m *Machine) tokens() int {
	n := m.limits.ToolsTokens
	for i := range m.history {
		n += MessageTokens(&m.history[i])
	}
	return n
}

// MessageTokens estimates one message's tokens (bytes/4 plus framing).
func MessageTokens(msg *Message) int {
	b := len(msg.Content) + len(msg.Name) + len(msg.ToolCallID)
	// An image costs the model about a thousand tokens, whatever its bytes.
	b += 4000 * len(msg.Images)
	for _, c := range msg.ToolCalls {
		b += len(c.Name) + len(c.Arguments) + len(c.ID) + 8
	}
	return b/4 + 4
}

// dropOldest picks the oldest turns to drop, down to compactTo of the
// window, cutting only before an assistant or user message so a tool call
// is never separated from its result. The prefix, the task and the newest
// turn of this task are always kept; earlier session turns, before the
// task, may all go. It returns the dropped messages; Compacted applies the
// cut.
func (m *Machine) dropOldest() []Message {
	lastTurn := len(m.history)
	for i := len(m.history) - 1; i > m.taskIdx; i-- {
		if r := m.history[i].Role; r == RoleAssistant || r == RoleUser {
			lastTurn = i
			break
		}
	}
	target := int(float64(m.limits.ContextTokens) * compactTo)
	total := m.tokens()
	cut := m.prefix
	for i := m.prefix; i < lastTurn; i++ {
		if i != m.taskIdx {
			total -= MessageTokens(&m.history[i])
		}
		if next := i + 1; next < lastTurn && m.history[next].Role != RoleTool || next == lastTurn {
			cut = next
			if total <= target {
				break
			}
		}
	}
	var dropped []Message
	for i := m.prefix; i < cut; i++ {
		if i != m.taskIdx {
			dropped = append(dropped, m.history[i])
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	m.cut = cut
	m.dropped = dropped
	m.oldTask = m.taskIdx
	return dropped
}

// compacted replaces the dropped turns by one summary message placed before
// the task, and makes the call that was waiting.
func (m *Machine) compacted(in Compacted) []Action {
	if m.cut == 0 {
		return nil
	}
	summary, how := in.Summary, "summary"
	if in.Err != nil || strings.TrimSpace(summary) == "" {
		summary, how = Digest(m.dropped), "digest"
	}
	m.usage = m.usage.Add(in.Usage)
	before := m.tokens()
	h := append([]Message(nil), m.history[:m.prefix]...)
	h = append(h, Message{Role: RoleUser, Content: summaryHeader + summary})
	if m.cut <= m.oldTask {
		m.taskIdx = len(h) + m.oldTask - m.cut
		h = append(h, m.history[m.cut:]...)
	} else {
		m.taskIdx = len(h)
		h = append(h, m.history[m.oldTask])
		h = append(h, m.history[m.cut:]...)
	}
	m.history = h
	n := len(m.dropped)
	m.cut, m.dropped = 0, nil
	acts := []Action{Emit{Event{Kind: KindCompaction, Step: m.steps,
		Text: fmt.Sprintf("dropped %d messages (about %d → %d tokens), replaced by a %s", n, before, m.tokens(), how)}}}
	if m.tokens() > m.limits.ContextTokens {
		return append(acts, m.finish(Result{Status: StatusError, Reason: "context",
			Error: fmt.Sprintf("the conversation needs about %d tokens after compaction (llm.contextTokens is %d)", m.tokens(), m.limits.ContextTokens)})...)
	}
	return append(acts, m.modelCall()...)
}

// summaryHeader starts the message that replaces compacted turns.
const summaryHeader = "[Summary of earlier turns, dropped to fit the context window]\n"

const digestHeader = "Earlier in this task (older turns were dropped to fit the context window):\n"

// Digest is a deterministic account of dropped turns, used when the
// summary call fails.
func Digest(dropped []Message) string {
	var b strings.Builder
	b.WriteString(digestHeader)
	results := map[string]string{}
	for _, d := range dropped {
		if d.Role == RoleTool {
			results[d.ToolCallID] = d.Content
		}
	}
	for _, d := range dropped {
		switch d.Role {
		case RoleAssistant:
			if t := firstLine(d.Content, 160); t != "" {
				fmt.Fprintf(&b, "- you said: %s\n", t)
			}
			for _, c := range d.ToolCalls {
				res := results[c.ID]
				status := "ok"
				if strings.HasPrefix(res, "error:") || strings.HasPrefix(res, "refused:") {
					status = firstLine(res, 120)
				}
				fmt.Fprintf(&b, "- %s %s → %s\n", c.Name, firstLine(canonicalJSON(c.Arguments), 160), status)
			}
		case RoleUser:
			// An earlier summary is dropped again: keep what it says, not
			// just its header line.
			if body, ok := strings.CutPrefix(d.Content, summaryHeader); ok {
				body = strings.TrimPrefix(body, digestHeader)
				b.WriteString(strings.TrimRight(body, "\n") + "\n")
				continue
			}
			fmt.Fprintf(&b, "- user: %s\n", firstLine(d.Content, 160))
		}
	}
	return b.String()
}
