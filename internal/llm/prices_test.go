package llm

import (
	"testing"

	"github.com/agentls/agentls/internal/config"
)

func TestPriceTableAndOverrides(t *testing.T) {
	cases := []struct {
		model  string
		prices map[string]config.Price
		in     float64
		out    float64
	}{
		{"gpt-4o-mini", nil, 0.15, 0.60},
		{"openai/gpt-4o", nil, 2.50, 10.00},
		{"claude-sonnet-4-20250514", nil, 3.00, 15.00},
		{"gpt-4o-mini", map[string]config.Price{"gpt-4o-mini": {Input: 1, Output: 2}}, 1, 2},
		{"gpt-4o-mini", map[string]config.Price{"*": {Input: 9, Output: 9}}, 0.15, 0.60},
		{"my-local-model", nil, 0, 0},
		{"my-local-model", map[string]config.Price{"*": {Input: 9, Output: 8}}, 9, 8},
		{"gpt-4o-minix", nil, 0, 0},
	}
	for _, c := range cases {
		var cfg config.Config
		cfg.LLM.Model, cfg.LLM.Prices = c.model, c.prices
		in, out := Price(cfg)
		if in != c.in || out != c.out {
			t.Errorf("Price(%q, %v) = %v, %v; want %v, %v", c.model, c.prices, in, out, c.in, c.out)
		}
	}
}

// The built-in table says which models take images; llm.images decides
// for the others, and over the table.
func TestTakesImages(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-4o": true, "openai/gpt-4.1-mini": true, "gpt-5-2025-08-07": true, "o3": true, "o4-mini": true,
		"claude-sonnet-4-20250514": true, "claude-haiku-4-5": true, "gpt-4o-2024-11-20": true,
		"gpt-3.5-turbo": false, "o3-mini": false, "deepseek-chat": false, "qwen2.5-coder:7b": false, "": false,
	} {
		if got := TakesImages(config.Config{}, model); got != want {
			t.Errorf("TakesImages(auto, %q) = %v, want %v", model, got, want)
		}
	}
	if !TakesImages(config.Config{LLM: config.LLM{Images: "true"}}, "llava") {
		t.Error("llm.images true: llava takes no images")
	}
	if TakesImages(config.Config{LLM: config.LLM{Images: "false"}}, "gpt-4o") {
		t.Error("llm.images false: gpt-4o still takes images")
	}
}
