package responses_test

// The faults both wire APIs must report alike (internal/testkit/llmfaults),
// played against this backend through the real fake server.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/llm/chat"
	"github.com/agentls/agentls/internal/llm/responses"
	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/llmfaults"
)

// apis builds each backend for a server URL, for the benchmark.
var apis = []struct {
	name string
	make llmfaults.Backend
}{
	{"chat", func(url string, c llmfaults.Config) agent.LLM {
		return chat.NewOpenAI(chat.OpenAIConfig{BaseURL: url, APIKey: c.APIKey, Model: c.Model, IdleTimeout: c.IdleTimeout})
	}},
	{"responses", responsesBackend},
}

var serve = llmfaults.Serve

var hello = llmfaults.Hello

func ptr[T any](v T) *T { return &v }

// responsesBackend is this backend as llmfaults builds backends.
func responsesBackend(url string, c llmfaults.Config) agent.LLM {
	return responses.New(responses.Config{BaseURL: url, APIKey: c.APIKey, Model: c.Model, IdleTimeout: c.IdleTimeout})
}

// The chat backend's tests play the same tables against it.

func TestFaults(t *testing.T) {
	llmfaults.Run(t, responsesBackend, llmfaults.Common())
}

func TestKeyNeverInErrors(t *testing.T) {
	llmfaults.KeyNeverLeaks(t, responsesBackend, append(llmfaults.KeyCases(),
		// fakellm sends stream errors on /v1/responses only.
		llmfaults.KeyCase{Name: "failed event quoting the key", Turn: fakellm.Turn{Text: "x", StreamError: &fakellm.ErrorReply{Message: "upstream rejected " + llmfaults.TheKey}}}))
	cfg := responses.Config{APIKey: llmfaults.TheKey}
	if s := fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg); strings.Contains(s, "TOPSECRET") {
		t.Errorf("config prints the key: %s", s)
	}
}

func TestCancelMidStream(t *testing.T) {
	llmfaults.CancelMidStream(t, responsesBackend)
}
