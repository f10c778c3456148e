package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// allRequests is every request the model was sent, as JSON.
func allRequests(s *session) string {
	b, _ := json.Marshal(s.LLM.Requests())
	return string(b)
}

// Context files and @mentions follow the secret-file rules, by the name
// given and by the file it really is: AGENTS.md as a symlink to .env,
// @.git/config, @ a link to .env and @ a directory link into .git never
// reach the prompt, and a named pipe as a context file does not hang the
// task. Before, the links and .git/config went into every request.
func TestContextFilesAndMentionsKeepSecrets(t *testing.T) {
	const marker = "ctx-secret-marker-7781"
	root := copyWorkspace(t, "")
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "TOKEN="+marker+"\n")
	write(".git/config", "[remote \"o\"]\n\turl = https://u:"+marker+"@example.com/r\n")
	write("notes.md", "plain notes, fine to read\n")
	for link, target := range map[string]string{"AGENTS.md": ".env", "link-to-env": ".env", "gitdir": ".git"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".agentls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".agentls", "instructions.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, setup{root: root, script: `{"turns":[{"text":"done"}]}`})
	r := s.run(t, map[string]any{"task": "look at @.git/config and @link-to-env and @gitdir/config and @.ENV and @notes.md"})
	if r.Status != "ok" {
		t.Fatalf("task: %+v", r)
	}
	body := allRequests(s)
	if !strings.Contains(body, "plain notes, fine to read") {
		t.Fatalf("the ordinary mention did not reach the model:\n%s", body)
	}
	if strings.Contains(body, marker) {
		t.Errorf("a secret file reached the prompt:\n%s", body)
	}
}

