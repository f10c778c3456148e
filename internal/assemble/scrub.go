package assemble

import (
	"context"
	"encoding/json"
	"os"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
)

// Scrubber removes from text the API key and the values of agentls's
// environment variables that proc.IsSecretEnv names.
func Scrubber(cfg config.Config) *policy.Scrubber {
	return policy.NewScrubber(cfg.LLM.APIKey, os.Environ(), proc.IsSecretEnv)
}

// scrubbed is the one place messages leave for the model: every request
// is scrubbed of the secret values, whatever part of the conversation
// (tool results, check output, context files, MCP results) carries them.
type scrubbed struct {
	llm agent.LLM
	s   *policy.Scrubber
}

// Scrubbed wraps llm so that no request it sends holds a secret value.
func Scrubbed(llm agent.LLM, s *policy.Scrubber) agent.LLM {
	if s.Empty() {
		return llm
	}
	if _, ok := llm.(scrubbed); ok {
		return llm
	}
	return scrubbed{llm: llm, s: s}
}

// scrubbedActor is scrubbed for a model that acts on its own (an
// external ACP agent, driver.Actor): what agentls hands it (the task, a
// project command's text, the editor's context, the checks' report) is
// scrubbed as a request to a model is.
type scrubbedActor struct {
	scrubbed
	a driver.Actor
}

// ScrubbedActor wraps a so that nothing agentls hands it holds a secret
// value.
func ScrubbedActor(a driver.Actor, s *policy.Scrubber) driver.Actor {
	if s.Empty() {
		return a
	}
	return scrubbedActor{scrubbed: scrubbed{llm: a, s: s}, a: a}
}

func (l scrubbedActor) Act(ctx context.Context, req agent.Request, onText func(string), onEvent func(agent.Event)) (agent.Response, error) {
	return l.a.Act(ctx, l.scrub(req), onText, onEvent)
}

func (l scrubbed) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	return l.llm.Stream(ctx, l.scrub(req), onText)
}

// scrub is req with the secret values removed from every message, tool
// call and tool description.
func (l scrubbed) scrub(req agent.Request) agent.Request {
	msgs := make([]agent.Message, len(req.Messages))
	for i, m := range req.Messages {
		m.Content = l.s.Scrub(m.Content)
		if len(m.ToolCalls) > 0 {
			calls := make([]agent.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Arguments = l.s.Scrub(c.Arguments)
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		msgs[i] = m
	}
	req.Messages = msgs
	if len(req.Tools) > 0 {
		specs := make([]agent.ToolSpec, len(req.Tools))
		for i, sp := range req.Tools {
			sp.Description = l.s.Scrub(sp.Description)
			if p := l.s.Scrub(string(sp.Parameters)); p != string(sp.Parameters) {
				if !json.Valid([]byte(p)) {
					p = `{"type":"object"}`
				}
				sp.Parameters = json.RawMessage(p)
			}
			specs[i] = sp
		}
		req.Tools = specs
	}
	return req
}
