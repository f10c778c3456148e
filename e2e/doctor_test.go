package e2e

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// doctorKey is the key the doctor tests configure: it must never appear
// in what agentls doctor prints.
const doctorKey = "sk-doctor-9f8e7d6c5b4a-SECRET"

// doctorReport is the part of `agentls doctor --json` the tests read.
type doctorReport struct {
	Exit   int `json:"exit"`
	Checks []struct {
		Name    string   `json:"name"`
		Status  string   `json:"status"`
		Summary string   `json:"summary"`
		Details []string `json:"details"`
	} `json:"checks"`
	Settings []struct {
		Key    string `json:"key"`
		Value  any    `json:"value"`
		Source string `json:"source"`
	} `json:"settings"`
	Endpoint struct {
		API         string   `json:"api"`
		Tried       bool     `json:"tried"`
		Reachable   bool     `json:"reachable"`
		Models      []string `json:"models"`
		ModelListed bool     `json:"modelListed"`
		ToolCalls   bool     `json:"toolCalls"`
	} `json:"endpoint"`
	Sandbox struct {
		Machine struct {
			Available   bool   `json:"available"`
			Why         string `json:"why"`
			LandlockABI int    `json:"landlockABI"`
		} `json:"machine"`
		Enforced    []string `json:"enforced"`
		NotEnforced []string `json:"notEnforced"`
	} `json:"sandbox"`
	State struct {
		Dir string `json:"dir"`
	} `json:"state"`
	Editors []struct {
		Editor string `json:"editor"`
		Found  bool   `json:"found"`
		Where  string `json:"where"`
	} `json:"editors"`
}

func (r doctorReport) check(t *testing.T, name string) (status, text string) {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c.Status, c.Summary + "\n" + strings.Join(c.Details, "\n")
		}
	}
	t.Fatalf("no %s check in the report", name)
	return "", ""
}

func (r doctorReport) source(key string) string {
	for _, s := range r.Settings {
		if s.Key == key {
			return s.Source
		}
	}
	return ""
}

// doctorEnv is a clean environment with its own state directory and home.
func doctorEnv(t *testing.T, extra ...string) []string {
	env, _ := doctorEnvHome(t, extra...)
	return env
}

func doctorEnvHome(t *testing.T, extra ...string) ([]string, string) {
	home := t.TempDir()
	return append(append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir(), "HOME="+home,
		"XDG_CONFIG_HOME=", "XDG_DATA_HOME="), extra...), home
}

