package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// keyCase gives, for one key, a value per source (as JSON), a value of the
// wrong type, one out of range where there is a range, and how to read the
// resolved value back.
type keyCase struct {
	key                   string
	editor, file, env     string // JSON; env is a plain string, "" if the key has no variable
	wrongType, outOfRange string
	get                   func(Config) any
	// notFromFile: the workspace file may not set it (tested on its own).
	notFromFile bool
}

var keyCases = []keyCase{
	{key: "llm.baseURL", editor: `"http://editor/v1"`, file: `"http://file/v1"`, env: "http://env/v1", wrongType: `42`,
		get: func(c Config) any { return c.LLM.BaseURL }},
	{key: "llm.apiKey", editor: `"sk-editor"`, file: `"sk-file"`, env: "sk-env", wrongType: `["sk-list"]`,
		get: func(c Config) any { return c.LLM.APIKey }},
	{key: "llm.model", editor: `"m-editor"`, file: `"m-file"`, env: "m-env", wrongType: `{"name":"x"}`,
		get: func(c Config) any { return c.LLM.Model }},
	{key: "llm.contextTokens", editor: `32000`, file: `64000`, wrongType: `"32k"`, outOfRange: `100`,
		get: func(c Config) any { return c.LLM.ContextTokens }},
	{key: "llm.idleTimeoutSeconds", editor: `30`, file: `60`, wrongType: `true`, outOfRange: `0`,
		get: func(c Config) any { return c.LLM.IdleTimeoutSeconds }},
	{key: "llm.api", editor: `"responses"`, file: `"chat"`, wrongType: `1`, outOfRange: `"completions"`,
		get: func(c Config) any { return c.LLM.API }},
	{key: "llm.reasoningEffort", editor: `"high"`, file: `"low"`, wrongType: `{"effort":"high"}`, outOfRange: `"extreme"`,
		get: func(c Config) any { return c.LLM.ReasoningEffort }},
	{key: "llm.images", editor: `true`, file: `"auto"`, wrongType: `1`, outOfRange: `"yes"`,
		get: func(c Config) any { return c.LLM.Images }},
	{key: "llm.prices", editor: `{"m":{"input":1,"output":2}}`, file: `{"*":{"input":3,"output":4}}`, wrongType: `{"m":{"in":1}}`,
		get: func(c Config) any { return c.LLM.Prices }},
	{key: "agent.maxSteps", editor: `10`, file: `20`, wrongType: `12.5`, outOfRange: `0`,
		get: func(c Config) any { return c.Agent.MaxSteps }},
	{key: "agent.maxCostUSD", editor: `2.5`, file: `10`, wrongType: `"$5"`, outOfRange: `-1`,
		get: func(c Config) any { return c.Agent.MaxCostUSD }},
	{key: "agent.maxRetries", editor: `0`, file: `5`, wrongType: `"5"`, outOfRange: `-1`,
		get: func(c Config) any { return c.Agent.MaxRetries }},
	{key: "agent.review", editor: `false`, file: `true`, wrongType: `"yes"`,
		get: func(c Config) any { return c.Agent.Review }},
	{key: "agent.memory", editor: `true`, file: `false`, wrongType: `1`,
		get: func(c Config) any { return c.Agent.Memory }},
	{key: "agent.taskTimeoutSeconds", editor: `600`, file: `300`, wrongType: `"10m"`, outOfRange: `999999999`,
		get: func(c Config) any { return c.Agent.TaskTimeoutSeconds }},
	{key: "agent.toolTimeoutSeconds", editor: `30`, file: `60`, wrongType: `[30]`, outOfRange: `3601`,
		get: func(c Config) any { return c.Agent.ToolTimeoutSeconds }},
	{key: "agent.maxToolOutput", editor: `2048`, file: `1048576`, wrongType: `"1MB"`, outOfRange: `10`,
		get: func(c Config) any { return c.Agent.MaxToolOutput }},
	{key: "agent.editTool", editor: `"apply_patch"`, file: `"edit_file"`, wrongType: `true`, outOfRange: `"diff"`,
		get: func(c Config) any { return c.Agent.EditTool }},
	{key: "agent.readBeforeEdit", editor: `true`, file: `false`, wrongType: `"no"`,
		get: func(c Config) any { return c.Agent.ReadBeforeEdit }},
	{key: "agent.promptProfile", editor: `"terse"`, file: `"contract"`, wrongType: `1`, outOfRange: `"long"`,
		get: func(c Config) any { return c.Agent.PromptProfile }},
	{key: "agent.subagentSteps", editor: `10`, file: `0`, wrongType: `"ten"`, outOfRange: `1001`,
		get: func(c Config) any { return c.Agent.SubagentSteps }},
	{key: "agent.isolation", editor: `"none"`, file: `"worktree"`, wrongType: `true`, outOfRange: `"container"`,
		get: func(c Config) any { return c.Agent.Isolation }},
	{key: "agent.backend", editor: `{"acp":{"command":"codex-acp"}}`, wrongType: `"codex-acp"`, notFromFile: true,
		get: func(c Config) any { return c.Agent.Backend }},
	{key: "verify.commands", editor: `["make check"]`, file: `["go test ./..."]`, wrongType: `"make check"`,
		get: func(c Config) any { return c.Verify.Commands }},
	{key: "verify.enabled", editor: `true`, file: `false`, wrongType: `"off"`,
		get: func(c Config) any { return c.Verify.Enabled }},
	{key: "verify.timeoutSeconds", editor: `60`, file: `120`, wrongType: `false`, outOfRange: `86401`,
		get: func(c Config) any { return c.Verify.TimeoutSeconds }},
	{key: "tools.approval", editor: `"always-ask"`, file: `"never"`, wrongType: `true`, outOfRange: `"sometimes"`,
		get: func(c Config) any { return c.Tools.Approval }},
	{key: "tools.allow", editor: `["read_file"]`, file: `["grep"]`, wrongType: `[1,2]`,
		get: func(c Config) any { return c.Tools.Allow }},
	{key: "tools.deny", editor: `["run_command"]`, file: `["write_file"]`, wrongType: `{"x":1}`,
		get: func(c Config) any { return c.Tools.Deny }},
	{key: "tools.secretFiles", editor: `["*.secret"]`, file: `[]`, wrongType: `"*.secret"`,
		get: func(c Config) any { return c.Tools.SecretFiles }},
	{key: "sandbox.mode", editor: `"read-only"`, file: `"off"`, wrongType: `"none"`,
		get: func(c Config) any { return c.Sandbox.Mode }},
	{key: "sandbox.network", editor: `false`, file: `true`, wrongType: `"yes"`,
		get: func(c Config) any { return c.Sandbox.Network }},
	{key: "sandbox.writableRoots", editor: `["/srv/cache"]`, file: `[]`, wrongType: `"/srv/cache"`,
		get: func(c Config) any { return c.Sandbox.WritableRoots }},
	{key: "sandbox.denyRead", editor: `["~/.secrets"]`, file: `["/srv/keys"]`, wrongType: `"~/.secrets"`,
		get: func(c Config) any { return c.Sandbox.DenyRead }},
	{key: "sandbox.allowRead", editor: `["~/notes"]`, file: `["/srv/data"]`, wrongType: `"~/notes"`,
		get: func(c Config) any { return c.Sandbox.AllowRead }},
	{key: "sandbox.memoryMiB", editor: `2048`, file: `8192`, wrongType: `"4G"`, outOfRange: `-1`,
		get: func(c Config) any { return c.Sandbox.MemoryMiB }},
	{key: "delegate.url", editor: `"nats://editor:4222"`, env: "nats://env:4222", wrongType: `4222`, notFromFile: true,
		get: func(c Config) any { return c.Delegate.URL }},
	{key: "delegate.credentials", editor: `"/etc/editor.creds"`, env: "/etc/env.creds", wrongType: `true`, notFromFile: true,
		get: func(c Config) any { return c.Delegate.Credentials }},
	{key: "delegate.nkey", editor: `"/etc/editor.nk"`, env: "/etc/env.nk", wrongType: `1`, notFromFile: true,
		get: func(c Config) any { return c.Delegate.NKey }},
	{key: "delegate.tlsCA", editor: `"/etc/editor-ca.pem"`, env: "/etc/env-ca.pem", wrongType: `[]`, notFromFile: true,
		get: func(c Config) any { return c.Delegate.TLSCA }},
	{key: "delegate.tlsCert", editor: `"/etc/editor.pem"`, env: "/etc/env.pem", wrongType: `{}`, notFromFile: true,
		get: func(c Config) any { return c.Delegate.TLSCert }},
	{key: "delegate.tlsKey", editor: `"/etc/editor.key"`, env: "/etc/env.key", wrongType: `2`, notFromFile: true,
		get: func(c Config) any { return c.Delegate.TLSKey }},
	{key: "sessions.maxConcurrent", editor: `2`, file: `8`, wrongType: `"2"`, outOfRange: `65`,
		get: func(c Config) any { return c.Sessions.MaxConcurrent }},
	{key: "hooks", editor: `{"Stop":[{"hooks":[{"type":"command","command":"make test"}]}]}`, file: `{}`, wrongType: `["x"]`,
		get: func(c Config) any { return string(c.Hooks) }},
	{key: "mcpServers", editor: `{"fs":{"command":"mcp-fs","args":["--root","."]}}`, file: `{"web":{"url":"http://localhost:9000/mcp"}}`,
		wrongType: `{"bad":{"command":"x","url":"http://y"}}`,
		get:       func(c Config) any { return c.MCPServers }},
}

