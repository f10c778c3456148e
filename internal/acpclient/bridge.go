package acpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/policy/approval"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/session"
)

// Bridge runs one task on an external ACP agent (agent.backend.acp) for
// the language server: its loop is the agent's; the files, the questions,
// the checks and the record are the server's. The server fills it in from
// what it builds for its own loop.
type Bridge struct {
	Agent config.ACPAgent
	Root  string
	// Workspace is the editor's view the agent's fs/read_text_file and
	// fs/write_text_file go through (unsaved buffers, versioned
	// applyEdit, review mode, undo).
	Workspace agent.Workspace
	// Ask puts session/request_permission to the user; nil: refused.
	Ask approval.Ask
	// ConfirmWrite asks the user before the agent changes a protected file
	// (policy.Protected); nil: such writes are refused.
	ConfirmWrite func(ctx context.Context, rel, why string) (bool, error)
	// SecretFiles are tools.secretFiles: the agent never reads or writes
	// them [policy.DefaultSecretFiles].
	SecretFiles []string
	// MCPServers are the user's MCP servers (mcpServers), passed to the
	// agent's session.
	MCPServers map[string]config.MCPServer
	// Verifier runs after each turn that changed files; nil: none.
	Verifier driver.Verifier
	// FollowUps is how many times failed checks go back to the agent as a
	// new prompt [1].
	FollowUps int
	Session   *session.Recorder
	OnEvent   func(agent.Event)
	Log       *zap.Logger
}

// Run runs the task and returns its result; it never panics out.
func (b Bridge) Run(ctx context.Context, task driver.Assignment) (res agent.Result) {
	if b.Log == nil {
		b.Log = zap.NewNop()
	}
	if b.FollowUps == 0 {
		b.FollowUps = 1
	}
	r := &bridgeRun{b: b, changed: map[string]bool{}}
	defer func() {
		if p := recover(); p != nil {
			b.Log.Error("panic in the ACP bridge", zap.Any("panic", p), zap.Stack("stack"))
			res = agent.Result{Status: agent.StatusError, Reason: "internal", Error: fmt.Sprintf("internal error: %v", p)}
		}
		res.FilesChanged = r.files()
		r.emit(agent.Event{Kind: agent.KindEnd, Step: r.steps, Result: &res})
	}()
	return r.run(ctx, task)
}

type bridgeRun struct {
	b    Bridge
	conn *sdk.ClientSideConnection
	sid  sdk.SessionId
	// replaying: session/load is replaying the external session; its
	// updates are history, not this task's events.
	replaying atomic.Bool

	mu      sync.Mutex
	changed map[string]bool
	diffs   map[sdk.ToolCallId][]string // files a running tool call reports editing (bridge_diffs.go)
	text    strings.Builder             // the agent's text of the current turn
	steps   int
	usage   agent.Usage
	options []agent.AgentOption // the agent's config options (settings.go)
	mode    *agent.AgentOption  // its modes, when no config option is of category mode
	model   *agent.AgentOption  // its models (session/set_model), when no config option is of category model
}

func (r *bridgeRun) emit(ev agent.Event) {
	if r.b.Session != nil {
		r.b.Session.Event(ev)
	}
	if r.b.OnEvent != nil {
		r.b.OnEvent(ev)
	}
}

