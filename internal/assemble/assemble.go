package assemble

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/hooks"
	"github.com/agentls/agentls/internal/llm/chat"
	"github.com/agentls/agentls/internal/llm/responses"
	"github.com/agentls/agentls/internal/mcp"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/policy/approval"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/subagent"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/verify/gate"
)

// Spec is everything one task's driver is made of.
type Spec struct {
	Config config.Config
	Root   string // absolute workspace root
	// Workspace is the front end's view of the files: the editor's
	// buffers (LSP), the client's fs methods (ACP) or the disk (CLI).
	Workspace agent.Workspace
	// LLM is the model backend [DefaultLLM(Config)]; a replay or a
	// recorder wraps it here.
	LLM agent.LLM
	// Approver decides whether commands and MCP tools may run (see
	// approval.New); nil refuses every command that needs a question.
	Approver tools.Approver
	// Verifier is the verify gate (see NewGate); nil: no gate.
	Verifier driver.Verifier
	// MCP is the front end's manager of MCP servers, which may outlive the
	// task; nil: no MCP tools. Errors starting servers go to Warn.
	MCP *mcp.Manager
	// Session persists the task's turns and events; nil: in memory only.
	Session *session.Recorder
	// Recall returns memories of earlier tasks for the prompt; nil: none.
	Recall func(ctx context.Context, task string) []string
	// OnEvent receives every event of the task, after the session did.
	OnEvent func(agent.Event)
	// ConfirmWrite asks the user whether the model may change a file that
	// configures agentls or the editor; nil: such changes are refused.
	ConfirmWrite func(ctx context.Context, rel, why string) (bool, error)
	// AskNetwork asks the user whether a command that failed for want of
	// network may run again with it; nil: never asked.
	AskNetwork func(ctx context.Context, command string) (bool, error)
	// EventHooks are the task's hooks in the shared format (HookRunner;
	// Run sets them); nil: none.
	EventHooks *hooks.Runner
	// Until is the task's stop condition: a command that must succeed in
	// the sandbox before the task may end; the model goes back to work
	// while it fails, within the budget. "": none.
	Until string
	// Warn reports a problem a person should see; nil: dropped.
	Warn func(msg string)
	// Log is the front end's logger, for what the driver logs; nil: none.
	Log *zap.Logger
	// Seen are files whose whole text the task's prompt holds (its @
	// mentions, see Mentioned): read, as far as read-before-edit goes.
	Seen []string
	// CacheKey is sent with every model request of the task (Responses
	// API: prompt_cache_key); Run sets it from the session, so it is the
	// same for all tasks of one session. "": none.
	CacheKey string
}

// Planner is the prompt of a task in root: the profile agent.promptProfile
// picks for the model, the edit tool agent.editTool gives it, the
// environment (OS, shell, sandbox, network, approval, today's date) and the
// orientation (the checks, git status, the repository map: Orientation).
func Planner(cfg config.Config, root string, recall func(ctx context.Context, task string) []string) driver.WorkspacePlanner {
	approval := "a command runs only if tools.allow covers it or the user approves it when asked; a refused command returns an error saying why"
	if slices.Contains(cfg.Tools.Allow, "*") {
		approval = "run without asking, except those tools.deny refuses"
	}
	shell := "/bin/sh"
	return driver.WorkspacePlanner{
		Root:    root,
		Profile: cfg.Agent.PromptProfile,
		Model:   cfg.LLM.Model,
		Patch:   tools.UsesPatch(cfg.Agent.EditTool, cfg.LLM.Model),
		Env: driver.Environment{
			OS: runtime.GOOS, Arch: runtime.GOARCH, Shell: shell,
			Date:    time.Now().Format("2006-01-02"),
			Sandbox: cfg.Sandbox.Mode, Network: cfg.Sandbox.Network,
			Approval: approval,
		},
		Recall:      recall,
		Orientation: func(ctx context.Context) string { return Orientation(ctx, cfg, root) },
	}
}

