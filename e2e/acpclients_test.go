//go:build acpclients

// These tests need CodeCompanion.nvim, plenary.nvim and acp.el at pinned
// commits, which are repositories and not packages: no registry this
// project's CI reaches serves them, so a CI run could only skip them. They
// are built only with -tags acpclients (make test-acpclients), on a machine
// where the clients are unpacked.

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Real editor ACP clients that no one here wrote, driven headless against
// `agentls acp` and the scripted model. The editors come from
// e2e/acpclients/install.sh (Neovim >= 0.11, Emacs >= 29 unpacked under
// /opt/agentls-test); the clients are public repositories, not packages, so
// they are looked for at the commits pinned here and the test says how to put
// them there when they are missing.

// The pinned commits of the clients.
var acpClientCommits = map[string]string{
	"codecompanion.nvim": "f1afd02537c68b3dd6e0d41d4adda5ef538e0473", // olimorris/codecompanion.nvim
	"plenary.nvim":       "b9fd5226c2f76c951fc8ed5923d85e4de065e509", // nvim-lua/plenary.nvim, which CodeCompanion loads
	"acp.el":             "4d7d58dc39870e9390e94617e13d7ada175d7945", // xenodium/acp.el
}

// acpClientDir returns the unpacked client NAME, or skips: it lives in
// $AGENTLS_ACP_CLIENTS/NAME (default /opt/agentls-test/acp-clients), a
// snapshot of the repository at the pinned commit with the commit's hash in
// its .commit file.
func acpClientDir(t *testing.T, name string) string {
	t.Helper()
	base := os.Getenv("AGENTLS_ACP_CLIENTS")
	if base == "" {
		base = "/opt/agentls-test/acp-clients"
	}
	dir := filepath.Join(base, name)
	b, err := os.ReadFile(filepath.Join(dir, ".commit"))
	want := acpClientCommits[name]
	if err != nil {
		t.Skipf("SKIP: %s is not at %s; unpack its repository at commit %s there, with the hash in .commit", name, dir, want)
	}
	if got := strings.TrimSpace(string(b)); got != want {
		t.Skipf("SKIP: %s at %s is commit %s, the test is pinned to %s", name, dir, got, want)
	}
	return dir
}

// acpEditor returns the wrapper e2e/acpclients/install.sh wrote, or skips.
func acpEditor(t *testing.T, env, def, name string) string {
	t.Helper()
	root := os.Getenv(env)
	if root == "" {
		root = def
	}
	bin := filepath.Join(root, name)
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("SKIP: %s is missing; run e2e/acpclients/install.sh", bin)
	}
	return root
}

// acpAgentScript writes a script that runs `agentls acp` against the model at
// base with settings, logging to the returned log file.
func acpAgentScript(t *testing.T, base, settings string) (script, log string) {
	t.Helper()
	tmp := t.TempDir()
	script, log = filepath.Join(tmp, "agentls-acp.sh"), filepath.Join(tmp, "agentls.log")
	body := fmt.Sprintf(`#!/bin/sh
AGENTLS_BASE_URL=%q AGENTLS_API_KEY=sk-test-secret-key-123 AGENTLS_MODEL=test-model XDG_STATE_HOME=%q \
  exec %q acp --log-file %q --settings %q
`, base, filepath.Join(tmp, "state"), binary, log, settings)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, log
}

// clientTaskScript reads hello.txt, edits it, runs a command the user is
// asked about, and answers.
const clientTaskScript = `{"turns":[
 {"text":"Let me look.","toolCalls":[{"id":"call_read","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"}]},
 {"expect":{"lastToolContains":"hello"},"toolCalls":[{"id":"call_editr","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"},{"id":"call_edit","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
 {"toolCalls":[{"id":"call_cmd","name":"run_command","arguments":"{\"command\":\"echo ran > ran.txt\"}"}]},
 {"expect":{"lastToolContains":"exit"},"text":"Done: hello became goodbye and the command ran."}]}`

