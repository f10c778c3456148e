package proc

import (
	"os"
	"strings"
)

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

// CleanEnv returns env (os.Environ() when nil) without the variables
// IsSecretEnv names, without any variable whose value contains one of the
// non-empty secrets (a key read from a config file and exported under
// another name) or the value of a variable IsSecretEnv names (LLM_KEY set
// to $OPENAI_API_KEY), and with later duplicates winning. It never
// modifies env.
func CleanEnv(env []string, secrets []string) []string {
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		// Values this short would match too much; no key is.
		if name, val, ok := strings.Cut(kv, "="); ok && IsSecretEnv(name) && len(val) >= 8 {
			secrets = append(secrets[:len(secrets):len(secrets)], val)
		}
	}
	out := make([]string, 0, len(env))
	index := map[string]int{}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" || IsSecretEnv(name) || holdsSecret(val, secrets) {
			continue
		}
		if i, dup := index[name]; dup {
			out[i] = kv
			continue
		}
		index[name] = len(out)
		out = append(out, kv)
	}
	return out
}

func holdsSecret(val string, secrets []string) bool {
	for _, s := range secrets {
		if s != "" && strings.Contains(val, s) {
			return true
		}
	}
	return false
}

// lookupEnv is the last value of name in env.
func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