// Driver builds the driver for one task.
func Driver(ctx context.Context, s Spec) *driver.Driver {
	cfg := s.Config
	llm := s.LLM
	if llm == nil {
		llm = DefaultLLM(cfg)
	}
	llm = Scrubbed(llm, Scrubber(cfg))
	lim := Limits(cfg)
	lim.Verify = lim.Verify && s.Verifier != nil
	// Whether the sandbox can be had here is probed (a process launch)
	// only when something is about to run: a task that runs nothing never
	// pays for it. Where it is unavailable, the user is told once, and
	// every command and check is asked about (Approver, Gate).
	approver := s.Approver
	if approver != nil && cfg.Sandbox.Mode != proc.ModeOff {
		var once sync.Once
		inner := approver
		approver = tools.ApproverFunc(func(ctx context.Context, command string) (bool, string, error) {
			once.Do(func() {
				if _, confined, why := Sandbox(cfg, s.Root); !confined && s.Warn != nil {
					s.Warn("the sandbox is unavailable here (" + why + "): every command and check is asked about before it runs")
				}
			})
			return inner.Approve(ctx, command)
		})
	}
	ws := recordFirstTexts(s.Workspace)
	if g, ok := s.Verifier.(*gate.Gate); ok {
		if g.Approve == nil && approver != nil {
			g.Approve = approver.Approve
		}
		if g.Before == nil {
			g.Before = ws.before
		}
		if g.Warn == nil {
			g.Warn = s.Warn
		}
	}
	askNetwork, confirmWrite := s.AskNetwork, s.ConfirmWrite
	if cfg.Tools.Approval == config.ApprovalNever {
		// tools.approval "never": nothing is asked; what would be, is refused.
		askNetwork, confirmWrite = nil, nil
	}
	toolset := tools.Default(ws, tools.Options{
		Policy:       tools.Policy{Root: s.Root, SecretFiles: cfg.Tools.SecretFiles},
		Approver:     approver,
		Sandbox:      configured(cfg, s.Root),
		Secrets:      secrets(cfg),
		AskNetwork:   askNetwork,
		ConfirmWrite: confirmWrite,
		EditTool:     cfg.Agent.EditTool,
		Model:        cfg.LLM.Model,

		ReadBeforeEdit: cfg.Agent.ReadBeforeEdit,
		Seen:           s.Seen,
		Images:         TakesImages(cfg, cfg.LLM.Model),
	})
	toolset = append(toolset, tools.UpdatePlan())
	if n := cfg.Agent.SubagentSteps; n > 0 {
		// The explore tool: a helper that reads with the task's policy,
		// sandbox and secret rules, in the read-only sandbox, and asks
		// nobody (a command that would need a question is refused).
		readOnly := tools.ReadOnly(s.Workspace, tools.Options{
			Policy:   tools.Policy{Root: s.Root, SecretFiles: cfg.Tools.SecretFiles},
			Approver: approval.New(cfg, nil, nil),
			Sandbox:  configured(cfg, s.Root),
			Secrets:  secrets(cfg),
			EditTool: cfg.Agent.EditTool,
			Model:    cfg.LLM.Model,
		})
		toolset = append(toolset, subagent.New(subagent.Config{
			LLM: llm, Tools: readOnly, MaxSteps: n, Root: s.Root, Log: s.Log,
			ToolTimeout: time.Duration(cfg.Agent.ToolTimeoutSeconds) * time.Second,
		}))
	}
	if s.MCP != nil {
		more, errs := s.MCP.Tools(ctx, approver)
		for _, err := range errs {
			if s.Warn != nil {
				s.Warn("MCP: " + cfg.Redact(err.Error()))
			}
		}
		toolset = append(toolset, more...)
	}
	toolset = hooked(toolset, s.EventHooks)
	planner := Planner(cfg, s.Root, s.Recall)
	planner.Secret = tools.Policy{Root: s.Root, SecretFiles: cfg.Tools.SecretFiles}.IsSecret
	d := &driver.Driver{
		LLM:         llm,
		Model:       cfg.LLM.Model,
		CacheKey:    s.CacheKey,
		Tools:       toolset,
		Planner:     planner,
		Root:        s.Root,
		Secret:      planner.Secret,
		Verifier:    s.Verifier,
		Limits:      lim,
		ToolTimeout: time.Duration(cfg.Agent.ToolTimeoutSeconds) * time.Second,
		TaskTimeout: time.Duration(cfg.Agent.TaskTimeoutSeconds) * time.Second,
	}
	var stop stoppers
	if s.EventHooks.Active(hooks.Stop) {
		stop = append(stop, hookStop{s.EventHooks})
	}
	if s.Until != "" {
		stop = append(stop, until{command: s.Until, cfg: cfg, root: s.Root, ws: s.Workspace})
	}
	if len(stop) > 0 {
		d.Stopper = stop
	}
	d.Price.Input, d.Price.Output = Price(cfg)
	if cfg.Agent.MaxCostUSD > 0 && d.Price.Input == 0 && d.Price.Output == 0 && s.Warn != nil {
		s.Warn("agent.maxCostUSD is set, but no price is known for the model " + cfg.LLM.Model + ": set llm.prices, or the cost budget is never reached")
	}
	d.Log = s.Log
	if s.Warn != nil {
		d.OnAbandoned = func(_ agent.ToolCall, msg string) { s.Warn(msg) }
	}
	observe(d, s)
	return d
}