// runDoctor runs agentls doctor in dir (text, then --json), checks that
// both exit alike and that neither shows the key, and returns the text
// and the decoded report.
func runDoctor(t *testing.T, dir string, env []string, args ...string) (int, string, doctorReport) {
	t.Helper()
	run := func(args ...string) (int, string) {
		cmd := exec.Command(binary, append([]string{"doctor"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("agentls doctor: %v", err)
		return 0, ""
	}
	code, text := run(args...)
	jcode, js := run(append(args, "--json")...)
	for _, out := range []string{text, js} {
		if strings.Contains(out, doctorKey) || strings.Contains(out, "9f8e7d6c5b4a") {
			t.Fatalf("agentls doctor showed the key:\n%s", out)
		}
	}
	var r doctorReport
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("--json is not JSON: %v\n%s", err, js)
	}
	if jcode != code || r.Exit != code {
		t.Fatalf("text exited %d, --json %d, the report says %d", code, jcode, r.Exit)
	}
	return code, text, r
}

// Against the scripted model, with a key it requires: every check passes,
// the settings name their sources, the model took a one-token request
// carrying a tool, and the editors' plugins are found where they are.
func TestDoctorAgainstTheScriptedModel(t *testing.T) {
	llm, base := startModel(t, `{"turns": [{"text": "ok"}, {"text": "ok"}], "models": ["other", "fake-model"]}`)
	llm.APIKey = doctorKey
	dir := copyWorkspace(t, "hello")
	env, home := doctorEnvHome(t, "AGENTLS_BASE_URL="+base, "AGENTLS_MODEL=fake-model", "OPENAI_API_KEY="+doctorKey)
	if err := os.MkdirAll(filepath.Join(home, ".local/share/nvim/lazy/agentls.nvim"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".config/helix"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config/helix/languages.toml"), []byte("[language-server.agentls]\ncommand = \"agentls\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	code, text, r := runDoctor(t, dir, env, "--settings", `{"agent": {"review": true}}`)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, text)
	}
	for _, name := range []string{"binary", "settings", "key", "trust", "endpoint", "sandbox", "state"} {
		if st, msg := r.check(t, name); st != "ok" {
			t.Errorf("%s: %s: %s", name, st, msg)
		}
	}
	if r.source("llm.model") != "environment: AGENTLS_MODEL" || r.source("llm.apiKey") != "environment: OPENAI_API_KEY" ||
		r.source("agent.review") != "editor settings" || r.source("llm.contextTokens") != "default" {
		t.Errorf("settings' sources: %+v", r.Settings)
	}
	if e := r.Endpoint; e.API != "chat" || !e.Reachable || !e.ModelListed || !e.ToolCalls || len(e.Models) != 2 {
		t.Errorf("endpoint: %+v", e)
	}
	reqs := llm.Requests() // one by the text run, one by --json
	if len(reqs) != 2 || reqs[0].Authorization == "" || reqs[0].Body.MaxTokens != 1 ||
		len(reqs[0].Body.Tools) != 1 || reqs[0].Body.Tools[0].Name != "agentls_doctor" {
		t.Fatalf("the model got %+v", reqs)
	}
	found := map[string]string{}
	for _, e := range r.Editors {
		if e.Found {
			found[e.Editor] = e.Where
		}
	}
	if !strings.HasSuffix(found["neovim"], "agentls.nvim") || !strings.HasSuffix(found["helix"], "languages.toml") || len(found) != 2 {
		t.Errorf("editors found: %v", found)
	}
	if !strings.Contains(text, "a task can run here") || !strings.Contains(text, "tool calls accepted") {
		t.Errorf("text:\n%s", text)
	}
}

// llm.api "responses" is checked over the Responses API, and the report
// says which API it used.
func TestDoctorOverTheResponsesAPI(t *testing.T) {
	llm, base := startModel(t, `{"turns": [{"text": "ok"}, {"text": "ok"}]}`)
	env := doctorEnv(t, "AGENTLS_BASE_URL="+base, "AGENTLS_MODEL=fake-model")
	code, text, r := runDoctor(t, copyWorkspace(t, "hello"), env, "--settings", `{"llm.api": "responses"}`)
	if code != 0 || r.Endpoint.API != "responses" || !r.Endpoint.ToolCalls || !strings.Contains(text, "over the Responses API") {
		t.Fatalf("exit %d, endpoint %+v:\n%s", code, r.Endpoint, text)
	}
	if reqs := llm.Requests(); len(reqs) != 2 || reqs[0].API != "responses" || len(reqs[0].Body.Tools) != 1 {
		t.Fatalf("the model got %+v", reqs)
	}
}

// Against a closed port: the endpoint is not reachable, the report says
// so and what to check, and the exit status says a task could not run.
func TestDoctorAgainstAClosedPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	env := doctorEnv(t, "AGENTLS_BASE_URL=http://"+addr+"/v1", "AGENTLS_MODEL=m", "AGENTLS_API_KEY="+doctorKey)
	code, text, r := runDoctor(t, copyWorkspace(t, "hello"), env)
	st, msg := r.check(t, "endpoint")
	if code != 1 || st != "fail" || r.Endpoint.Reachable || !strings.Contains(msg, "not reachable") ||
		!strings.Contains(msg, "connection refused") || !strings.Contains(msg, "server running") {
		t.Fatalf("exit %d, endpoint %s: %s\n%s", code, st, msg, text)
	}
	if !strings.Contains(text, "FAIL  endpoint") || !strings.Contains(text, "a task could not run") {
		t.Errorf("text:\n%s", text)
	}
}

// Without a key for OpenAI's endpoint, the doctor says what to set and
// sends nothing; with a wrong key for an endpoint that wants one, it says
// the key was refused, and the key the server echoes back is not shown.
func TestDoctorWithoutAKey(t *testing.T) {
	code, text, r := runDoctor(t, copyWorkspace(t, "hello"), doctorEnv(t))
	st, msg := r.check(t, "key")
	if code != 1 || st != "fail" || !strings.Contains(msg, "AGENTLS_API_KEY") || !strings.Contains(msg, "local-model-quick-start") || r.Endpoint.Tried {
		t.Fatalf("exit %d, key %s: %s, endpoint tried %v\n%s", code, st, msg, r.Endpoint.Tried, text)
	}

	llm, base := startModel(t, `{"turns": [{"text": "ok"}, {"text": "ok"}]}`)
	llm.APIKey = "sk-the-right-one"
	env := doctorEnv(t, "AGENTLS_BASE_URL="+base, "AGENTLS_MODEL=fake-model", "AGENTLS_API_KEY="+doctorKey)
	code, text, r = runDoctor(t, copyWorkspace(t, "hello"), env)
	st, msg = r.check(t, "endpoint")
	if code != 1 || st != "fail" || !strings.Contains(msg, "401") || !strings.Contains(msg, "refused the key") {
		t.Fatalf("exit %d, endpoint %s: %s\n%s", code, st, msg, text)
	}
	if !strings.Contains(text, "[redacted]") {
		t.Errorf("the server's echo of the key is not shown redacted:\n%s", text)
	}
}

// With the sandbox unavailable (the test hook that makes the binary behave
// as on a kernel without it), the doctor says what is not enforced and
// why, and exits 3: a task runs, but every command is asked about.
func TestDoctorWithTheSandboxUnavailable(t *testing.T) {
	_, base := startModel(t, `{"turns": [{"text": "ok"}, {"text": "ok"}]}`)
	env := doctorEnv(t, "AGENTLS_BASE_URL="+base, "AGENTLS_MODEL=fake-model", "AGENTLS_TEST_NO_SANDBOX=1")
	code, text, r := runDoctor(t, copyWorkspace(t, "hello"), env)
	st, msg := r.check(t, "sandbox")
	if code != 3 || st != "fail" || r.Sandbox.Machine.Available || !strings.Contains(msg, "AGENTLS_TEST_NO_SANDBOX") ||
		!strings.Contains(msg, "asked about") || len(r.Sandbox.NotEnforced) == 0 {
		t.Fatalf("exit %d, sandbox %s: %s\n%s", code, st, msg, text)
	}
	if st, _ := r.check(t, "endpoint"); st != "ok" {
		t.Errorf("endpoint: %s", st)
	}
	if !strings.Contains(text, "FAIL  sandbox") || !strings.Contains(text, "exit 3") {
		t.Errorf("text:\n%s", text)
	}
}

// An untrusted .agentls.json that names an endpoint: the doctor says the
// endpoint is held back and that tasks stop, and sends nothing anywhere:
// neither to the file's endpoint nor to the one the environment names.
func TestDoctorHeldBackEndpoint(t *testing.T) {
	fileLLM, fileBase := startModel(t, `{"turns": [{"text": "ok"}]}`)
	envLLM, envBase := startModel(t, `{"turns": [{"text": "ok"}]}`)
	dir := copyWorkspace(t, "hello")
	if err := os.WriteFile(filepath.Join(dir, ".agentls.json"), []byte(`{"llm": {"baseURL": "`+fileBase+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := doctorEnv(t, "AGENTLS_BASE_URL="+envBase, "AGENTLS_MODEL=fake-model")
	code, text, r := runDoctor(t, dir, env)
	st, msg := r.check(t, "trust")
	if code != 1 || st != "fail" || !strings.Contains(msg, "llm.baseURL") || !strings.Contains(msg, "agentls trust") || r.Endpoint.Tried {
		t.Fatalf("exit %d, trust %s: %s\n%s", code, st, msg, text)
	}
	if n := len(fileLLM.Requests()) + len(envLLM.Requests()); n != 0 {
		t.Fatalf("the doctor sent %d requests", n)
	}
}

// A model that refuses requests carrying tools (as Ollama answers for a
// model without tool support) fails the endpoint check with the server's
// reason: every task's requests carry tools.
func TestDoctorModelRefusingTools(t *testing.T) {
	refuse := `{"error": {"status": 400, "message": "registry.ollama.ai/library/gemma:2b does not support tools"}}`
	_, base := startModel(t, `{"turns": [`+refuse+`, `+refuse+`], "models": ["gemma:2b"]}`)
	env := doctorEnv(t, "AGENTLS_BASE_URL="+base, "AGENTLS_MODEL=gemma:2b")
	code, text, r := runDoctor(t, copyWorkspace(t, "hello"), env)
	st, msg := r.check(t, "endpoint")
	if code != 1 || st != "fail" || r.Endpoint.ToolCalls || !r.Endpoint.ModelListed || !strings.Contains(msg, "does not support tools") {
		t.Fatalf("exit %d, endpoint %s: %s\n%s", code, st, msg, text)
	}
}
