package acp

import (
	"context"
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// agentls's own questions to the user — trusting a workspace's settings,
// changing a protected file, running a command again with network, merging
// a worktree task's change — are not a tool's permission. Where the client
// advertises form elicitation (clientCapabilities.elicitation.form, ACP
// stable since July 2026) they are an elicitation/create with one required
// choice; elsewhere they are the session/request_permission they always
// were. The choices are the same in both, by the same ids, and mean the
// same: the "yes" choice is a yes; the other choice, a decline, a
// cancellation or no answer is a no. This file owns that policy.

// question is one yes-or-no question.
type question struct {
	title   string // the permission's tool call title, and the form's
	message string // what is asked and why, for the form
	// call is the tool call the question is about ("": none the client
	// knows; the fallback makes a pending one of its own).
	call    string
	kind    sdk.ToolKind
	content []sdk.ToolCallContent // the fallback tool call's content (a merge's diff)
	raw     map[string]any        // the fallback tool call's raw input
	yes, no choice
}

// choice is one answer: its id (a permission option's, and the form
// field's value) and its label.
type choice struct{ id, name string }

// answerField is the form's one field.
const answerField = "answer"

// ask asks q: true for yes. The error is a question that was not answered
// because the prompt was cancelled (ctx's error) or the request failed.
func (a *Agent) ask(ctx context.Context, s *acpSession, out *stream, q question) (bool, error) {
	a.mu.Lock()
	form := a.elicitForm
	a.mu.Unlock()
	if form {
		return a.elicit(ctx, s, out, q)
	}
	id := q.call
	if id == "" {
		id = out.callFor(q.title)
	}
	kind := q.kind
	if kind == "" {
		kind = sdk.ToolKindOther
	}
	status := sdk.ToolCallStatusPending
	title := q.title
	res, err := a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.id),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: &title, Kind: &kind, Status: &status, Content: q.content, RawInput: q.raw},
		Options: []sdk.PermissionOption{
			{OptionId: sdk.PermissionOptionId(q.yes.id), Name: q.yes.name, Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: sdk.PermissionOptionId(q.no.id), Name: q.no.name, Kind: sdk.PermissionOptionKindRejectOnce},
		}})
	if err != nil {
		return false, askFailed(ctx, err)
	}
	return res.Outcome.Selected != nil && string(res.Outcome.Selected.OptionId) == q.yes.id, nil
}

// elicitRequest is elicitation/create in form mode, scoped to a session
// (and a tool call). The SDK's UnstableCreateElicitationForm (v0.13.0) has
// no sessionId, which the session scope requires, so agentls sends its own
// (wire.call); a cancelled prompt sends $/cancel_request for it.
type elicitRequest struct {
	SessionID  string         `json:"sessionId"`
	ToolCallID string         `json:"toolCallId,omitempty"`
	Mode       string         `json:"mode"`
	Message    string         `json:"message"`
	Schema     map[string]any `json:"requestedSchema"`
}

// elicit asks q as a form with one required choice.
func (a *Agent) elicit(ctx context.Context, s *acpSession, out *stream, q question) (bool, error) {
	opts := []any{}
	for _, c := range []choice{q.yes, q.no} {
		opts = append(opts, map[string]any{"const": c.id, "title": c.name})
	}
	req := elicitRequest{SessionID: s.id, ToolCallID: q.call, Mode: "form", Message: out.redact(q.message),
		Schema: map[string]any{"type": "object", "title": out.redact(q.title),
			"properties": map[string]any{answerField: map[string]any{"type": "string", "title": "Answer", "oneOf": opts}},
			"required":   []string{answerField}}}
	raw, err := a.wire.call(ctx, a.conn.Done(), sdk.ClientMethodElicitationCreate, req)
	if err != nil {
		return false, askFailed(ctx, err)
	}
	var res sdk.UnstableCreateElicitationResponse
	if err := json.Unmarshal(raw, &res); err != nil {
		a.log.Warn("elicitation/create: the client's answer", zap.Error(err))
		return false, nil
	}
	if res.Accept == nil {
		return false, nil // declined or cancelled
	}
	v, _ := res.Accept.Content[answerField].(string)
	return v == q.yes.id, nil
}

// yesNo asks something that is not a command: trusting the workspace's
// settings, changing a protected file, running a command again with
// network. Only the yes ("allow-once") is a yes.
func (a *Agent) yesNo(ctx context.Context, s *acpSession, out *stream, title, message string, raw map[string]any) (bool, error) {
	return a.ask(ctx, s, out, question{title: title, message: message, raw: raw,
		yes: choice{optAllowOnce, "Allow"}, no: choice{optReject, "Reject"}})
}

// knownCall is the tool call that runs command, when the client has seen
// one ("": none).
func (o *stream) knownCall(command string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.commands[command]
}

// confirmWrite asks about a write to a protected file (the tools' and a
// worktree merge's).
func (a *Agent) confirmWrite(s *acpSession, out *stream) func(ctx context.Context, rel, why string) (bool, error) {
	return func(ctx context.Context, rel, why string) (bool, error) {
		return a.yesNo(ctx, s, out, "Change "+rel, "Change "+rel+"? It "+why+".", map[string]any{"path": rel, "why": "it " + why})
	}
}
