package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/prompts"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/worktree"
)

// Prompt implements sdk.Agent: one agentls task, streamed as
// session/update, in the session's agentls session.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (_ sdk.PromptResponse, err error) {
	defer barrier(a.log, "session/prompt", &err)
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, linked, notes, err := s.promptText(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	images, err := promptImages(p.Prompt, linked, s.taskConfig())
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	if strings.TrimSpace(text) == "" {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "the prompt has no text"})
	}
	if !a.begin() {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	defer a.running.Done()
	// A new prompt in the same session cancelled the one before it (the
	// connection does that); wait for it to end, so turns stay in order,
	// unless this one is cancelled first.
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	defer func() { <-s.turn }()
	// session/close and the connection's end cancel the prompt through
	// s.cancel; session/cancel through ctx (the SDK's own).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.cancel = cancel
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}()
	if closed || ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}

	out0 := a.newStream(s)
	for _, n := range notes {
		out0.text("_agentls: " + n + "_\n")
	}
	userMsg := newUUID()
	if p.MessageId != nil && *p.MessageId != "" {
		userMsg = *p.MessageId
	}
	if name, args, ok := prompts.Split(text); ok {
		if a.runBuiltin(ctx, s, out0, name, args) {
			if ctx.Err() != nil {
				return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled, UserMessageId: &userMsg}, nil
			}
			return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn, UserMessageId: &userMsg}, nil
		}
		var warn error
		text, warn, _ = assemble.ExpandCommand(s.root, text, s.taskConfig().Tools.SecretFiles)
		if warn != nil {
			a.log.Warn("project commands", zap.Error(warn))
		}
	}
	a.titled(s, out0, text)
	a.settleTrust(ctx, s, out0)
	cfg := s.taskConfig()
	out0.priced(cfg, s)
	out := out0
	ws, err := a.newWorkspace(s, out)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	newLLM := a.opts.NewLLM
	if newLLM == nil {
		newLLM = assemble.DefaultLLM
	}
	start := time.Now()
	s.mu.Lock()
	until := s.until
	s.mu.Unlock()
	res, err := assemble.Run(ctx, a.promptTask(s, out, ws, cfg, newLLM, until, text, images))
	if err != nil {
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32603, Message: "agentls: " + err.Error()}
	}
	s.mu.Lock()
	s.cost += res.Cost
	if len(ws.changedFiles()) > 0 {
		s.last = ws
	}
	s.mu.Unlock()
	a.log.Info("prompt ended", zap.String("session", s.id), zap.String("status", res.Status),
		zap.String("reason", res.Reason), zap.Duration("took", time.Since(start)))
	stop, err := stopReason(res)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	if res.Status == agent.StatusError {
		// An end the stop reasons cannot say: the client shows it as text.
		out.text(fmt.Sprintf("\n\nagentls stopped (%s): %s\n", res.Reason, cfg.Redact(res.Error)))
	}
	u := res.Usage
	return sdk.PromptResponse{StopReason: stop, UserMessageId: &userMsg, Usage: &sdk.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens,
	}}, nil
}

// promptTask is a prompt's task as assemble.Run takes it: the client asks
// (session/request_permission) and shows it (session updates).
func (a *Agent) promptTask(s *acpSession, out *stream, ws *clientWorkspace, cfg config.Config, newLLM func(config.Config) agent.LLM, until, text string, images []agent.Image) assemble.TaskConfig {
	return assemble.TaskConfig{
		Spec: assemble.Spec{
			Config:    cfg,
			Root:      s.root,
			Workspace: ws,
			LLM:       newLLM(cfg),
			MCP:       s.mcpServers(),
			Log:       a.log,
			Until:     until,
		},
		// The client asks (session/request_permission) and shows the task
		// as session updates.
		Ask: assemble.AskFuncs{
			Approver: approval.New(cfg, &s.allowed, a.askToRun(s, out)),
			Confirm:  a.confirmWrite(s, out),
			Network: func(ctx context.Context, command string) (bool, error) {
				const why = "it failed without network in the sandbox"
				return a.ask(ctx, s, out, question{title: "Run `" + command + "` again with network",
					message: "Run `" + command + "` again with network? " + why + ".", call: out.knownCall(command), kind: sdk.ToolKindExecute,
					raw: map[string]any{"command": command, "why": why}, yes: choice{optAllowOnce, "Allow"}, no: choice{optReject, "Reject"}})
			},
		},
		Show: assemble.ShowFuncs{
			OnEvent: out.event,
			OnWarn:  func(msg string) { out.text("\n_agentls: " + msg + "_\n") },
			OnEnded: func(_ context.Context, res agent.Result) (agent.Result, []session.Change) { return res, ws.changes() },
		},
		Prompt:    text,
		Images:    images,
		Worktree:  sessionWorktree(cfg, s.root, s.id),
		Untrusted: assemble.ReadWorkspaceSettings(s.root, trustStore()).Untrusted,
		Store:     s.store,
		Session:   s.id,
		Gate: func(g *assemble.Gate) {
			g.Unsaved = ws.unsaved
			g.OnStart = out.verifyStarted
		},
		Hooks: assemble.Hooks{
			Proposal: func(ctx context.Context, w *worktree.Tree, changes []worktree.Change, notes []string, err error) {
				a.proposeWorktree(ctx, s, out, ws, w, changes, notes, err)
			},
		},
	}
}

