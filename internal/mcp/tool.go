package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/tools"
)

// maxNameLen is OpenAI's limit on function names (^[a-zA-Z0-9_-]{1,64}$).
const maxNameLen = 64

// mcpTool is one server tool offered to the model.
type mcpTool struct {
	srv      *server
	tool     string // the name the server knows
	name     string // the name the model sees
	desc     string
	params   json.RawMessage
	readOnly bool
	approver tools.Approver // the task's, bound by Manager.Tools
}

func newTool(s *server, t *sdk.Tool) *mcpTool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	prefix := "(MCP server " + s.name + ")"
	if desc == "" {
		desc = prefix + " " + t.Name
	} else {
		desc = prefix + " " + desc
	}
	mt := &mcpTool{
		srv:      s,
		tool:     t.Name,
		desc:     desc,
		params:   inputSchema(t.InputSchema),
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
	}
	mt.name = toolName(s.name, t.Name)
	return mt
}

// inputSchema is the server's schema as JSON; a tool without one takes no
// arguments.
func inputSchema(v any) json.RawMessage {
	if v != nil {
		if b, err := json.Marshal(v); err == nil && !bytes.Equal(b, []byte("null")) {
			return b
		}
	}
	return json.RawMessage(`{"type":"object","properties":{}}`)
}

func (t *mcpTool) fullName() string { return "mcp__" + t.srv.name + "__" + t.tool }

// bind returns a copy of t named name whose calls ask approver.
func (t *mcpTool) bind(name string, approver tools.Approver) *mcpTool {
	c := *t
	c.name = name
	c.approver = approver
	return &c
}

func (t *mcpTool) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: t.name, Description: t.desc, Parameters: t.params}
}

// ReadOnly trusts the server's readOnlyHint: such tools may run in
// parallel with other read-only tools.
func (t *mcpTool) ReadOnly() bool { return t.readOnly }

func (t *mcpTool) Run(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
	if err := ctx.Err(); err != nil {
		return agent.ToolResult{}, err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = json.RawMessage("{}")
	}
	if !json.Valid(raw) || raw[0] != '{' {
		return agent.ToolResult{}, fmt.Errorf("%s: arguments must be a JSON object, got %.200s", t.name, raw)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, raw)
	// Every call is approved, those the server's allow list names too: its
	// list spares the question, not a tools.deny rule.
	desc := fmt.Sprintf("mcp %s.%s %s", t.srv.name, t.tool, compact.String())
	call := tools.ToolCall{ServerAllows: t.allowed()}
	if err := approve(tools.WithToolCall(ctx, call), t.approver, desc, call); err != nil {
		return agent.ToolResult{}, err
	}
	res, err := t.srv.call(ctx, t.tool, json.RawMessage(compact.Bytes()))
	if err != nil {
		return agent.ToolResult{}, err
	}
	out := render(res)
	if res.IsError {
		return agent.ToolResult{Output: out}, errors.New(out)
	}
	return agent.ToolResult{Output: out}, nil
}

func (t *mcpTool) allowed() bool {
	return slices.ContainsFunc(t.srv.cfg.Allow, func(a string) bool {
		a = strings.TrimSpace(a)
		return a == "*" || a == t.tool
	})
}

// render turns a result's content parts into text for the model: text
// verbatim, other parts as a bracketed note of what they were.
func render(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, strings.TrimSpace(fmt.Sprintf("[resource link: %s %s %s]", c.URI, c.Name, c.MIMEType)))
		case *sdk.EmbeddedResource:
			parts = append(parts, renderResource(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	if len(parts) == 0 {
		return "(no output)"
	}
	return strings.Join(parts, "\n")
}

func renderResource(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource]"
	case r.Text != "":
		return fmt.Sprintf("[resource: %s]\n%s", r.URI, r.Text)
	case r.MIMEType == "":
		return fmt.Sprintf("[resource: %s, %d bytes]", r.URI, len(r.Blob))
	default:
		return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
	}
}

// toolName is the model-facing name: mcp__<server>__<tool> made to fit
// OpenAI's function-name rules.
func toolName(server, tool string) string {
	full := "mcp__" + server + "__" + tool
	s := sanitize(full)
	if len(s) <= maxNameLen {
		return s
	}
	return hashedName(s, full)
}

// hashedName shortens s and ends it with a hash of full, so names that
// were cut, or that sanitized to the same text, stay distinct.
func hashedName(s, full string) string {
	sum := sha256.Sum256([]byte(full))
	h := hex.EncodeToString(sum[:4])
	if len(s) > maxNameLen-len(h)-1 {
		s = s[:maxNameLen-len(h)-1]
	}
	return s + "_" + h
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
