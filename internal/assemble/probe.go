package assemble

import (
	"context"
	"encoding/json"

	agentllm "github.com/agentls/agentls/internal/llm"
	"github.com/agentls/agentls/internal/policy"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/llm/responses"
)

// probeTool is the one tool ProbeModel offers: a server or model that
// cannot take tool calls refuses the request, as it would every task's.
var probeTool = agent.ToolSpec{
	Name:        "agentls_doctor",
	Description: "Does nothing; agentls doctor offers it to see that this model accepts tools.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
}

// ProbeModel sends cfg's model one request the way a task's go (the same
// backend, wire API, key and headers, with a tool), asking for a single
// token of answer (16 on the Responses API, its least): agentls doctor's
// proof that a task's first request would be taken. Its error is the
// backend's, so it says whether the endpoint, the key, the model or the
// tools are the trouble; the key is never in it.
func ProbeModel(ctx context.Context, cfg config.Config) (agent.Response, error) {
	max := 1
	if API(cfg) == responses.APIResponses {
		max = 16
	}
	req := agent.Request{
		Model:    cfg.LLM.Model,
		Messages: []agent.Message{{Role: agent.RoleUser, Content: "Reply with the one word: ok"}},
		Tools:    []agent.ToolSpec{probeTool},
	}
	return agentllm.Scrubbed(llmFor(cfg, max), policy.ScrubberFor(cfg.LLM.APIKey)).Stream(ctx, req, func(string) {})
}