// nested spells {"a.b.c": v} as {"a":{"b":{"c": v}}}.
func nested(key, value string) []byte {
	parts := strings.Split(key, ".")
	s := value
	for i := len(parts) - 1; i >= 0; i-- {
		s = `{"` + parts[i] + `":` + s + `}`
	}
	return []byte(s)
}

func dotted(key, value string) []byte {
	return []byte(`{"` + key + `":` + value + `}`)
}

// want is what a single source with value v resolves to for this key.
func (kc keyCase) want(t *testing.T, v string) any {
	t.Helper()
	c, probs := Resolve(Source{Name: "probe", Values: map[string]json.RawMessage{kc.key: json.RawMessage(v)}})
	if len(probs) != 0 {
		t.Fatalf("%s=%s: %v", kc.key, v, probs)
	}
	return kc.get(c)
}

func mustJSON(t *testing.T, name string, data []byte) Source {
	t.Helper()
	s, probs := FromJSON(name, data)
	if len(probs) != 0 {
		t.Fatalf("%s: %s: %v", name, data, probs)
	}
	return s
}

func TestEveryKeyHasACase(t *testing.T) {
	var got []string
	for _, kc := range keyCases {
		got = append(got, kc.key)
	}
	if !slices.Equal(got, Keys()) {
		t.Errorf("test cases %v\nkeys       %v", got, Keys())
	}
}

