package assemble

import (
	"context"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/llm/chat"
	"github.com/agentls/agentls/internal/mcp"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
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
	// Approver); nil refuses every command that needs a question.
	Approver tools.Approver
	// Verifier is the verify gate (see NewGate); nil: no gate.
	Verifier driver.Verifier
	// MCP is the front end's manager of MCP servers, which may outlive the
	// task; nil: no MCP tools. Errors starting servers go to Warn.
	MCP *mcp.Manager
	// Session persists the task's turns and events; nil: in memory only.
	Session *session.Task
	// Recall returns memories of earlier tasks for the prompt; nil: none.
	Recall func(ctx context.Context, task string) []string
	// OnEvent receives every event of the task, after the session did.
	OnEvent func(agent.Event)
	// Warn reports a problem a person should see; nil: dropped.
	Warn func(msg string)
}

// Driver builds the driver for one task.
func Driver(ctx context.Context, s Spec) *driver.Driver {
	cfg := s.Config
	llm := s.LLM
	if llm == nil {
		llm = DefaultLLM(cfg)
	}
	lim := Limits(cfg)
	lim.Verify = lim.Verify && s.Verifier != nil
	toolset := tools.Default(s.Workspace, tools.Options{
		Policy:   tools.Policy{Root: s.Root, SecretFiles: cfg.Tools.SecretFiles},
		Approver: s.Approver,
	})
	if s.MCP != nil {
		more, errs := s.MCP.Tools(ctx, s.Approver)
		for _, err := range errs {
			if s.Warn != nil {
				s.Warn("MCP: " + cfg.Redact(err.Error()))
			}
		}
		toolset = append(toolset, more...)
	}
	d := &driver.Driver{
		LLM:         llm,
		Model:       cfg.LLM.Model,
		Tools:       toolset,
		Planner:     driver.WorkspacePlanner{Root: s.Root, Recall: s.Recall},
		Verifier:    s.Verifier,
		Limits:      lim,
		ToolTimeout: time.Duration(cfg.Agent.ToolTimeoutSeconds) * time.Second,
		TaskTimeout: time.Duration(cfg.Agent.TaskTimeoutSeconds) * time.Second,
	}
	d.Price.Input, d.Price.Output = Price(cfg)
	onEvent := s.OnEvent
	if s.Session != nil {
		d.Hooks = append(d.Hooks, s.Session)
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
	return d
}

// DefaultLLM is the model backend for a configuration: any
// OpenAI-compatible server.
func DefaultLLM(cfg config.Config) agent.LLM {
	return chat.NewOpenAI(chat.OpenAIConfig{
		BaseURL:     cfg.LLM.BaseURL,
		APIKey:      cfg.LLM.APIKey,
		Model:       cfg.LLM.Model,
		IdleTimeout: time.Duration(cfg.LLM.IdleTimeoutSeconds) * time.Second,
	})
}

// Limits are the machine's limits from the configuration.
func Limits(cfg config.Config) agent.Limits {
	lim := agent.DefaultLimits()
	lim.MaxSteps = cfg.Agent.MaxSteps
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
