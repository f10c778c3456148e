package assemble

import (
	"strings"

	"github.com/agentls/agentls/internal/config"
)

// builtinPrices are list prices in US dollars per million input and output
// tokens for a few well-known models, so a task's cost shows without
// configuration. llm.prices overrides them (its "*" entry too: a user who
// sets a fallback means it for every model the table does not name in
// llm.prices). Prices change; the table is a convenience, not a bill.
var builtinPrices = map[string]config.Price{
	"gpt-4o":            {Input: 2.50, Output: 10.00},
	"gpt-4o-mini":       {Input: 0.15, Output: 0.60},
	"gpt-4.1":           {Input: 2.00, Output: 8.00},
	"gpt-4.1-mini":      {Input: 0.40, Output: 1.60},
	"gpt-4.1-nano":      {Input: 0.10, Output: 0.40},
	"o3":                {Input: 2.00, Output: 8.00},
	"o4-mini":           {Input: 1.10, Output: 4.40},
	"gpt-5":             {Input: 1.25, Output: 10.00},
	"gpt-5-mini":        {Input: 0.25, Output: 2.00},
	"claude-sonnet-4":   {Input: 3.00, Output: 15.00},
	"claude-opus-4":     {Input: 15.00, Output: 75.00},
	"claude-3-5-haiku":  {Input: 0.80, Output: 4.00},
	"deepseek-chat":     {Input: 0.27, Output: 1.10},
	"deepseek-reasoner": {Input: 0.55, Output: 2.19},
}

// builtinPrice finds a model in the table by its name, also behind a
// provider prefix ("openai/gpt-4o") or with a date suffix
// ("claude-sonnet-4-20250514"), the way routers and providers name them.
func builtinPrice(model string) (config.Price, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if p, ok := builtinPrices[m]; ok {
		return p, true
	}
	best := ""
	for name := range builtinPrices {
		// A dated or versioned variant: the name, a dash, then a digit.
		if strings.HasPrefix(m, name+"-") && len(m) > len(name)+1 && m[len(name)+1] >= '0' && m[len(name)+1] <= '9' && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return config.Price{}, false
	}
	return builtinPrices[best], true
}