// Editor settings win over the file, the file over the environment, the
// environment over the defaults, for every key.
func TestPrecedence(t *testing.T) {
	for _, kc := range keyCases {
		if kc.notFromFile {
			continue
		}
		t.Run(kc.key, func(t *testing.T) {
			editor := mustJSON(t, "editor settings", nested(kc.key, kc.editor))
			file := mustJSON(t, FileName, dotted(kc.key, kc.file))
			env := FromEnv(func(name string) string {
				for _, f := range fields {
					if f.key == kc.key && len(f.env) > 0 && name == f.env[0] {
						return kc.env
					}
				}
				return ""
			})
			empty := Source{Name: "empty"}
			def := kc.get(Defaults())
			steps := []struct {
				name    string
				sources []Source
				want    any
			}{
				{"editor", []Source{editor, file, env}, kc.want(t, kc.editor)},
				{"file", []Source{empty, file, env}, kc.want(t, kc.file)},
				{"env", []Source{empty, empty, env}, def},
				{"default", nil, def},
			}
			if kc.env != "" {
				steps[2].want = kc.env
			}
			for _, s := range steps {
				c, probs := Resolve(s.sources...)
				if len(probs) != 0 {
					t.Errorf("%s: problems %v", s.name, probs)
				}
				if got := kc.get(c); !reflect.DeepEqual(got, s.want) {
					t.Errorf("%s wins: got %#v, want %#v", s.name, got, s.want)
				}
			}
			// Each value differs from the one that would win without it,
			// so each step above proves something.
			if reflect.DeepEqual(steps[0].want, steps[1].want) || reflect.DeepEqual(steps[1].want, steps[2].want) || reflect.DeepEqual(steps[2].want, def) && kc.env != "" {
				t.Errorf("the test values do not tell the sources apart")
			}
		})
	}
}