func (r *bridgeRun) files() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.changed))
	for f := range r.changed {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func (r *bridgeRun) run(ctx context.Context, task driver.Assignment) agent.Result {
	fail := func(reason, msg string) agent.Result {
		return agent.Result{Status: agent.StatusError, Reason: reason, Error: msg}
	}
	// Through the process package for its own session and process group,
	// so that KillTree reaches what the agent started (codex-acp's npm
	// entry point is a node script running the native binary, which runs
	// shells). It runs unconfined, as before: the agent has its own
	// sandbox and permission requests.
	cmd, err := proc.Command(context.Background(), proc.Spec{
		Argv:    append([]string{r.b.Agent.Command}, r.b.Agent.Args...),
		Dir:     r.b.Root,
		Sandbox: proc.Sandbox{Mode: proc.ModeOff},
	})
	if err != nil {
		return fail("backend", err.Error())
	}
	// The inherited environment was cleaned of credentials; the agent's own
	// env setting is the user's and may name the key the agent needs.
	cmd.Env = agentEnv(cmd.Env, r.b.Agent.Env)
	cmd.Stderr = newAgentStderr(r.b.Log.With(zap.String("acpAgent", r.b.Agent.Command)))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fail("backend", err.Error())
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail("backend", err.Error())
	}
	if err := cmd.Start(); err != nil {
		return fail("backend", fmt.Sprintf("starting the ACP agent %q: %v", r.b.Agent.Command, err))
	}
	defer func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer recoverLog(r.b.Log, "waiting for the ACP agent")
			_ = cmd.Wait()
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
		// Whatever the agent left running dies with it, and the agent too
		// if it did not exit on end of input.
		proc.KillTree(cmd)
		<-done
	}()
	r.conn = sdk.NewClientSideConnection(&bridgeClient{r: r}, stdin, stdout)
	setup, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := r.setup(setup, cmd.Env); err != nil {
		return fail("backend", err.Error())
	}
	msgs := append([]agent.Message(nil), task.History...)
	prompt := task.Prompt
	if task.Editor != "" {
		prompt += "\n\n" + task.Editor
	}
	res := agent.Result{Status: agent.StatusOK, Reason: "done"}
	for turn := 0; ; turn++ {
		stop, err := r.prompt(ctx, prompt)
		msgs = append(msgs, agent.Message{Role: agent.RoleUser, Content: prompt}, agent.Message{Role: agent.RoleAssistant, Content: r.turnText()})
		if r.b.Session != nil {
			r.b.Session.Conversation(ctx, msgs)
		}
		res.Summary = r.turnText()
		switch {
		case ctx.Err() != nil || stop == sdk.StopReasonCancelled:
			return agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled", Error: "cancelled", Steps: r.steps}
		case err != nil:
			return agent.Result{Status: agent.StatusError, Reason: "backend", Error: err.Error(), Steps: r.steps}
		case stop == sdk.StopReasonMaxTurnRequests:
			res = agent.Result{Status: agent.StatusError, Reason: "maxSteps", Error: "the agent reached its turn limit", Summary: res.Summary}
		case stop == sdk.StopReasonMaxTokens:
			res = agent.Result{Status: agent.StatusError, Reason: "context", Error: "the agent ran out of tokens", Summary: res.Summary}
		case stop == sdk.StopReasonRefusal:
			res = agent.Result{Status: agent.StatusError, Reason: "refusal", Error: "the agent refused", Summary: res.Summary}
		}
		res.Steps = r.steps
		if res.Status != agent.StatusOK || r.b.Verifier == nil || len(r.files()) == 0 {
			return res
		}
		r.emit(agent.Event{Kind: agent.KindState, Step: r.steps, From: agent.Executing, To: agent.Verifying})
		rep, err := r.b.Verifier.Verify(ctx, r.files())
		if ctx.Err() != nil {
			return agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled", Error: "cancelled", Steps: r.steps}
		}
		if err != nil {
			rep = agent.VerifyReport{Summary: "the checks could not run: " + err.Error()}
		}
		r.emit(agent.Event{Kind: agent.KindVerify, Step: r.steps, Verify: &rep})
		if rep.Passed {
			res.Verified = true
			return res
		}
		if turn >= r.b.FollowUps {
			res.Reason = "verifyFailed"
			res.Summary += "\n\nChecks failed: " + rep.Summary
			return res
		}
		prompt = "The project's checks failed after your changes. Fix the problems, then stop.\n\n" + rep.Feedback
	}
}

func (r *bridgeRun) turnText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.text.String()
}

// prompt sends one session/prompt; cancelling ctx sends session/cancel and
// waits for the agent to answer.
func (r *bridgeRun) prompt(ctx context.Context, text string) (sdk.StopReason, error) {
	r.mu.Lock()
	r.text.Reset()
	r.steps++
	step := r.steps
	r.mu.Unlock()
	r.emit(agent.Event{Kind: agent.KindState, Step: step, From: agent.Idle, To: agent.Executing})
	type answer struct {
		res sdk.PromptResponse
		err error
	}
	done := make(chan answer, 1)
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("internal error: %v", p)}
			}
		}()
		res, err := r.conn.Prompt(pctx, sdk.PromptRequest{SessionId: r.sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		r.usageFrom(a.res.Usage)
		return a.res.StopReason, a.err
	case <-ctx.Done():
	}
	_ = r.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: r.sid})
	select {
	case a := <-done:
		return a.res.StopReason, a.err
	case <-time.After(5 * time.Second):
		return sdk.StopReasonCancelled, nil
	}
}

func (r *bridgeRun) usageFrom(u *sdk.Usage) {
	if u == nil {
		return
	}
	r.mu.Lock()
	r.usage.InputTokens += u.InputTokens
	r.usage.OutputTokens += u.OutputTokens
	call := agent.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	total := r.usage
	step := r.steps
	r.mu.Unlock()
	r.emit(agent.Event{Kind: agent.KindUsage, Step: step, Usage: &call, TaskUsage: &total})
}

// agentEnv is the agent's environment: base (cleaned of credentials by
// proc.Command) without the API keys agentls reads, plus the configured
// env, where the agent gets its own key.
func agentEnv(base []string, extra map[string]string) []string {
	var out []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := extra[name]; over || name == "AGENTLS_API_KEY" || name == "OPENAI_API_KEY" {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range extra {
		out = append(out, k+"="+v)
	}
	return out
}

func rawJSON(v any) string {
	if v == nil {
		return "{}"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}