// read_file of a 1 TiB sparse file is a clear error to the model and the
// server goes on (it used to allocate the file's size and die).
func TestReadFileOfAHugeSparseFileKeepsTheServer(t *testing.T) {
	root := copyWorkspace(t, "")
	f, err := os.Create(filepath.Join(root, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	s := start(t, setup{root: root, script: `{"turns":[{"toolCalls":[{"id":"c1","name":"read_file","arguments":"{\"path\":\"huge.bin\"}"}]},{"text":"done"},{"text":"again"}]}`})
	if r := s.run(t, map[string]any{"task": "read it"}); r.Status != "ok" {
		t.Fatalf("task: %+v", r)
	}
	if out := toolOutputs(s); !strings.Contains(out, "at most 64 MiB") {
		t.Errorf("the model was told %q", out)
	}
	if r := s.run(t, map[string]any{"task": "still there?"}); r.Status != "ok" {
		t.Fatalf("second task: %+v", r)
	}
}

// Named pipes where agentls reads files by itself hang nothing: a FIFO
// .agentls.json is reported and ignored by `agentls run` and by the
// server's initialize, and a FIFO Makefile and package.json are skipped by
// the checks' detection, so the task ends. Each of them used to block on
// the open for good.
func TestSpecialFilesHangNothing(t *testing.T) {
	fifos := func(t *testing.T, names ...string) string {
		root := copyWorkspace(t, "")
		for _, n := range names {
			if err := syscall.Mkfifo(filepath.Join(root, n), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	t.Run("run", func(t *testing.T) {
		root := fifos(t, ".agentls.json")
		_, base := startModel(t, `{"turns":[{"text":"done"}]}`)
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, "run", "--no-verify", "say done")
		cmd.Dir = root
		cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir(), "AGENTLS_BASE_URL="+base,
			"AGENTLS_API_KEY="+testKey, "AGENTLS_MODEL=test-model")
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("agentls run hung on a FIFO .agentls.json:\n%s", out)
		}
		if err != nil || !strings.Contains(string(out), "not a regular file") {
			t.Fatalf("agentls run: %v\n%s", err, out)
		}
	})
	t.Run("initialize", func(t *testing.T) {
		s := start(t, setup{root: fifos(t, ".agentls.json"), script: `{"turns":[{"text":"done"}]}`})
		if r := s.run(t, map[string]any{"task": "say done"}); r.Status != "ok" {
			t.Fatalf("task: %+v", r)
		}
	})
	t.Run("task", func(t *testing.T) {
		root := fifos(t, "Makefile", "package.json")
		s := start(t, setup{root: root, settings: map[string]any{"verify": map[string]any{"enabled": true}},
			script: `{"turns":[{"toolCalls":[{"id":"c1","name":"write_file","arguments":"{\"path\":\"a.txt\",\"content\":\"x\\n\"}"}]},{"text":"done"}]}`})
		if r := s.run(t, map[string]any{"task": "write a.txt"}); r.Status != "ok" {
			t.Fatalf("task: %+v", r)
		}
	})
}

// A request with an object as its id is answered with an invalid-request
// error (id null), and the server goes on: the task running meanwhile
// ends as it would have, and later requests are answered. jsonrpc2 used to
// end the connection, and with it `agentls serve` and every task.
func TestInvalidRequestKeepsServing(t *testing.T) {
	_, base := startModel(t, `{"turns":[{"delayMs":1500,"text":"finished the task"}]}`)
	root := t.TempDir()
	cmd := exec.Command(binary)
	cmd.Dir = root
	cmd.Env = append(cleanEnv(), "HOME="+root, "XDG_STATE_HOME="+root, "AGENTLS_BASE_URL="+base,
		"AGENTLS_API_KEY="+testKey, "AGENTLS_MODEL=test-model")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	write := func(body string) {
		if _, err := fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			t.Fatalf("write: %v\n%s", err, stderr.String())
		}
	}
	replies := make(chan string, 64)
	go func() {
		r := bufio.NewReader(out)
		for {
			body, err := readFrame(r)
			if err != nil {
				close(replies)
				return
			}
			replies <- body
		}
	}()
	// await returns the first message holding want, answering the
	// server's own requests (progress, messages) on the way.
	await := func(what, want string) string {
		deadline := time.After(testWait)
		for {
			select {
			case b, ok := <-replies:
				if !ok {
					t.Fatalf("%s: the server closed the stream\n%s", what, stderr.String())
				}
				if strings.Contains(b, want) {
					return b
				}
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				if json.Unmarshal([]byte(b), &m) == nil && m.Method != "" && len(m.ID) > 0 {
					write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":null}`)
				}
			case <-deadline:
				t.Fatalf("%s: no reply\n%s", what, stderr.String())
			}
		}
	}
	write(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://%s","capabilities":{},"initializationOptions":{"verify":{"enabled":false}}}}`, root))
	await("initialize", `"id":1,`)
	write(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	write(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"agentls.run","arguments":[{"task":"say something"}]}}`)
	run := await("agentls.run", `"id":2,`)
	var started struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(run), &started); err != nil || started.Result.TaskID == "" {
		t.Fatalf("agentls.run reply %s", run)
	}
	write(`{"jsonrpc":"2.0","id":{"an":"object"},"method":"workspace/executeCommand","params":{"command":"agentls.status","arguments":[{}]}}`)
	if b := await("the invalid request", `"id":null`); !strings.Contains(b, "-32600") {
		t.Errorf("the invalid request was answered %s", b)
	}
	write(`{"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"agentls.wait","arguments":[{"taskId":"` + started.Result.TaskID + `"}]}}`)
	if b := await("agentls.wait", `"id":3,`); !strings.Contains(b, `"ok"`) {
		t.Errorf("the task did not end well: %s", b)
	}
}

// The editor's workspace-scope settings (VS Code sends them apart, under
// workspaceSettings) are a workspace file like .agentls.json: what widens
// power applies only once the user trusts them. Not trusted, tools.allow
// ["*"] from there admits nothing and the command is asked about;
// trusted, it applies. Before, the server took them as the user's own.
func TestEditorWorkspaceSettingsNeedTrust(t *testing.T) {
	for _, trust := range []bool{false, true} {
		t.Run(map[bool]string{false: "untrusted", true: "trusted"}[trust], func(t *testing.T) {
			var trustAsked, commandAsked int
			// The user asks about every command (tools.approval
			// always-ask), so only an allow rule lets one run unasked.
			s := start(t, setup{script: runCommandScript("touch made.txt"), settings: map[string]any{
				"tools":             map[string]any{"approval": "always-ask"},
				"workspaceSettings": map[string]any{"tools": map[string]any{"allow": []string{"*"}}, "agent": map[string]any{"maxSteps": 7}},
			}})
			s.OnShowMessageRequest = trustAnswers(trust, &trustAsked, &commandAsked)
			s.run(t, map[string]any{"task": "touch"})
			made := fileExists(filepath.Join(s.Root, "made.txt"))
			if trustAsked != 1 || (commandAsked == 0) == !trust || made != trust {
				t.Fatalf("asked to trust %d, to run %d, file made %v (trusting %v); the model was told:\n%s", trustAsked, commandAsked, made, trust, toolOutputs(s))
			}
		})
	}
}
