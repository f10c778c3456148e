package e2e

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// The commands the editors' pickers and meters use: agentls.models lists
// the endpoint's models, agentls.info gives what a context meter and a
// health check need, and agentls.run's model reaches the model server.
func TestModelsInfoAndModelArgument(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: `{"models": ["zeta", "gpt-4o-mini"], "turns": [{"text": "ok"}]}`})
	var models struct {
		Models  []string `json:"models"`
		Current string   `json:"current"`
	}
	if err := s.Command(s.ctx, "agentls.models", map[string]any{}, &models); err != nil {
		t.Fatal(err)
	}
	if strings.Join(models.Models, ",") != "gpt-4o-mini,zeta" || models.Current != "test-model" {
		t.Errorf("agentls.models = %+v", models)
	}
	var info map[string]any
	if err := s.Command(s.ctx, "agentls.info", map[string]any{"model": "gpt-4o-mini"}, &info); err != nil {
		t.Fatal(err)
	}
	if info["keySet"] != true || info["priceInput"] != 0.15 || info["contextTokens"] != float64(128000) {
		t.Errorf("agentls.info = %v", info)
	}
	for _, v := range info {
		if s, ok := v.(string); ok && strings.Contains(s, "sk-test-secret") {
			t.Errorf("agentls.info shows the key: %v", info)
		}
	}
	r := s.run(t, map[string]any{"task": "say ok", "model": "zeta"})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	if got := s.LLM.Requests()[0].Body.Model; got != "zeta" {
		t.Errorf("the task used model %q, want zeta", got)
	}
}

// An endpoint that refuses the key and echoes it back (as some proxies do)
// must not get the key into agentls.models's error.
func TestModelsErrorHidesKey(t *testing.T) {
	other := fakellm.New(&fakellm.Script{})
	other.APIKey = "the-right-key"
	base, err := other.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	s := start(t, setup{workspace: "hello", settings: map[string]any{"llm": map[string]any{"baseURL": base}}})
	err = s.Command(s.ctx, "agentls.models", map[string]any{}, &struct{}{})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("want a 401 error, got %v", err)
	}
	if strings.Contains(err.Error(), "sk-test-secret-key-123") {
		t.Errorf("the key is in the error: %v", err)
	}
}