// A bad value is one Problem naming its key and source; the next source's
// value is used.
func TestBadValueFallsBack(t *testing.T) {
	for _, kc := range keyCases {
		if kc.notFromFile {
			continue
		}
		for _, bad := range []struct{ kind, value string }{{"wrong type", kc.wrongType}, {"out of range", kc.outOfRange}} {
			if bad.value == "" {
				continue
			}
			t.Run(kc.key+"/"+bad.kind, func(t *testing.T) {
				editor, probs := FromJSON("editor settings", nested(kc.key, bad.value))
				if len(probs) != 0 {
					t.Fatalf("FromJSON: %v", probs)
				}
				file := mustJSON(t, FileName, nested(kc.key, kc.file))
				c, probs := Resolve(editor, file)
				if len(probs) != 1 || probs[0].Key != kc.key || probs[0].Source != "editor settings" || probs[0].Msg == "" {
					t.Fatalf("problems %+v, want one for %s from the editor settings", probs, kc.key)
				}
				if !strings.Contains(probs[0].String(), kc.key) {
					t.Errorf("problem %q does not name the key", probs[0])
				}
				if got, want := kc.get(c), kc.want(t, kc.file); !reflect.DeepEqual(got, want) {
					t.Errorf("got %#v, want the file's %#v", got, want)
				}
				// With no other source, the default stays.
				c, _ = Resolve(editor)
				if got, want := kc.get(c), kc.get(Defaults()); !reflect.DeepEqual(got, want) {
					t.Errorf("got %#v, want the default %#v", got, want)
				}
			})
		}
	}
}

// Null and "" are "not set": VS Code sends them for empty settings, and
// they must not hide the environment's values (the API key above all).
func TestUnsetValues(t *testing.T) {
	env := FromEnv(func(name string) string {
		return map[string]string{"OPENAI_API_KEY": "sk-env", "AGENTLS_MODEL": "m-env"}[name]
	})
	editor := mustJSON(t, "editor settings", []byte(`{"llm":{"apiKey":"","model":null,"contextTokens":null},"agent.review":null}`))
	c, probs := Resolve(editor, env)
	if len(probs) != 0 {
		t.Fatalf("problems %v", probs)
	}
	if c.LLM.APIKey != "sk-env" || c.LLM.Model != "m-env" || c.LLM.ContextTokens != Defaults().LLM.ContextTokens || c.Agent.Review {
		t.Errorf("config %+v", c)
	}
}

