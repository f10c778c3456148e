package responses

import (
	"net/url"
	"strings"
)

// The values of llm.api.
const (
	APIChat      = "chat"
	APIResponses = "responses"
	APIAuto      = "auto"
)

// needsResponses lists model name patterns that OpenAI serves with tools
// only through the Responses API: GPT-6 (go-openai v1.43 refuses their tool
// calls on chat completions before sending), the codex models, and the
// Responses-only o1-pro, o3-pro, deep-research and computer-use models.
// The reasoning models (IsReasoningModel: o1, o3, o4-mini, gpt-5…) go there
// too: only the Responses API gives their reasoning back to be replayed.
var needsResponses = []struct{ prefix, contains string }{
	{prefix: "gpt-6"},
	{contains: "codex"},
	{prefix: "o1-pro"},
	{prefix: "o3-pro"},
	{contains: "deep-research"},
	{prefix: "computer-use"},
}

// Select returns the wire API to use: APIChat or APIResponses. An explicit
// api wins; "auto" (or "") picks Responses only on the official OpenAI
// endpoint (api.openai.com) for the models that need it, since other
// servers (Ollama, llama.cpp, vLLM, OpenRouter, Azure) either lack
// /v1/responses or serve chat completions as their main path.
func Select(api, baseURL, model string) string {
	switch api {
	case APIChat, APIResponses:
		return api
	}
	if baseURL == "" {
		baseURL = "https://api.openai.com/v1" // the backends' default
	}
	u, err := url.Parse(baseURL)
	if err != nil || !strings.EqualFold(u.Hostname(), "api.openai.com") {
		return APIChat
	}
	m := strings.ToLower(model)
	if IsReasoningModel(m) {
		return APIResponses
	}
	for _, p := range needsResponses {
		if p.prefix != "" && strings.HasPrefix(m, p.prefix) || p.contains != "" && strings.Contains(m, p.contains) {
			return APIResponses
		}
	}
	return APIChat
}
