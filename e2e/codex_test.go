package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/testkit/lspclient"
	"github.com/agentls/agentls/internal/testkit/need"
)

// codexACP finds the npm-installed @zed-industries/codex-acp
// (e2e/codex/install.sh) and returns its npm entry point, the command an
// editor user would configure (a node script that runs the native binary of
// the platform package npm picked), or skips the test saying why.
func codexACP(t testing.TB) (bin, version string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("codex", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, ".bin", "codex-acp")
	native, _ := filepath.Glob(filepath.Join(dir, "@zed-industries", "codex-acp-*", "bin", "codex-acp"))
	if _, err := os.Stat(bin); err != nil || len(native) == 0 {
		need.Missing(t, "@zed-industries/codex-acp is not installed: run e2e/codex/install.sh (npm ci)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		need.Missing(t, "node is not on PATH: codex-acp's npm entry point is a node script")
	}
	var pkg struct{ Version string }
	b, err := os.ReadFile(filepath.Join(dir, "@zed-industries", "codex-acp", "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil {
		t.Fatalf("reading codex-acp's package.json: %v", err)
	}
	return bin, pkg.Version
}

// codexHome writes a CODEX_HOME whose config.toml makes the project's fake
// model Codex's model provider over the Responses API on loopback. The
// tools the fake model cannot serve (web search, the sub-agent namespace)
// are turned off; retries are off so that a script error fails at once.
func codexHome(t testing.TB, baseURL string) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "codex-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`model = "fake-model"
model_provider = "agentls-fake"
web_search = "disabled"

[features]
multi_agent = false

[model_providers.agentls-fake]
name = "agentls fake model"
base_url = %q
env_key = "AGENTLS_CODEX_FAKE_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, baseURL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// codexRun is one run of the real Codex through the bridge.
type codexRun struct {
	*session
	llm     *fakellm.Server
	home    string // CODEX_HOME
	version string
	asked   []string // window/showMessageRequest messages
	result  lspclient.TaskResult
}

// runCodex serves the hello workspace with agent.backend.acp set to
// codex-acp, Codex's model being fakellm playing codex-bridge.json, runs
// one task and waits for its end. Codex runs without its sandbox (it runs
// as root here) under the approval policy given; the editor answers its
// permission requests with answer.
func runCodex(t *testing.T, approval, answer string) *codexRun {
	t.Helper()
	bin, version := codexACP(t)
	t.Logf("codex-acp %s at %s", version, bin)
	// Codex's own model server; the session's is agentls's and stays unused.
	llm, base := startModel(t, "codex-bridge.json")
	c := &codexRun{llm: llm, home: codexHome(t, base), version: version}
	c.session = start(t, setup{workspace: "hello", settings: map[string]any{
		"agent": map[string]any{"backend": map[string]any{"acp": map[string]any{
			"command": bin,
			"args":    []string{"-c", "approval_policy=" + strconv.Quote(approval), "-c", `sandbox_mode="danger-full-access"`},
			"env": map[string]any{
				"CODEX_HOME":             c.home,
				"HOME":                   t.TempDir(), // Codex keeps helpers in ~/.codex/tmp
				"AGENTLS_CODEX_FAKE_KEY": "sk-codex-fake-key",
			},
		}}},
		"verify": map[string]any{"enabled": true, "commands": []string{"grep -q goodbye hello.txt"}},
	}})
	c.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		c.asked = append(c.asked, p.Message)
		return &protocol.MessageActionItem{Title: answer}
	}
	id, err := c.Run(c.ctx, map[string]any{"task": "make hello.txt say goodbye"})
	if err != nil {
		t.Fatalf("agentls.run: %v", err)
	}
	if c.result, err = c.Wait(c.ctx, id, testWait); err != nil {
		t.Fatalf("agentls.wait: %v; what the fake model was asked:\n%s", err, llmLog(llm))
	}
	// The task's end is after the bridge's clean-up: nothing of this Codex
	// (node, the native binary, its shells) is left running.
	if left := processesWithEnv("CODEX_HOME=" + c.home); len(left) > 0 {
		t.Errorf("processes of the agent outlived the task: %v", left)
	}
	return c
}

// The real Codex (codex-acp from npm) through the LSP↔ACP bridge, driven by
// the project's fake model: agentls.run becomes session/prompt; Codex asks
// the fake model over /v1/responses, runs `cat hello.txt` through its
// exec_command tool and patches the file with apply_patch, which its
// "untrusted" policy asks about: session/request_permission becomes
// window/showMessageRequest. Codex never calls fs/read_text_file or
// fs/write_text_file: it reads and writes the disk itself and reports a tool
// call of kind edit with a diff. So the bridge sees the edit only as that
// diff: it counts the file as changed, the checks run after the turn, and
// no workspace/applyEdit is sent.
func TestBridgeRunsCodexACP(t *testing.T) {
	c := runCodex(t, "untrusted", "Allow once")
	r := c.result
	if r.Status != "ok" {
		t.Fatalf("result %+v; what the fake model was asked:\n%s", r, llmLog(c.llm))
	}

	// What Codex sent: three streamed Responses requests with its
	// exec_command tool, the file's text and the patch's outcome going back
	// (the script's expect checks fail the request otherwise).
	reqs := c.llm.Requests()
	if len(reqs) != 3 || c.llm.Pending() != 0 {
		t.Fatalf("%d requests, %d turns left", len(reqs), c.llm.Pending())
	}
	var tools []string
	for _, tool := range reqs[0].Body.Tools {
		tools = append(tools, tool.Name)
	}
	if reqs[0].API != "responses" || reqs[0].Authorization != "Bearer [redacted]" || !slices.Contains(tools, "exec_command") {
		t.Errorf("first request: api %q, auth %q, tools %q", reqs[0].API, reqs[0].Authorization, tools)
	}

	// What the bridge saw: the question, Codex's tool calls as agentls
	// events, its text, the file it edited (from the diff), and the checks
	// that ran on it.
	path := filepath.Join(c.Root, "hello.txt")
	if len(c.asked) != 1 || !strings.Contains(c.asked[0], "Edit "+path) {
		t.Errorf("showMessageRequest: %q", c.asked)
	}
	var calls, results, text strings.Builder
	for _, ev := range c.Events(r.TaskID) {
		switch ev["kind"] {
		case "toolCall":
			fmt.Fprintf(&calls, "%v\n", callName(ev))
		case "toolResult":
			fmt.Fprintf(&results, "%v: %v\n", callName(ev), ev["output"])
		case "text":
			text.WriteString(fmt.Sprint(ev["text"]))
		}
	}
	if !strings.Contains(calls.String(), "Read hello.txt") || !strings.Contains(results.String(), "edited "+path) {
		t.Errorf("tool calls:\n%s\nresults:\n%s", calls.String(), results.String())
	}
	if !strings.Contains(text.String(), "Done: hello.txt says goodbye.") {
		t.Errorf("the agent's text: %q", text.String())
	}
	if len(r.FilesChanged) != 1 || !strings.HasSuffix(r.FilesChanged[0], "/hello.txt") || !r.Verified {
		t.Errorf("files changed %q, verified %v: the bridge missed Codex's edit", r.FilesChanged, r.Verified)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "goodbye world\nsecond line\n" {
		t.Errorf("hello.txt on disk: %q", disk)
	}
	// Codex wrote the disk, not the editor: if this fails, codex-acp now
	// writes through fs/write_text_file and the edit reaches the editor.
	if n := len(c.Edits()); n != 0 {
		t.Errorf("%d workspace/applyEdit requests; codex-acp %s wrote the disk itself until now", n, c.version)
	}
}

// Denied in the editor, Codex's patch is not applied: the bridge answers
// its permission request with the reject option ("abort" in codex-acp),
// Codex ends the turn as cancelled, and nothing changed.
func TestBridgeCodexPatchDenied(t *testing.T) {
	c := runCodex(t, "untrusted", "Deny")
	r := c.result
	if r.Status != "cancelled" || len(r.FilesChanged) != 0 || r.Verified {
		t.Errorf("result %+v", r)
	}
	if len(c.asked) != 1 || !strings.Contains(c.asked[0], "Edit ") {
		t.Errorf("showMessageRequest: %q", c.asked)
	}
	if n := len(c.llm.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (the read, the patch)", n)
	}
	if disk, _ := os.ReadFile(filepath.Join(c.Root, "hello.txt")); string(disk) != "hello world\nsecond line\n" {
		t.Errorf("hello.txt changed: %q", disk)
	}
}

// processesWithEnv lists the live processes whose environment holds kv.
func processesWithEnv(kv string) []string {
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	var out []string
	for _, f := range envs {
		b, err := os.ReadFile(f)
		if err != nil || !slices.ContainsFunc(bytes.Split(b, []byte{0}), func(v []byte) bool { return string(v) == kv }) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(f), "cmdline"))
		out = append(out, fmt.Sprintf("%s %q", filepath.Base(filepath.Dir(f)), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return out
}

func callName(ev map[string]any) any {
	if c, ok := ev["call"].(map[string]any); ok {
		return c["name"]
	}
	return nil
}

// llmLog renders what the fake model was asked, for a failure message.
func llmLog(llm *fakellm.Server) string {
	var b strings.Builder
	for i, r := range llm.Requests() {
		msgs := r.Body.Messages
		last := ""
		if len(msgs) > 0 {
			last = msgs[len(msgs)-1].Role + ": " + msgs[len(msgs)-1].Content
		}
		fmt.Fprintf(&b, "request %d (turn %d): %d messages; last %.300q\n", i, r.Turn, len(msgs), last)
	}
	return b.String()
}