// CodeCompanion.nvim in Neovim 0.11+: a chat with agentls as its ACP
// adapter shows agentls's models (its config option of category model) and
// slash commands, picks the second model, and runs a task whose answer
// streams into the chat buffer, whose edit lands through CodeCompanion's
// fs/write_text_file, and whose command waits for the user's "Accept" in
// the chat buffer.
func TestCodeCompanionChat(t *testing.T) { codeCompanionTask(t, false) }

// In review mode (agentls's mode option set to ask through CodeCompanion)
// the edit is a permission question too, carrying its diff, which
// CodeCompanion shows as proposed edits before the user accepts.
func TestCodeCompanionReview(t *testing.T) { codeCompanionTask(t, true) }

func codeCompanionTask(t *testing.T, review bool) {
	nvimRoot := acpEditor(t, "AGENTLS_NVIM_ACP", "/opt/agentls-test/nvim-acp", "nvim")
	cc := acpClientDir(t, "codecompanion.nvim")
	plenary := acpClientDir(t, "plenary.nvim")
	root := copyWorkspace(t, "hello")
	llm, base := startModel(t, `{"models":["test-model","fake-b"],`+clientTaskScript[1:])
	agent, agentLog := acpAgentScript(t, base, `{"verify":{"enabled":false},"tools":{"approval":"always-ask"}}`)
	tmp := t.TempDir()
	result := filepath.Join(tmp, "result")
	lua, _ := filepath.Abs(filepath.Join("acpclients", "codecompanion.lua"))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(nvimRoot, "nvim"), "--headless", "--clean", "-u", lua)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CC_DIR="+cc, "PLENARY_DIR="+plenary, "NVIM_ROOT="+nvimRoot,
		"AGENTLS_CMD="+agent, "RESULT="+result, "WORKSPACE="+root, fmt.Sprintf("REVIEW=%d", map[bool]int{false: 0, true: 1}[review]),
		"HOME="+filepath.Join(tmp, "home"), "XDG_STATE_HOME="+filepath.Join(tmp, "nvim-state"),
		"XDG_DATA_HOME="+filepath.Join(tmp, "nvim-data"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "nvim-config"))
	out, err := cmd.CombinedOutput()
	res, _ := os.ReadFile(result)
	chat, _ := os.ReadFile(result + ".chat")
	logs := func() string {
		l, _ := os.ReadFile(agentLog)
		ccLog, _ := filepath.Glob(filepath.Join(tmp, "nvim-state", "nvim", "codecompanion*.log"))
		var cl []byte
		if len(ccLog) > 0 {
			cl, _ = os.ReadFile(ccLog[0])
		}
		return fmt.Sprintf("nvim output:\n%s\nresult:\n%s\nchat buffer:\n%s\nagentls log:\n%s\ncodecompanion log (tail):\n%s",
			out, res, chat, tail(string(l), 4000), tail(string(cl), 6000))
	}
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, logs())
	}
	asked := "done; asked 1"
	if review {
		asked = "done; asked 2"
		if !strings.Contains(string(res), "set mode: true") || !strings.Contains(string(res), "asked: edit") ||
			!strings.Contains(string(chat), "Proposed edits for `") || !strings.Contains(string(chat), "+goodbye world") {
			t.Errorf("in review mode the edit was not a question with its diff:\n%s", logs())
		}
	}
	if !strings.Contains(string(res), asked) || !strings.Contains(string(res), "pressed: ") {
		t.Errorf("CodeCompanion's permission questions were not asked and answered (want %q):\n%s", asked, logs())
	}
	if !strings.Contains(string(chat), "Done: hello became goodbye and the command ran.") || !strings.Contains(string(chat), "Let me look.") {
		t.Errorf("the streamed answer is not in the chat buffer:\n%s", logs())
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "hello.txt")); !strings.Contains(string(disk), "goodbye") {
		t.Errorf("hello.txt is %q: the edit did not land through CodeCompanion\n%s", disk, logs())
	}
	if ran, err := os.ReadFile(filepath.Join(root, "ran.txt")); err != nil || strings.TrimSpace(string(ran)) != "ran" {
		t.Errorf("the accepted command did not run (ran.txt %q, %v)\n%s", ran, err, logs())
	}
	rpc, _ := os.ReadFile(result + ".rpc")
	for _, m := range []string{`"fs/read_text_file"`, `"fs/write_text_file"`, `"session/request_permission"`, `"session/prompt"`} {
		if !strings.Contains(string(rpc), m) {
			t.Errorf("CodeCompanion's RPC log has no %s:\n%s", m, tail(string(rpc), 6000))
		}
	}
	for _, want := range []string{"models: test-model of fake-b,test-model", "commands: verify,undo,review,model", "set model: true"} {
		if !strings.Contains(string(res), want) {
			t.Errorf("CodeCompanion's findings lack %q (its model picker and slash commands)\n%s", want, res)
		}
	}
	for i, req := range llm.Requests() {
		if req.Body.Model != "fake-b" {
			t.Errorf("model request %d asked for %q, want fake-b, the model picked in CodeCompanion", i, req.Body.Model)
		}
	}
	t.Logf("CodeCompanion:\n%s\nchat buffer:\n%s", res, chat)
	if n := len(llm.Requests()); n != 4 {
		t.Errorf("the model was asked %d times, want 4", n)
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// acp.el, the ACP client library agent-shell is built on, in Emacs 29+: the
// same task through its client, its fs handlers and its permission answer.
// (agent-shell itself could not be fetched here; see e2e/acpclients/acpel.el.)
func TestACPElTask(t *testing.T) {
	emacsRoot := acpEditor(t, "AGENTLS_EMACS_ACP", "/opt/agentls-test/emacs-acp", "emacs")
	acpel := acpClientDir(t, "acp.el")
	root := copyWorkspace(t, "hello")
	llm, base := startModel(t, clientTaskScript)
	agent, agentLog := acpAgentScript(t, base, `{"verify":{"enabled":false},"tools":{"approval":"always-ask"}}`)
	tmp := t.TempDir()
	result := filepath.Join(tmp, "result")
	driver, _ := filepath.Abs(filepath.Join("acpclients", "acpel.el"))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(emacsRoot, "emacs"), "--batch", "-Q", "-L", acpel, "-l", driver)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AGENTLS_CMD="+agent, "RESULT="+result, "WORKSPACE="+root,
		"HOME="+filepath.Join(tmp, "home"))
	out, err := cmd.CombinedOutput()
	res, _ := os.ReadFile(result)
	logs := func() string {
		l, _ := os.ReadFile(agentLog)
		return fmt.Sprintf("emacs output:\n%s\nresult:\n%s\nagentls log:\n%s", tail(string(out), 4000), res, tail(string(l), 4000))
	}
	if err != nil {
		t.Fatalf("emacs: %v\n%s", err, logs())
	}
	t.Logf("acp.el:\n%s", res)
	for _, want := range []string{
		"initialized: protocol 1, agent agentls",
		"read hello.txt",
		"write hello.txt",
		"asked: Run `echo ran > ran.txt`; options allow_once,allow_always,reject_once",
		"tools read:call_read edit:call_edit execute:call_cmd",
		"stop end_turn; asked 1",
		"Done: hello became goodbye and the command ran.",
	} {
		if !strings.Contains(string(res), want) {
			t.Errorf("acp.el's findings lack %q\n%s", want, logs())
		}
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "hello.txt")); !strings.Contains(string(disk), "goodbye") {
		t.Errorf("hello.txt is %q: the edit did not land through acp.el", disk)
	}
	if ran, err := os.ReadFile(filepath.Join(root, "ran.txt")); err != nil || strings.TrimSpace(string(ran)) != "ran" {
		t.Errorf("the allowed command did not run (ran.txt %q, %v)", ran, err)
	}
	if n := len(llm.Requests()); n != 4 {
		t.Errorf("the model was asked %d times, want 4", n)
	}
}