// Mentioned are the files a prompt's @ mentions put in it whole (not a
// line range, not cut): the model has read them.
func Mentioned(cfg config.Config, root, prompt string) []string {
	secret := tools.Policy{Root: root, SecretFiles: cfg.Tools.SecretFiles}.IsSecret
	var out []string
	for _, m := range driver.Mentions(root, prompt, secret) {
		if m.Start == 0 && !strings.HasSuffix(m.Text, "\n[file truncated]") {
			out = append(out, m.Path)
		}
	}
	return out
}

// ActorDriver builds the driver for a task whose model acts on its own (an
// external ACP agent, driver.Actor): no tools and no planner of agentls's,
// but the same machine, verify gate, limits, timeout, session and events as
// Driver's. The agent keeps its own context, so agentls never compacts it,
// and its model's price is not agentls's to know.
func ActorDriver(s Spec, model driver.Actor) *driver.Driver {
	lim := Limits(s.Config)
	lim.Verify = lim.Verify && s.Verifier != nil
	lim.ContextTokens = math.MaxInt32
	lim.PriceInput, lim.PriceOutput = 0, 0
	name := ""
	if acp := s.Config.Agent.Backend.ACP; acp != nil {
		name = acp.Command
	}
	d := &driver.Driver{
		LLM:         ScrubbedActor(model, Scrubber(s.Config)),
		Model:       name,
		Root:        s.Root,
		Verifier:    s.Verifier,
		Limits:      lim,
		TaskTimeout: time.Duration(s.Config.Agent.TaskTimeoutSeconds) * time.Second,
		Log:         s.Log,
	}
	observe(d, s)
	return d
}

// observe has the session record the driver's turns and events, and the
// front end see the events after it.
func observe(d *driver.Driver, s Spec) {
	onEvent := s.OnEvent
	if s.Session != nil {
		d.OnConversation = s.Session.Conversation
		d.OnEvent = func(ev agent.Event) {
			s.Session.Event(ev)
			if onEvent != nil {
				onEvent(ev)
			}
		}
	} else {
		d.OnEvent = onEvent
	}
	if d.OnEvent == nil {
		d.OnEvent = func(agent.Event) {}
	}
}

// DefaultLLM is the model backend for a configuration: any
// OpenAI-compatible server, over chat completions or the Responses API as
// llm.api selects.
func DefaultLLM(cfg config.Config) agent.LLM { return llmFor(cfg, 0) }

// llmFor is DefaultLLM asking for at most maxTokens of answer (0: the
// server's default).
func llmFor(cfg config.Config, maxTokens int) agent.LLM {
	if API(cfg) == responses.APIResponses {
		return responses.New(responses.Config{
			BaseURL:         cfg.LLM.BaseURL,
			APIKey:          cfg.LLM.APIKey,
			Model:           cfg.LLM.Model,
			ReasoningEffort: cfg.LLM.ReasoningEffort,
			IdleTimeout:     time.Duration(cfg.LLM.IdleTimeoutSeconds) * time.Second,
			MaxTokens:       maxTokens,
		})
	}
	return chat.NewOpenAI(chat.OpenAIConfig{
		BaseURL:     cfg.LLM.BaseURL,
		APIKey:      cfg.LLM.APIKey,
		Model:       cfg.LLM.Model,
		IdleTimeout: time.Duration(cfg.LLM.IdleTimeoutSeconds) * time.Second,
		MaxTokens:   maxTokens,
	})
}

// API is the wire API cfg's model is reached over: "chat" (chat
// completions) or "responses" (the Responses API), as llm.api selects.
func API(cfg config.Config) string {
	return responses.Select(cfg.LLM.API, cfg.LLM.BaseURL, cfg.LLM.Model)
}

