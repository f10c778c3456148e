package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/session"
)

// Bridge is an external ACP agent (agent.backend.acp) as the model of a
// task: each of its turns is one model call whose tools already ran
// (driver.Actor). The files, the questions and the record are the
// server's; the loop around the turns (the verify gate and its retries,
// agent.maxSteps, the task's timeout, cancellation, the events) is the
// agent machine's, as for a task on agentls's own tools. The server fills
// it in from what it builds for its own loop.
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
	// Session is the agentls session, whose external session a follow-up
	// task continues; nil: none.
	Session *session.Recorder
	Log     *zap.Logger
}

// Start returns the bridge as the task's model. The agent process starts
// with the first turn; Close ends it.
func (b Bridge) Start() *Backend {
	if b.Log == nil {
		b.Log = zap.NewNop()
	}
	return &Backend{r: &bridgeRun{b: b, changed: map[string]bool{}}}
}

// Backend is a running bridge: a driver.Actor.
type Backend struct {
	r *bridgeRun

	mu       sync.Mutex // one turn at a time; guards the fields below
	started  bool
	startErr error
	stop     func()
}

// Stream implements agent.LLM: Act without the turn's tool events.
func (k *Backend) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	return k.Act(ctx, req, onText, nil)
}

// Act implements driver.Actor: one session/prompt with what the machine
// has said since the agent's last turn (the task, the checks' failures, a
// request to wrap up). The text streams through onText, the agent's tool
// calls and results, plans and thoughts through onEvent; Response.Changed
// has the files the task's turns changed so far.
func (k *Backend) Act(ctx context.Context, req agent.Request, onText func(string), onEvent func(agent.Event)) (agent.Response, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.started {
		k.started = true
		k.stop, k.startErr = k.r.start(ctx)
	}
	if k.startErr != nil {
		return agent.Response{}, k.startErr
	}
	r := k.r
	r.mu.Lock()
	r.onText, r.onEvent = onText, onEvent
	held := r.held
	r.held = nil
	r.mu.Unlock()
	// What the agent announced between turns (its settings and commands as
	// the session opened) goes out with this turn, in a fixed order.
	for _, kind := range []string{agent.KindOptions, agent.KindCommands} {
		if ev, ok := held[kind]; ok && onEvent != nil {
			onEvent(ev)
		}
	}
	defer func() {
		r.mu.Lock()
		r.onText, r.onEvent = nil, nil
		r.mu.Unlock()
	}()
	stop, usage, err := r.prompt(ctx, turnPrompt(req.Messages))
	resp := agent.Response{Content: r.turnText(), Usage: usage, Changed: r.files(), FinishReason: string(stop)}
	switch {
	case ctx.Err() != nil:
		return resp, ctx.Err()
	case err != nil:
		return resp, fmt.Errorf("the ACP agent failed: %v", err)
	case stop == sdk.StopReasonCancelled:
		// The agent gave up its turn (Codex does once its patch is denied):
		// the task is cancelled, not failed.
		return resp, fmt.Errorf("the ACP agent cancelled its turn: %w", driver.ErrTurnCancelled)
	case stop == sdk.StopReasonMaxTurnRequests:
		return resp, errors.New("the ACP agent reached its own turn limit")
	case stop == sdk.StopReasonMaxTokens:
		return resp, errors.New("the ACP agent ran out of tokens")
	case stop == sdk.StopReasonRefusal:
		return resp, errors.New("the ACP agent refused")
	}
	return resp, nil
}

// Close ends the agent and whatever it left running.
func (k *Backend) Close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stop != nil {
		k.stop()
		k.stop = nil
	}
}

// turnPrompt is what the machine said since the agent's last turn: the
// task (with the editor's context), or the checks' failures, or a request
// to wrap up. The agent keeps its own conversation, so nothing earlier is
// sent again; the system prompt is agentls's, not the agent's.
func turnPrompt(msgs []agent.Message) string {
	var parts []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != agent.RoleAssistant; i-- {
		if msgs[i].Role == agent.RoleUser && msgs[i].Content != "" {
			parts = append([]string{msgs[i].Content}, parts...)
		}
	}
	return strings.Join(parts, "\n\n")
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
	diffs   map[sdk.ToolCallId][]string // files a running tool call reports editing (diffs.go)
	text    strings.Builder             // the agent's text of the current turn
	// The current turn's sinks (Act's); nil between turns.
	onText  func(string)
	onEvent func(agent.Event)
	// The agent's settings (settings.go): its config options, and its
	// models and modes when no config option of that category stands for
	// them.
	options []agent.AgentOption
	mode    *agent.AgentOption
	model   *agent.AgentOption
	// held are the latest commands and options events the agent sent
	// between turns (as the session opened, say), for the next turn.
	held map[string]agent.Event
}

// emit hands an update of the agent's to the current turn: text to
// onText, the rest to onEvent.
func (r *bridgeRun) emit(ev agent.Event) {
	r.mu.Lock()
	onText, onEvent := r.onText, r.onEvent
	r.mu.Unlock()
	switch {
	case ev.Kind == agent.KindText && onText != nil:
		onText(ev.Text)
	case ev.Kind != agent.KindText && onEvent != nil:
		onEvent(ev)
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

// start launches the agent and opens its session; stop ends both.
func (r *bridgeRun) start(ctx context.Context) (stop func(), err error) {
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
		return nil, err
	}
	// The inherited environment was cleaned of credentials; the agent's own
	// env setting is the user's and may name the key the agent needs.
	cmd.Env = agentEnv(cmd.Env, r.b.Agent.Env)
	cmd.Stderr = newAgentStderr(r.b.Log.With(zap.String("acpAgent", r.b.Agent.Command)))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the ACP agent %q: %v", r.b.Agent.Command, err)
	}
	stop = func() {
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
	}
	r.conn = sdk.NewClientSideConnection(&bridgeClient{r: r}, stdin, stdout)
	setup, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := r.setup(setup, cmd.Env); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

func (r *bridgeRun) turnText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.text.String()
}

// prompt sends one session/prompt; cancelling ctx sends session/cancel and
// waits for the agent to answer.
func (r *bridgeRun) prompt(ctx context.Context, text string) (sdk.StopReason, agent.Usage, error) {
	r.mu.Lock()
	r.text.Reset()
	r.mu.Unlock()
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
		return a.res.StopReason, usageOf(a.res.Usage), a.err
	case <-ctx.Done():
	}
	_ = r.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: r.sid})
	select {
	case a := <-done:
		return a.res.StopReason, usageOf(a.res.Usage), a.err
	case <-time.After(5 * time.Second):
		return sdk.StopReasonCancelled, agent.Usage{}, nil
	}
}

// usageOf is the turn's token count, when the agent reports one.
func usageOf(u *sdk.Usage) agent.Usage {
	if u == nil {
		return agent.Usage{}
	}
	return agent.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
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