// titled names the session after its first prompt and tells the client
// (session_info_update), with the time of this activity.
func (a *Agent) titled(s *acpSession, out *stream, prompt string) {
	s.mu.Lock()
	if s.title == "" {
		s.title = sessionTitle(strings.TrimSpace(prompt))
	}
	title := s.title
	s.mu.Unlock()
	now := time.Now().UTC().Format(time.RFC3339)
	out.send(sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: &title, UpdatedAt: &now}})
}

// newUUID is a random (version 4) UUID, the form ACP wants message IDs in.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// stopReason maps an agentls result to ACP's stop reasons (docs/acp.md, "Stop
// reasons"). An end no stop reason describes, and the model's backend
// failing, is a JSON-RPC error the client shows.
func stopReason(res agent.Result) (sdk.StopReason, error) {
	switch {
	case res.Cancelled:
		return sdk.StopReasonCancelled, nil
	case res.Reason == "done", res.Reason == "verifyFailed", res.Reason == "stuck", res.Reason == "timeout":
		return sdk.StopReasonEndTurn, nil
	case res.Reason == "maxSteps", res.Reason == "budget":
		return sdk.StopReasonMaxTurnRequests, nil
	case res.Reason == "context":
		return sdk.StopReasonMaxTokens, nil
	case res.Status == agent.StatusOK:
		return sdk.StopReasonEndTurn, nil
	}
	return "", &sdk.RequestError{Code: -32603, Message: fmt.Sprintf("agentls: %s: %s", res.Reason, res.Error),
		Data: map[string]any{"reason": res.Reason}}
}

// LoadSession implements sdk.AgentLoader: it replays a stored agentls
// session as session/update notifications, then answers.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (_ sdk.LoadSessionResponse, err error) {
	defer barrier(a.log, "session/load", &err)
	s, err := a.loadStored(p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := s.setExtraDirs(p.AdditionalDirectories); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	stored, err := s.store.Load(s.id)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	a.replay(ctx, s, stored)
	return sdk.LoadSessionResponse{Modes: s.modes(), ConfigOptions: s.configOptions()}, nil
}

// loadStored opens a stored session of cwd's workspace.
func (a *Agent) loadStored(cwd string, servers []sdk.McpServer, id string) (*acpSession, error) {
	if !session.ValidID(id) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%q is not a session ID", id)})
	}
	s, err := a.openSession(cwd, servers, id)
	if err != nil {
		return nil, err
	}
	if s.store == nil {
		return nil, sdk.NewInternalError(map[string]any{"error": "the session store cannot be opened"})
	}
	stored, err := s.store.Load(id)
	if err != nil {
		a.mu.Lock()
		delete(a.sessions, id)
		a.mu.Unlock()
		if errors.Is(err, session.ErrNotFound) {
			return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q in %s", id, s.root)})
		}
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	// The session goes on as it was: its title, the model its last task
	// used when the endpoint still serves it, and its running cost.
	if n := len(stored.Tasks); n > 0 {
		s.mu.Lock()
		s.cost = 0
		for _, t := range stored.Tasks {
			if t.Result != nil {
				s.cost += t.Result.Cost
			}
		}
		s.title = sessionTitle(strings.TrimSpace(stored.Tasks[0].Prompt))
		if m := stored.Tasks[n-1].Model; m != "" && slices.Contains(s.modelList, m) {
			s.model = m
		}
		s.mu.Unlock()
	}
	return s, nil
}

// newID names a session when the store cannot (it failed to open).
func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return time.Now().Format("20060102-150405") + "-" + hex.EncodeToString(b[:3])
}