func TestSpellings(t *testing.T) {
	tests := []struct {
		name string
		json string
	}{
		{"nested", `{"llm":{"model":"x","prices":{"x":{"input":1,"output":2}}},"agent":{"maxSteps":7}}`},
		{"dotted", `{"llm.model":"x","llm.prices":{"x":{"input":1,"output":2}},"agent.maxSteps":7}`},
		{"mixed", `{"llm":{"model":"x"},"llm.prices":{"x":{"input":1,"output":2}},"agent":{"maxSteps":7}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, probs := Resolve(mustJSON(t, "s", []byte(tt.json)))
			if len(probs) != 0 {
				t.Fatal(probs)
			}
			if c.LLM.Model != "x" || c.Agent.MaxSteps != 7 || c.LLM.Prices["x"] != (Price{1, 2}) {
				t.Errorf("config %+v", c)
			}
		})
	}

	// Both spellings of one key: a problem, and the dotted one wins, every
	// time (map order must not decide).
	for range 20 {
		src, probs := FromJSON("s", []byte(`{"llm.model":"dotted","llm":{"model":"nested"}}`))
		if len(probs) != 1 || probs[0].Key != "llm.model" {
			t.Fatalf("problems %v", probs)
		}
		if c, _ := Resolve(src); c.LLM.Model != "dotted" {
			t.Fatalf("model %q", c.LLM.Model)
		}
	}
}

func TestUnknownKeys(t *testing.T) {
	src, probs := FromJSON(FileName, []byte(`{"llm":{"modle":"x","model":"y"},"agent.maxStep":3,"zzz":{"a":1}}`))
	var keys []string
	for _, p := range probs {
		keys = append(keys, p.Key)
		if p.Source != FileName || !strings.Contains(p.Msg, "unknown setting") {
			t.Errorf("problem %+v", p)
		}
	}
	if want := []string{"agent.maxStep", "llm.modle", "zzz.a"}; !slices.Equal(keys, want) {
		t.Errorf("unknown keys %v, want %v", keys, want)
	}
	// The known key next to them still applies.
	if c, _ := Resolve(src); c.LLM.Model != "y" {
		t.Errorf("model %q", c.LLM.Model)
	}

	for _, bad := range []string{`[1,2]`, `"x"`, `{"llm":`} {
		if _, probs := FromJSON("s", []byte(bad)); len(probs) != 1 || probs[0].Key != "(all)" {
			t.Errorf("%s: problems %v", bad, probs)
		}
	}
	for _, empty := range []string{``, `  `, `null`, `{}`} {
		if src, probs := FromJSON("s", []byte(empty)); len(probs) != 0 || len(src.Values) != 0 {
			t.Errorf("%q: %v %v", empty, src.Values, probs)
		}
	}
}

func TestEnvOrder(t *testing.T) {
	tests := []struct {
		env       map[string]string
		key, base string
	}{
		{map[string]string{"AGENTLS_API_KEY": "sk-a", "OPENAI_API_KEY": "sk-o"}, "sk-a", Defaults().LLM.BaseURL},
		{map[string]string{"OPENAI_API_KEY": "sk-o", "OPENAI_BASE_URL": "http://o/v1"}, "sk-o", "http://o/v1"},
		{map[string]string{"AGENTLS_API_KEY": "", "OPENAI_API_KEY": "sk-o", "AGENTLS_BASE_URL": "http://a/v1", "OPENAI_BASE_URL": "http://o/v1"}, "sk-o", "http://a/v1"},
		{map[string]string{}, "", Defaults().LLM.BaseURL},
	}
	for _, tt := range tests {
		c, probs := Resolve(FromEnv(func(k string) string { return tt.env[k] }))
		if len(probs) != 0 || c.LLM.APIKey != tt.key || c.LLM.BaseURL != tt.base {
			t.Errorf("env %v: key %q base %q, want %q %q (%v)", tt.env, c.LLM.APIKey, c.LLM.BaseURL, tt.key, tt.base, probs)
		}
	}
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, FileName), []byte(`{"llm":{"model":"from-file","contextTokens":"big"},"agent":{"maxSteps":9}}`), 0o644)
	t.Setenv("AGENTLS_API_KEY", "sk-from-env-1234")
	t.Setenv("AGENTLS_MODEL", "from-env")
	t.Setenv("AGENTLS_BASE_URL", "")
	t.Setenv("OPENAI_BASE_URL", "")
	c, probs := Load(root, []byte(`{"agent":{"maxSteps":4},"bogus":true}`))
	if c.LLM.Model != "from-file" || c.Agent.MaxSteps != 4 || c.LLM.APIKey != "sk-from-env-1234" || c.LLM.ContextTokens != 128_000 {
		t.Errorf("config %+v", c)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.Source+": "+p.Key)
	}
	if want := []string{"editor settings: bogus", ".agentls.json: llm.contextTokens"}; !slices.Equal(got, want) {
		t.Errorf("problems %v, want %v", got, want)
	}

	// No file, no settings: defaults plus the environment, no problems.
	c, probs = Load(t.TempDir(), nil)
	if len(probs) != 0 || c.LLM.Model != "from-env" || c.Agent.MaxSteps != 200 || c.Tools.Approval != ApprovalSandboxed {
		t.Errorf("config %+v, problems %v", c, probs)
	}

	// An unreadable file is one problem.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, FileName), 0o755)
	if _, probs := Load(dir, nil); len(probs) != 1 || probs[0].Key != "(all)" {
		t.Errorf("problems %v", probs)
	}
}

func TestRedact(t *testing.T) {
	c := Defaults()
	c.LLM.APIKey = "sk-secret-1234"
	got := c.Redact("Authorization: Bearer sk-secret-1234; again sk-secret-1234")
	if strings.Contains(got, "sk-secret") || strings.Count(got, "[redacted]") != 2 {
		t.Errorf("Redact: %q", got)
	}
	// Too short a key would redact ordinary text; no key, nothing to do.
	c.LLM.APIKey = "abc"
	if got := c.Redact("abcdef"); got != "abcdef" {
		t.Errorf("short key: %q", got)
	}
	c.LLM.APIKey = ""
	if got := c.Redact("text"); got != "text" {
		t.Errorf("no key: %q", got)
	}
	// A bad key value is reported without echoing it.
	_, probs := Resolve(Source{Name: "s", Values: map[string]json.RawMessage{"llm.apiKey": json.RawMessage(`["sk-secret-1234"]`)}})
	if len(probs) != 1 || strings.Contains(probs[0].String(), "sk-secret") {
		t.Errorf("problems %v", probs)
	}
}

// agent.backend starts a command: the editor's settings set it, the
// workspace file (which the model can write) cannot.
func TestBackendNotFromFile(t *testing.T) {
	file := mustJSON(t, FileName, []byte(`{"agent":{"backend":{"acp":{"command":"sh","args":["-c","touch /tmp/pwned"]}}}}`))
	c, probs := Resolve(file)
	if c.Agent.Backend.ACP != nil {
		t.Fatalf("the workspace file set agent.backend: %+v", c.Agent.Backend.ACP)
	}
	if len(probs) != 1 || probs[0].Key != "agent.backend" || probs[0].Source != FileName {
		t.Fatalf("problems %+v, want one for agent.backend from %s", probs, FileName)
	}
	editor := mustJSON(t, "editor settings", []byte(`{"agent.backend":{"acp":{"command":"codex-acp","args":["-x"]}}}`))
	c, probs = Resolve(editor, file)
	if c.Agent.Backend.ACP == nil || c.Agent.Backend.ACP.Command != "codex-acp" || len(c.Agent.Backend.ACP.Args) != 1 {
		t.Fatalf("editor settings: backend %+v, problems %v", c.Agent.Backend.ACP, probs)
	}
	if _, probs := Resolve(mustJSON(t, "editor settings", []byte(`{"agent.backend":{"acp":{"args":["x"]}}}`))); len(probs) != 1 {
		t.Fatalf("a backend without a command: problems %v, want one", probs)
	}
}

// A typo'd key names the key meant, and where the typo is; a key like no
// other lists them all. A file that is not JSON says at which line and
// column it goes wrong.
func TestUnknownKeySuggestsAndLocates(t *testing.T) {
	data := []byte("{\n  \"agent\": {\n    \"maxStep\": 3\n  },\n  \"llm.modle\": \"x\",\n  \"MaxSteps\": 4,\n  \"zzz\": 1\n}\n")
	_, probs := FromJSON(FileName, data)
	got := map[string]string{}
	for _, p := range probs {
		got[p.Key] = p.Msg
	}
	want := map[string]string{
		"agent.maxStep": `line 3, column 5: unknown setting; did you mean "agent.maxSteps"?`,
		"llm.modle":     `line 5, column 3: unknown setting; did you mean "llm.model"?`,
		"MaxSteps":      `line 6, column 3: unknown setting; did you mean "agent.maxSteps"?`,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	if m := got["zzz"]; !strings.HasPrefix(m, "line 7, column 3: unknown setting (known: ") || !strings.Contains(m, "agent.maxSteps") {
		t.Errorf("zzz: %q", m)
	}
	for bad, where := range map[string]string{
		"{\n  \"llm\": {\"model\": \"x\",}\n}": "line 2, column 24: not valid JSON",
		"\n\n  [1, 2]":                         "line 3, column 3: the file holds a JSON array",
	} {
		_, probs := FromJSON(FileName, []byte(bad))
		if len(probs) != 1 || !strings.HasPrefix(probs[0].Msg, where) {
			t.Errorf("%q: %v, want %q…", bad, probs, where)
		}
	}
}

// The workspace file (which the model can write) sets none of the keys
// that are the user's alone: where delegated tasks and NATS credentials
// go (delegate.*), the external agent to start (agent.backend).
func TestNotFromFileKeysIgnoreTheFile(t *testing.T) {
	for _, kc := range keyCases {
		if !kc.notFromFile {
			continue
		}
		file := mustJSON(t, FileName, dotted(kc.key, kc.editor))
		c, probs := Resolve(file)
		if got, def := kc.get(c), kc.get(Defaults()); !reflect.DeepEqual(got, def) {
			t.Errorf("%s: the workspace file set it to %v", kc.key, got)
		}
		if len(probs) != 1 || probs[0].Key != kc.key || probs[0].Source != FileName {
			t.Errorf("%s: problems %+v, want one from %s", kc.key, probs, FileName)
		}
	}
}
