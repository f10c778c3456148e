package doctor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

func resolve(t *testing.T, editor string, env map[string]string) (config.Config, []Setting) {
	t.Helper()
	getenv := func(k string) string { return env[k] }
	ed, probs := config.FromJSON("editor settings", []byte(editor))
	cfg, origins, p2 := config.ResolveWithOrigins(ed, config.FromEnv(getenv))
	if len(probs)+len(p2) > 0 {
		t.Fatalf("problems: %v %v", probs, p2)
	}
	return cfg, settings(cfg, origins, getenv)
}

// Every setting is listed with its source; the API key and the values of
// the environments given to MCP servers and an external agent (tokens,
// keys) are never shown, in the check's lines or in the JSON.
func TestSettingsNameSourcesAndHideSecrets(t *testing.T) {
	const key, token, agentKey = "sk-unit-KEY-1234", "ghp-TOKEN-5678", "sk-agent-KEY-9012"
	cfg, ss := resolve(t, `{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "`+token+`"}}},
		"agent": {"backend": {"acp": {"command": "codex-acp", "env": {"OPENAI_API_KEY": "`+agentKey+`"}}}}}`,
		map[string]string{"OPENAI_API_KEY": key, "AGENTLS_MODEL": "m1"})
	if len(ss) != len(config.Docs()) {
		t.Fatalf("%d settings listed, the table has %d", len(ss), len(config.Docs()))
	}
	src := map[string]string{}
	for _, s := range ss {
		src[s.Key] = s.Source
	}
	if src["llm.apiKey"] != "environment: OPENAI_API_KEY" || src["llm.model"] != "environment: AGENTLS_MODEL" ||
		src["mcpServers"] != "editor settings" || src["agent.maxSteps"] != "default" {
		t.Errorf("sources: %v", src)
	}
	c := settingsCheck(ss, nil)
	b, _ := json.Marshal(ss)
	all := string(b) + c.Summary + strings.Join(c.Details, "\n")
	for _, secret := range []string{key, token, agentKey} {
		if strings.Contains(all, secret) {
			t.Errorf("%s is shown:\n%s", secret, all)
		}
	}
	if !strings.Contains(all, `GITHUB_TOKEN":"(set)`) || !strings.Contains(all, "llm.apiKey = (set)") {
		t.Errorf("the hidden values are not said to be set:\n%s", all)
	}
	if cfg.MCPServers["gh"].Env["GITHUB_TOKEN"] != token {
		t.Error("hiding changed the configuration itself")
	}
}

// No key is a failure for OpenAI's endpoint only; a server on this machine
// needs none, and another host may or may not.
func TestKeyCheck(t *testing.T) {
	for _, c := range []struct {
		base, key string
		want      Status
	}{
		{"https://api.openai.com/v1", "", Fail},
		{"https://api.openai.com/v1", "sk-x", OK},
		{"http://127.0.0.1:11434/v1", "", OK},
		{"http://localhost:8080/v1", "", OK},
		{"https://openrouter.ai/api/v1", "", Warn},
	} {
		cfg := config.Defaults()
		cfg.LLM.BaseURL, cfg.LLM.APIKey = c.base, c.key
		got := keyCheck(cfg, map[string]string{"llm.apiKey": "environment"})
		if got.Status != c.want || (c.key != "" && strings.Contains(got.Summary, c.key)) {
			t.Errorf("%s, key %q: %s %q", c.base, c.key, got.Status, got.Summary)
		}
	}
}

// The editors' set-ups are found where each editor keeps them, and only
// where the file names agentls.
func TestEditorsFound(t *testing.T) {
	home := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".vscode/extensions/agentls.agentls-0.1.0/package.json", "{}")
	write(".emacs.d/lisp/agentls.el", ";;")
	write(".config/zed/settings.json", `{"agent_servers": {"agentls": {}}}`)
	write(".config/helix/languages.toml", "[language-server.rust-analyzer]\n") // names no agentls
	write(".jetbrains/acp.json", `{"agent_servers": {"agentls": {"command": "agentls"}}}`)
	eds, c := editorsCheck(home, func(string) string { return "" })
	found := map[string]bool{}
	for _, e := range eds {
		found[e.Editor] = e.Found
	}
	want := map[string]bool{"neovim": false, "vscode": true, "emacs": true, "helix": false, "zed": true, "jetbrains": true}
	for k, v := range want {
		if found[k] != v {
			t.Errorf("%s found %v, want %v (%+v)", k, found[k], v, eds)
		}
	}
	if c.Status != Info || !strings.Contains(c.Summary, "vscode") {
		t.Errorf("check: %+v", c)
	}
}

// The text report is one line a check, its details under it, and the
// verdict its exit code stands for.
func TestWriteText(t *testing.T) {
	r := Report{Workspace: "/ws", Exit: ExitUnconfined, Checks: []Check{
		{Name: "sandbox", Status: Fail, Summary: "unavailable here", Details: []string{"Landlock ABI 0"}},
		{Name: "editors", Status: Info, Summary: "none"},
	}}
	var b bytes.Buffer
	if err := Write(&b, r, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"FAIL  sandbox   unavailable here\n", "                Landlock ABI 0\n", "--    editors   none\n", "(exit 3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
