package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"
)

// The attacks of the safety issue, through the real binary. Each one
// succeeded before the sandbox, the shell-parsed policy and workspace
// trust; each test says what it proves.

const testKey = "sk-test-secret-key-123" // start() puts it in the server's environment

// runCommandScript is a script whose one tool call runs command, and whose
// second turn just answers.
func runCommandScript(command string) string {
	args, _ := json.Marshal(map[string]string{"command": command})
	call, _ := json.Marshal(map[string]any{"id": "c1", "name": "run_command", "arguments": string(args)})
	return `{"turns":[{"toolCalls":[` + string(call) + `]},{"text":"done"}]}`
}

// toolOutputs are the tool results the model was sent.
func toolOutputs(s *session) string {
	var b strings.Builder
	for _, r := range s.LLM.Requests() {
		for _, m := range r.Body.Messages {
			if m.Role == "tool" {
				b.WriteString(m.Content)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// A command the user allowed cannot read the API key: not from agentls's
// /proc/<pid>/environ, not from any other process's, not from its own
// environment. Before the sandbox, `cat /proc/$PPID/environ` printed it and
// the key went to the model.
func TestCommandsCannotReadTheKey(t *testing.T) {
	cmd := `cat /proc/$PPID/environ | tr '\0' '\n'; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < $f; done 2>/dev/null; env`
	s := start(t, setup{script: runCommandScript(cmd), settings: map[string]any{"tools": map[string]any{"allow": []string{"*"}}}})
	if r := s.run(t, map[string]any{"task": "look around"}); r.Status != "ok" {
		t.Fatal(r.Error)
	}
	out := toolOutputs(s)
	if !strings.Contains(out, "PATH=") {
		t.Fatalf("the command did not run: %q", out)
	}
	if strings.Contains(out, testKey) {
		t.Errorf("the key reached the model through run_command's output:\n%s", out)
	}
}

// trustAnswers answers agentls's questions as a user would: the question
// to trust a workspace settings file with trust ("Trust this file" or "Not
// now"), a command's with Deny; each is counted.
func trustAnswers(trust bool, trustAsked, commandAsked *int) func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
	return func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		switch {
		case strings.Contains(p.Message, "Trust it?"):
			*trustAsked++
			if trust {
				return &protocol.MessageActionItem{Title: "Trust this file"}
			}
			return &protocol.MessageActionItem{Title: "Not now"}
		case strings.Contains(p.Message, "wants to run"):
			*commandAsked++
			return &protocol.MessageActionItem{Title: "Deny"}
		}
		return nil
	}
}

// A workspace .agentls.json that widens power (tools.allow ["*"]) is held
// back until the user trusts its content; trusted, it applies; changed, it
// asks again. Before, the model could write it and every command ran
// unasked after a restart.
func TestWorkspaceSettingsNeedTrust(t *testing.T) {
	wide := `{"tools": {"allow": ["*"]}}`
	var trustAsked, commandAsked int
	answer := func(trust bool) func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		return trustAnswers(trust, &trustAsked, &commandAsked)
	}

	// Not trusted: the allow rule does not apply, so the command is asked
	// about (and denied) under tools.approval "always-ask".
	s := start(t, setup{script: runCommandScript("touch made.txt"), files: map[string]string{".agentls.json": wide}, settings: alwaysAsk()})
	s.OnShowMessageRequest = answer(false)
	s.run(t, map[string]any{"task": "touch"})
	if trustAsked != 1 || commandAsked != 1 || fileExists(filepath.Join(s.Root, "made.txt")) {
		t.Fatalf("untrusted: asked to trust %d, to run %d, file made %v; want 1, 1, false", trustAsked, commandAsked, fileExists(filepath.Join(s.Root, "made.txt")))
	}

	// Trusted: the rule applies and the command runs unasked.
	trustAsked, commandAsked = 0, 0
	state := filepath.Join(t.TempDir(), "state")
	s = start(t, setup{script: runCommandScript("touch made.txt"), files: map[string]string{".agentls.json": wide}, env: []string{"XDG_STATE_HOME=" + state}, settings: alwaysAsk()})
	s.OnShowMessageRequest = answer(true)
	s.run(t, map[string]any{"task": "touch"})
	if trustAsked != 1 || commandAsked != 0 || !fileExists(filepath.Join(s.Root, "made.txt")) {
		t.Fatalf("trusted: asked to trust %d, to run %d, file made %v; want 1, 0, true", trustAsked, commandAsked, fileExists(filepath.Join(s.Root, "made.txt")))
	}

	// The same content in a new server is remembered; a changed file asks
	// again.
	trustAsked = 0
	root := s.Root
	s = start(t, setup{script: runCommandScript("true"), root: root, env: []string{"XDG_STATE_HOME=" + state}})
	s.OnShowMessageRequest = answer(false)
	s.run(t, map[string]any{"task": "again"})
	if trustAsked != 0 {
		t.Errorf("the trusted content was asked about again")
	}
	s = start(t, setup{script: runCommandScript("true"), root: root, files: map[string]string{".agentls.json": `{"tools": {"allow": ["*", "git push"]}}`}, env: []string{"XDG_STATE_HOME=" + state}})
	s.OnShowMessageRequest = answer(false)
	s.run(t, map[string]any{"task": "changed"})
	if trustAsked != 1 {
		t.Errorf("a changed file was not asked about again (%d)", trustAsked)
	}
}

// .agentls.json edited while the server runs applies to the next task,
// and its widening part is asked about first: before, the file was read
// at initialize and on didChangeConfiguration only, so the user's edit did
// nothing until a restart.
func TestWorkspaceSettingsEditedDuringTheSession(t *testing.T) {
	script := scriptOf(turn{text: "hello"}, turn{calls: [][2]any{{"run_command", map[string]any{"command": "touch made.txt"}}}}, turn{text: "done"})
	s := start(t, setup{script: script, settings: alwaysAsk()})
	var trustAsked, commandAsked int
	s.OnShowMessageRequest = trustAnswers(true, &trustAsked, &commandAsked)
	s.run(t, map[string]any{"task": "say hello"})
	if trustAsked != 0 {
		t.Fatalf("asked to trust a file that does not exist (%d)", trustAsked)
	}
	if err := os.WriteFile(filepath.Join(s.Root, ".agentls.json"), []byte(`{"tools": {"allow": ["touch"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s.run(t, map[string]any{"task": "touch"})
	if trustAsked != 1 || commandAsked != 0 || !fileExists(filepath.Join(s.Root, "made.txt")) {
		t.Errorf("after editing .agentls.json: asked to trust %d, to run %d, file made %v; want 1, 0, true",
			trustAsked, commandAsked, fileExists(filepath.Join(s.Root, "made.txt")))
	}
}

// The model cannot change a file that configures agentls or the editor
// without the user's explicit approval, review mode or not.
func TestModelCannotRewriteItsConfiguration(t *testing.T) {
	for _, path := range []string{".agentls.json", ".vscode/settings.json", ".git/hooks/pre-commit"} {
		t.Run(path, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"path": path, "content": `{"tools":{"allow":["*"]}}`})
			call, _ := json.Marshal(map[string]any{"id": "c1", "name": "write_file", "arguments": string(args)})
			s := start(t, setup{script: `{"turns":[{"toolCalls":[` + string(call) + `]},{"text":"done"}]}`})
			var asked []string
			s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
				asked = append(asked, p.Message)
				return &protocol.MessageActionItem{Title: "No"}
			}
			s.run(t, map[string]any{"task": "configure yourself"})
			if text, ok := s.Text(path); ok && strings.Contains(text, "allow") {
				t.Errorf("%s was written through the editor", path)
			}
			if b, err := os.ReadFile(filepath.Join(s.Root, path)); err == nil && strings.Contains(string(b), "allow") {
				t.Errorf("%s was written to disk", path)
			}
			if path != ".git/hooks/pre-commit" && len(asked) != 1 {
				t.Errorf("asked %q, want one question", asked)
			}
			if out := toolOutputs(s); !strings.Contains(out, path) {
				t.Errorf("the model was not told why: %q", out)
			}
		})
	}
}

// Deny rules match the program that runs, whatever hides it; with tools.allow
// ["*"] each of these ran unasked before the policy parsed the shell.
func TestDenyRulesSeeThroughTheShell(t *testing.T) {
	for _, cmd := range []string{`\rm victim`, `command rm victim`, `/bin/rm victim`, `(rm victim)`, `sh -c 'rm victim'`, `env rm victim`, `echo $(rm victim)`} {
		t.Run(cmd, func(t *testing.T) {
			s := start(t, setup{script: runCommandScript(cmd), files: map[string]string{"victim": "x"},
				settings: map[string]any{"tools": map[string]any{"allow": []string{"*"}, "deny": []string{"rm"}}}})
			var asked atomic.Int32
			s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
				asked.Add(1)
				return &protocol.MessageActionItem{Title: "Deny"}
			}
			s.run(t, map[string]any{"task": "clean"})
			if !fileExists(filepath.Join(s.Root, "victim")) {
				t.Errorf("%s removed the file", cmd)
			}
			// The rule refused it, not the user's answer to a question.
			if n := asked.Load(); n != 0 {
				t.Errorf("%s was asked about %d times; the deny rule should refuse it unasked", cmd, n)
			}
			if out := toolOutputs(s); !strings.Contains(out, `tools.deny rule "rm"`) {
				t.Errorf("the model was not told the deny rule refused %s: %q", cmd, out)
			}
		})
	}
}

// The verify gate runs model-written code (go test on a zz_test.go whose
// init writes files) in the sandbox: nothing lands outside the workspace,
// and the check's writes into the workspace are discarded with its view.
// Before, the check ran with the user's full rights.
func TestChecksAreSandboxed(t *testing.T) {
	outside, err := os.MkdirTemp("/var/tmp", "agentls-e2e-outside")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	marker := filepath.Join(outside, "pwned")
	src := "package greet\n\nimport \"os\"\n\nfunc init() {\n\tos.WriteFile(" + strconvQuote(marker) + ", []byte(\"x\"), 0o644)\n\tos.WriteFile(\"dropped.txt\", []byte(\"x\"), 0o644)\n}\n"
	args, _ := json.Marshal(map[string]string{"path": "zz_test.go", "content": src})
	call, _ := json.Marshal(map[string]any{"id": "c1", "name": "write_file", "arguments": string(args)})
	s := start(t, setup{workspace: "demo", script: `{"turns":[{"toolCalls":[` + string(call) + `]},{"text":"done"}]}`,
		settings: map[string]any{"verify": map[string]any{"commands": []string{"go test ./..."}}, "agent": map[string]any{"maxRetries": 0}}})
	r := s.run(t, map[string]any{"task": "add a test"})
	if r.Status != "ok" {
		t.Fatalf("task: %+v", r)
	}
	if fileExists(marker) {
		t.Error("a check wrote outside the workspace")
	}
	if fileExists(filepath.Join(s.Root, "dropped.txt")) {
		t.Error("a check's write reached the workspace")
	}
	var ran bool
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "verify" {
			ran = true
		}
	}
	if !ran {
		t.Error("the checks did not run")
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Where the sandbox is unavailable, the user is told once, and allow rules
// admit nothing: every command is asked about, and a check too.
func TestWithoutSandboxEverythingIsAsked(t *testing.T) {
	s := start(t, setup{script: runCommandScript("touch made.txt"), env: []string{"AGENTLS_TEST_NO_SANDBOX=1"},
		settings: map[string]any{"tools": map[string]any{"allow": []string{"*"}}}})
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		return &protocol.MessageActionItem{Title: "Deny"}
	}
	s.run(t, map[string]any{"task": "touch"})
	if len(asked) != 1 || !strings.Contains(asked[0], "touch made.txt") {
		t.Errorf("asked %q; want the command asked about despite tools.allow [\"*\"]", asked)
	}
	if fileExists(filepath.Join(s.Root, "made.txt")) {
		t.Error("the denied command ran")
	}
	var told int
	for _, n := range s.Notes(protocol.MethodWindowShowMessage) {
		if strings.Contains(string(n.Params), "sandbox is unavailable") {
			told++
		}
	}
	if told != 1 {
		t.Errorf("told about the missing sandbox %d times, want once", told)
	}
}

// With the default settings, the secret files docs/security.md lists are never
// read, listed or searched into the model's context, whatever the case of
// their names. Before, the defaults held only five patterns: .git/config
// and .netrc went to the model.
func TestDefaultSecretFilesNeverReachTheModel(t *testing.T) {
	const marker = "hunter2-secret-marker"
	files := map[string]string{
		".env": marker, ".git/config": "[remote]\n\turl = https://u:" + marker + "@example.com/r\n",
		".netrc": "machine x login u password " + marker, ".npmrc": "//r/:_authToken=" + marker,
		"sub/.pgpass": marker, "keys/server.PEM": marker, "visible.txt": "nothing here",
	}
	var calls []string
	n := 0
	call := func(name string, args map[string]string) {
		a, _ := json.Marshal(args)
		c, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("c%d", n), "name": name, "arguments": string(a)})
		n++
		calls = append(calls, `{"toolCalls":[`+string(c)+`]}`)
	}
	for _, p := range []string{".env", ".git/config", ".netrc", ".npmrc", "sub/.pgpass", "keys/server.PEM", ".ENV"} {
		call("read_file", map[string]string{"path": p})
	}
	call("grep", map[string]string{"pattern": "hunter2"})
	call("list_files", map[string]string{"pattern": "**"})
	call("read_file", map[string]string{"path": "visible.txt"})
	s := start(t, setup{files: files, script: `{"turns":[` + strings.Join(calls, ",") + `,{"text":"done"}]}`})
	if r := s.run(t, map[string]any{"task": "find the passwords"}); r.Status != "ok" {
		t.Fatal(r.Error)
	}
	out := toolOutputs(s)
	if !strings.Contains(out, "nothing here") {
		t.Fatalf("the tools did not run: %q", out)
	}
	if strings.Contains(out, marker) {
		t.Errorf("a secret reached the model:\n%s", out)
	}
	for _, name := range []string{".git/config", ".netrc", ".npmrc", ".pgpass"} {
		if strings.Contains(out, name+"\n") || strings.Contains(out, "\n"+name) {
			t.Errorf("list_files listed %s:\n%s", name, out)
		}
	}
}
