package policy

import (
	"os"
	"sort"
	"strings"
)

// Redacted replaces a secret value in text sent to the model.
const Redacted = "[redacted]"

// Minimum lengths of a value worth scrubbing: shorter ones are not
// credentials, and replacing every "1" or "true" would garble the text.
const (
	minKeyLen = 4 // the API key (as config.Redact)
	minEnvLen = 8 // any other secret variable's value
)

// Scrubber removes secret values from text: the API key in use and the
// values of the environment's secret variables, whatever the text came
// from (a tool result, a check's output, a context file, an MCP result).
// The zero Scrubber and a nil one change nothing.
type Scrubber struct {
	r *strings.Replacer
}

// NewScrubber returns a Scrubber for the API key and the values of the
// variables in env (NAME=value) whose names isSecretName reports. A
// variable that holds the key under another name (LLM_KEY) needs no rule:
// its value is the key.
func NewScrubber(key string, env []string, isSecretName func(string) bool) *Scrubber {
	seen := map[string]bool{}
	var values []string
	add := func(v string, minLen int) {
		if len(v) >= minLen && !seen[v] {
			seen[v] = true
			values = append(values, v)
		}
	}
	add(key, minKeyLen)
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if ok && isSecretName != nil && isSecretName(name) {
			add(strings.TrimSpace(val), minEnvLen)
		}
	}
	if len(values) == 0 {
		return &Scrubber{}
	}
	// Longest first, so a value that contains another is replaced whole.
	sort.Slice(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
	pairs := make([]string, 0, 2*len(values))
	for _, v := range values {
		pairs = append(pairs, v, Redacted)
	}
	return &Scrubber{r: strings.NewReplacer(pairs...)}
}

// Empty reports whether the Scrubber has nothing to remove.
func (s *Scrubber) Empty() bool { return s == nil || s.r == nil }

// Scrub returns text without any of the secret values.
func (s *Scrubber) Scrub(text string) string {
	if s.Empty() || text == "" {
		return text
	}
	return s.r.Replace(text)
}

// secretSuffixes end the names of variables that hold credentials. The
// list is deliberately broad: a tool that needs one of them in a
// sandboxed command is rarer than a key that leaks to the model.
var secretSuffixes = []string{
	"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY",
	"_ACCESS_KEY", "_SECRET_ACCESS_KEY", "_PASSWORD", "_PASSWD", "_CREDENTIALS",
}

// IsSecretEnv reports whether a variable of this name never reaches a
// child: AGENTLS_API_KEY, OPENAI_API_KEY, and (case-insensitively) any
// name ending in _API_KEY, _APIKEY, _TOKEN, _SECRET, _SECRET_KEY,
// _ACCESS_KEY, _SECRET_ACCESS_KEY, _PASSWORD, _PASSWD or _CREDENTIALS.
func IsSecretEnv(name string) bool {
	u := strings.ToUpper(name)
	if u == "AGENTLS_API_KEY" || u == "OPENAI_API_KEY" {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return false
}

// ScrubberFor is the scrubber of everything sent to the model: the API
// key and the values of this process's environment variables that
// IsSecretEnv names.
func ScrubberFor(key string) *Scrubber {
	return NewScrubber(key, os.Environ(), IsSecretEnv)
}
