package llm

import (
	"strings"

	"github.com/agentls/agentls/internal/config"
)

// builtinModels are a few well-known models: their list prices in US
// dollars per million input and output tokens, so a task's cost shows
// without configuration, and whether they take images. llm.prices
// overrides the prices (its "*" entry too: a user who sets a fallback means
// it for every model the table does not name in llm.prices), llm.images
// the images. Prices change; the table is a convenience, not a bill.
var builtinModels = map[string]struct {
	price  config.Price
	images bool
}{
	"gpt-4o":            {config.Price{Input: 2.50, Output: 10.00}, true},
	"gpt-4o-mini":       {config.Price{Input: 0.15, Output: 0.60}, true},
	"gpt-4.1":           {config.Price{Input: 2.00, Output: 8.00}, true},
	"gpt-4.1-mini":      {config.Price{Input: 0.40, Output: 1.60}, true},
	"gpt-4.1-nano":      {config.Price{Input: 0.10, Output: 0.40}, true},
	"o3":                {config.Price{Input: 2.00, Output: 8.00}, true},
	"o4-mini":           {config.Price{Input: 1.10, Output: 4.40}, true},
	"gpt-5":             {config.Price{Input: 1.25, Output: 10.00}, true},
	"gpt-5-mini":        {config.Price{Input: 0.25, Output: 2.00}, true},
	"claude-sonnet-4":   {config.Price{Input: 3.00, Output: 15.00}, true},
	"claude-opus-4":     {config.Price{Input: 15.00, Output: 75.00}, true},
	"claude-3-5-haiku":  {config.Price{Input: 0.80, Output: 4.00}, true},
	"deepseek-chat":     {config.Price{Input: 0.27, Output: 1.10}, false},
	"deepseek-reasoner": {config.Price{Input: 0.55, Output: 2.19}, false},
}

// builtinPrice is the model's price in the table (builtinModel).
func builtinPrice(model string) (config.Price, bool) {
	name, ok := builtinModel(model)
	return builtinModels[name].price, ok
}

// TakesImages reports whether the model is sent the images of a prompt:
// llm.images when it is true or false, else (auto) the built-in table,
// which knows the model families that take images; a model it does not
// know takes none.
func TakesImages(cfg config.Config, model string) bool {
	switch cfg.LLM.Images {
	case "true":
		return true
	case "false":
		return false
	}
	name, ok := builtinModel(model)
	if !ok {
		// Families the table names by their members: newer dated or
		// sized variants of gpt-4o, gpt-4.1, gpt-5 and claude take images.
		m := strings.ToLower(model)
		if i := strings.LastIndexByte(m, '/'); i >= 0 {
			m = m[i+1:]
		}
		for _, f := range []string{"gpt-4o", "gpt-4.1", "gpt-5", "claude-"} {
			if strings.HasPrefix(m, f) {
				return true
			}
		}
		return false
	}
	return builtinModels[name].images
}

// builtinModel finds a model in the table by its name, also behind a
// provider prefix ("openai/gpt-4o") or with a date suffix
// ("claude-sonnet-4-20250514"), the way routers and providers name them.
func builtinModel(model string) (string, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if _, ok := builtinModels[m]; ok {
		return m, true
	}
	best := ""
	for name := range builtinModels {
		// A dated or versioned variant: the name, a dash, then a digit.
		if strings.HasPrefix(m, name+"-") && len(m) > len(name)+1 && m[len(name)+1] >= '0' && m[len(name)+1] <= '9' && len(name) > len(best) {
			best = name
		}
	}
	return best, best != ""
}

// Price is the model's price per million input and output tokens, from
// llm.prices (the model's own entry), the built-in table, else
// llm.prices["*"]; zero when unknown.
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
