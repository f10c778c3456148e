package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/internal/assemble"
)

// agentls.models lists what the configured endpoint serves at /v1/models,
// so an editor can offer a model picker; the chosen name goes back in
// agentls.run's "model" argument for one task.

type modelsResult struct {
	Models  []string `json:"models"`
	Current string   `json:"current"`
	BaseURL string   `json:"baseURL"`
}

// modelsTimeout bounds the request: a picker must not hang on a dead endpoint.
const modelsTimeout = 10 * time.Second

func (s *Server) cmdModels(ctx context.Context, _ noArgs) (any, error) {
	cfg := s.config()
	names, err := listModels(ctx, cfg.LLM.BaseURL, cfg.LLM.APIKey)
	if err != nil {
		// The key never reaches the message: Redact covers a server echoing it.
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentls.models: %s", cfg.Redact(err.Error()))
	}
	return modelsResult{Models: names, Current: cfg.LLM.Model, BaseURL: cfg.LLM.BaseURL}, nil
}

// listModels asks an OpenAI-compatible endpoint for its models, sorted.
func listModels(ctx context.Context, baseURL, key string) ([]string, error) {
	if baseURL == "" {
		return nil, fmt.Errorf("llm.baseURL is not set")
	}
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	u := strings.TrimRight(baseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("bad llm.baseURL %q: %v", baseURL, err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", u, resp.Status, shorten(string(body), 200))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("GET %s: not a model list: %v", u, err)
	}
	names := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			names = append(names, m.ID)
		}
	}
	sort.Strings(names)
	return names, nil
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
}

// infoArgs are agentls.info's arguments.
type infoArgs struct {
	Model string `json:"model,omitempty"` // what a picker chose, for its price
}

func (s *Server) cmdInfo(ctx context.Context, a infoArgs) (any, error) {
	cfg := s.config()
	if a.Model != "" {
		cfg.LLM.Model = a.Model
	}
	in, out := assemble.Price(cfg)
	return infoResult{
		Version: s.opts.Version, Model: cfg.LLM.Model, BaseURL: cfg.LLM.BaseURL,
		ContextTokens: assemble.Limits(cfg).ContextTokens, KeySet: cfg.LLM.APIKey != "",
		PriceInput: in, PriceOutput: out,
	}, nil
}
