package lsp

import (
	"context"
	"time"

	"github.com/agentls/agentls/internal/llm"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
)

// agentls.models lists what the configured endpoint serves at /v1/models,
// so an editor can offer a model picker; the chosen name goes back in
// agentls.run's "model" argument for one task.

type modelsResult struct {
	Models  []string `json:"models"`
	Current string   `json:"current"`
	BaseURL string   `json:"baseURL"`
}

// about answers what agentls knows of itself and the workspace: the
// endpoint's models, the settings a status item shows, the project
// commands.
type about struct {
	conf    *configState
	ed      *editor // the root (project commands)
	version string
}

// modelsTimeout bounds the request: a picker must not hang on a dead endpoint.
const modelsTimeout = 10 * time.Second

// listModels asks an OpenAI-compatible endpoint for its models, sorted,
// within modelsTimeout (llm.ListModels, which ACP's model picker
// uses too).
func listModels(ctx context.Context, baseURL, key string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	return llm.ListModels(ctx, baseURL, key)
}

// agentls.info tells an editor what it needs to show a task's model,
// context meter and cost, and what a health check reports: never the key,
// only whether one is set.
type infoResult struct {
	Version       string  `json:"version"`
	Model         string  `json:"model"`
	BaseURL       string  `json:"baseURL"`
	ContextTokens int     `json:"contextTokens"`
	KeySet        bool    `json:"keySet"`
	PriceInput    float64 `json:"priceInput,omitempty"` // $ per million tokens; 0: unknown
	PriceOutput   float64 `json:"priceOutput,omitempty"`
	// For the status item: how commands are approved and a task's budget.
	Approval   string  `json:"approval"`
	MaxSteps   int     `json:"maxSteps"`
	MaxCostUSD float64 `json:"maxCostUSD,omitempty"`
}

// infoArgs are agentls.info's arguments.
type infoArgs struct {
	Model string `json:"model,omitempty"` // what a picker chose, for its price
}

// approvalMode is tools.approval as it applies ("sandboxed" when unset).
func approvalMode(cfg config.Config) string {
	if cfg.Tools.Approval == "" {
		return config.ApprovalSandboxed
	}
	return cfg.Tools.Approval
}

func (ab *about) cmdModels(ctx context.Context, _ noArgs) (any, error) {
	cfg := ab.conf.config()
	names, err := listModels(ctx, cfg.LLM.BaseURL, cfg.LLM.APIKey)
	if err != nil {
		// The key never reaches the message: Redact covers a server echoing it.
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls.models: %s", cfg.Redact(err.Error()))
	}
	return modelsResult{Models: names, Current: cfg.LLM.Model, BaseURL: cfg.LLM.BaseURL}, nil
}

func (ab *about) cmdInfo(ctx context.Context, a infoArgs) (any, error) {
	cfg := ab.conf.config()
	if a.Model != "" {
		cfg.LLM.Model = a.Model
	}
	in, out := llm.Price(cfg)
	return infoResult{
		Version: ab.version, Model: cfg.LLM.Model, BaseURL: cfg.LLM.BaseURL,
		ContextTokens: assemble.Limits(cfg).ContextTokens, KeySet: cfg.LLM.APIKey != "",
		PriceInput: in, PriceOutput: out,
		Approval: approvalMode(cfg), MaxSteps: cfg.Agent.MaxSteps, MaxCostUSD: cfg.Agent.MaxCostUSD,
	}, nil
}
