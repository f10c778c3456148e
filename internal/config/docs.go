package config

import (
	"encoding/json"
	"strings"

	"github.com/agentls/agentls/internal/policy"
)

// KeyDoc is one setting as the reference page (docs/reference/settings.md)
// and agentls doctor show it: all of it comes from the table in fields.go.
type KeyDoc struct {
	Key     string
	Type    string   // Markdown: "string", "integer, 1 to 3600", "one of `a`, `b`"
	Default string   // Markdown
	Env     []string // environment variables, first wins
	Doc     string   // Markdown, one paragraph
	// UserOnly: never read from .agentls.json (it starts a command).
	UserOnly bool
	// NeedsTrust: from a workspace file it applies only once the user
	// trusts that file's content (policy.Widens).
	NeedsTrust bool
}

// Docs lists every setting in the table's order.
func Docs() []KeyDoc {
	d := Defaults()
	out := make([]KeyDoc, len(fields))
	for i, f := range fields {
		def := f.def
		if def == "" {
			def = "`" + Render(f.kind.get(&d)) + "`"
		}
		out[i] = KeyDoc{Key: f.key, Type: f.kind.typ, Default: def, Env: f.env, Doc: f.doc,
			UserOnly: f.notFromFile, NeedsTrust: policy.Widens(f.key)}
	}
	return out
}

// Value is key's value in c, as JSON would show it; ok is false for a key
// the table does not have. The API key is a value like any other here:
// callers that show it must not (agentls doctor says only whether it is
// set).
func (c Config) Value(key string) (v any, ok bool) {
	for _, f := range fields {
		if f.key == key {
			return f.kind.get(&c), true
		}
	}
	return nil, false
}

// Render is a setting's value as one line for a person: compact JSON,
// strings without their quotes.
func Render(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return strings.ReplaceAll(string(b), ",", ", ")
}