// Limits are the machine's limits from the configuration.
func Limits(cfg config.Config) agent.Limits {
	lim := agent.DefaultLimits()
	lim.MaxSteps = cfg.Agent.MaxSteps
	lim.MaxCostUSD = cfg.Agent.MaxCostUSD
	lim.PriceInput, lim.PriceOutput = Price(cfg)
	lim.MaxRetries = cfg.Agent.MaxRetries
	lim.ContextTokens = cfg.LLM.ContextTokens
	lim.MaxToolOutput = cfg.Agent.MaxToolOutput
	lim.Verify = cfg.Verify.Enabled
	return lim
}

// Price is the model's price per million input and output tokens, from
// llm.prices (the model's own entry), the built-in table (prices.go),
// else llm.prices["*"]; zero when unknown.
func Price(cfg config.Config) (input, output float64) {
	if p, ok := cfg.LLM.Prices[cfg.LLM.Model]; ok {
		return p.Input, p.Output
	}
	if p, ok := builtinPrice(cfg.LLM.Model); ok {
		return p.Input, p.Output
	}
	if p, ok := cfg.LLM.Prices["*"]; ok {
		return p.Input, p.Output
	}
	return 0, 0
}

// configured is the sandbox the sandbox.* settings ask for, without
// probing whether this machine can provide it (proc.Run and the gate find
// out when something runs).
func configured(cfg config.Config, root string) proc.Sandbox {
	sb := proc.Sandbox{
		Mode:          cfg.Sandbox.Mode,
		Network:       cfg.Sandbox.Network,
		Workspace:     root,
		WritableRoots: cfg.Sandbox.WritableRoots,
		// The one list of protected names, the secret files and the
		// user's credentials: the policy's lists, enforced by the sandbox.
		Protect:     policy.ProtectedNames(),
		SecretFiles: cfg.Tools.SecretFiles,
		DenyRead:    append(policy.DefaultDenyRead(), cfg.Sandbox.DenyRead...),
		AllowRead:   cfg.Sandbox.AllowRead,
		MemoryMax:   int64(cfg.Sandbox.MemoryMiB) << 20,
	}
	if cfg.Sandbox.MemoryMiB == 0 {
		sb.MemoryMax = -1 // no cap
	}
	if d, err := session.StateDir(); err == nil {
		sb.DenyRead = append(sb.DenyRead, d)
	}
	if sb.Mode == "" {
		sb.Mode = proc.ModeWorkspaceWrite
	}
	return sb
}

// Declaration is what a command sandboxed by the sandbox.* settings sees
// of the machine, for `agentls sandbox show`.
func Declaration(cfg config.Config, root string) (proc.Declaration, error) {
	return proc.Declare(configured(cfg, root), proc.CleanEnv(nil, secrets(cfg)))
}

// Sandbox is the sandbox for what runs on the model's behalf, from the
// sandbox.* settings. confined is false when the settings turn it off or
// this machine cannot provide it (why says which); the sandbox returned is
// then Mode "off", and the policy asks before every command and check.
func Sandbox(cfg config.Config, root string) (sb proc.Sandbox, confined bool, why string) {
	sb = configured(cfg, root)
	if sb.Mode == proc.ModeOff {
		return sb, false, "sandbox.mode is off"
	}
	if ok, why := proc.Available(); !ok {
		sb.Mode = proc.ModeOff
		return sb, false, why
	}
	return sb, true, ""
}

// secrets are the values no child's environment may hold.
func secrets(cfg config.Config) []string {
	if cfg.LLM.APIKey == "" {
		return nil
	}
	return []string{cfg.LLM.APIKey}
}

// MCPManager prepares the MCP servers of mcpServers for a front end, or
// returns nil when there are none. Stdio servers run in the same sandbox as
// run_command, without the API key in their environment. The front end
// owns the manager and closes it.
func MCPManager(cfg config.Config, root string, log *zap.Logger, warn func(string)) *mcp.Manager {
	if len(cfg.MCPServers) == 0 {
		return nil
	}
	sb, _, _ := Sandbox(cfg, root)
	return mcp.NewManager(cfg.MCPServers, mcp.Options{Logger: log, Root: root, Sandbox: sb, Secrets: secrets(cfg), Warn: warn})
}
