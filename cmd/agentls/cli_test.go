package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// binary is agentls built once for the end-to-end tests of `agentls run`
// and `agentls sessions`.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentls-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "agentls")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building agentls: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const testKey = "sk-cli-test-key-0123456789"

// env is one test's world: a workspace, a state directory and the
// environment the binary runs with.
type env struct {
	t     *testing.T
	ws    string
	state string
	vars  []string
}

func newEnv(t *testing.T, files map[string]string) *env {
	t.Helper()
	e := &env{t: t, ws: copyHello(t), state: t.TempDir()}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(e.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AGENTLS_") || strings.HasPrefix(k, "OPENAI_") || k == "XDG_STATE_HOME" {
			continue
		}
		e.vars = append(e.vars, kv)
	}
	e.vars = append(e.vars, "XDG_STATE_HOME="+e.state, "AGENTLS_API_KEY="+testKey, "AGENTLS_MODEL=fake-model")
	return e
}

// alwaysAsk is a workspace whose .agentls.json asks about every command
// (tools.approval "always-ask"; narrowing, so it applies untrusted): the
// tests of the question itself. Under the default, "sandboxed", a plain
// command runs in the sandbox unasked.
var alwaysAsk = map[string]string{".agentls.json": `{"tools": {"approval": "always-ask"}}`}

// copyHello copies testdata/workspaces/hello into a temporary directory.
func copyHello(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if real, err := filepath.EvalSymlinks(dst); err == nil {
		dst = real
	}
	src := filepath.Join("..", "..", "testdata", "workspaces", "hello")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// fakeModel starts a fake model for a script: a testdata/conversations file
// name, or inline JSON.
func fakeModel(t *testing.T, script string) *fakellm.Server {
	t.Helper()
	var s *fakellm.Script
	var err error
	if strings.HasPrefix(strings.TrimSpace(script), "{") {
		s, err = fakellm.Parse([]byte(script))
	} else {
		s, err = fakellm.Load(filepath.Join("..", "..", "testdata", "conversations", script))
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(s)
	srv.APIKey = testKey
	if _, err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

type result struct {
	code           int
	stdout, stderr string
}

func (e *env) command(args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir = e.ws
	cmd.Env = e.vars
	return cmd
}

// run runs agentls with args in the workspace.
func (e *env) run(args ...string) result {
	e.t.Helper()
	cmd := e.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// snapshot maps every file of dir to its text.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// noKeyUnder fails if any file under dir holds the API key.
func noKeyUnder(t *testing.T, dir string) {
	t.Helper()
	for p, text := range snapshot(t, dir) {
		if strings.Contains(text, testKey) {
			t.Errorf("%s holds the API key", p)
		}
	}
}

const helloAfter = "goodbye world\nsecond line\n"

func TestRunText(t *testing.T) {
	e := newEnv(t, nil)
	srv := fakeModel(t, "read-edit.json")
	r := e.run("run", "--base-url", srv.URL(), "replace hello with goodbye")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := snapshot(t, e.ws)["hello.txt"]; got != helloAfter {
		t.Fatalf("hello.txt = %q", got)
	}
	for _, want := range []string{
		"Let me look at the file first.\n→ read_file hello.txt\n  ← read_file: 1\thello world …\n",
		"→ edit_file hello.txt\n  ← edit_file: edited hello.txt: 1 replacement, line 1\n",
		"I replaced \"hello\" with \"goodbye\" in hello.txt.\n── ok · 1 file changed · 3 steps · ",
		"transcript: " + e.state,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "" || srv.Pending() != 0 {
		t.Errorf("stdout %q, %d turns left", r.stdout, srv.Pending())
	}
	if reqs := srv.Requests(); len(reqs) == 0 || reqs[0].Authorization != "Bearer [redacted]" {
		t.Errorf("the API key from AGENTLS_API_KEY was not sent")
	}
	if strings.Contains(r.stderr, testKey) {
		t.Error("the API key was printed")
	}
	noKeyUnder(t, e.state)
	// The transcript was written as the task streamed and ends with the
	// result.
	tr := transcriptOf(t, r.stderr)
	if !strings.Contains(tr, "## Step 2\n\n- → `edit_file hello.txt`\n") || !strings.Contains(tr, "## Result\n\n- ok · 1 file changed") {
		t.Errorf("transcript:\n%s", tr)
	}
}

func transcriptOf(t *testing.T, stderr string) string {
	t.Helper()
	_, rest, ok := strings.Cut(stderr, "transcript: ")
	if !ok {
		t.Fatalf("no transcript in:\n%s", stderr)
	}
	path, _, _ := strings.Cut(rest, "\n")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonLines decodes stderr of a --json run.
func jsonLines(t *testing.T, stderr string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stderr))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestRunJSON(t *testing.T) {
	e := newEnv(t, nil)
	srv := fakeModel(t, "read-edit.json")
	r := e.run("run", "--json", "--base-url", srv.URL(), "replace hello with goodbye")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := jsonLines(t, r.stderr)
	var kinds []string
	var text strings.Builder
	for _, l := range lines {
		k := l["kind"].(string)
		if len(kinds) == 0 || kinds[len(kinds)-1] != k {
			kinds = append(kinds, k)
		}
		if k == "text" {
			text.WriteString(l["text"].(string))
		}
		if k != "start" && k != "note" && (l["session"] == nil || l["taskId"] != "t1") {
			t.Errorf("event without session or task: %v", l)
		}
	}
	want := "start state text usage toolCall state toolResult state usage toolCall state toolResult state text usage state end note"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds:\n%s\nwant\n%s", got, want)
	}
	if text.String() != "Let me look at the file first.I replaced \"hello\" with \"goodbye\" in hello.txt." {
		t.Errorf("streamed text %q", text.String())
	}
	var end map[string]any
	for _, l := range lines {
		if l["kind"] == "end" {
			end = l["result"].(map[string]any)
		}
	}
	if end["status"] != "ok" || !reflect.DeepEqual(end["filesChanged"], []any{"hello.txt"}) {
		t.Errorf("end %v", end)
	}
}

func TestDryRun(t *testing.T) {
	e := newEnv(t, nil)
	before := snapshot(t, e.ws)
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "er", "name": "read_file", "arguments": "{\"path\":\"hello.txt\"}"}, {"id": "e", "name": "edit_file", "arguments": "{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"goodbye\"}"}]},
		{"toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"sub/new.txt\",\"content\":\"proposed content\\n\"}"}]},
		{"toolCalls": [{"id": "r", "name": "read_file", "arguments": "{\"path\":\"sub/new.txt\"}"},
		               {"id": "g", "name": "grep", "arguments": "{\"pattern\":\"goodbye|proposed\"}"}]},
		{"expect": {"lastToolContains": "sub/new.txt:1: proposed content"}, "text": "Done."}
	]}`)
	r := e.run("run", "--dry-run", "--base-url", srv.URL(), "change things")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	want := "--- a/hello.txt\n+++ b/hello.txt\n@@ -1,2 +1,2 @@\n-hello world\n+goodbye world\n second line\n" +
		"--- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1 @@\n+proposed content\n"
	if r.stdout != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", r.stdout, want)
	}
	if after := snapshot(t, e.ws); !reflect.DeepEqual(before, after) {
		t.Fatalf("--dry-run wrote to the workspace: %v", after)
	}
	// Reads and searches saw the proposed texts.
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Body.Messages
	var tools []string
	for _, m := range last[len(last)-2:] {
		tools = append(tools, m.Content)
	}
	if !strings.Contains(tools[0], "proposed content") || !strings.Contains(tools[1], "hello.txt:1: goodbye world") {
		t.Errorf("tool results in the overlay: %q", tools)
	}
}

func TestInterruptMidStream(t *testing.T) {
	e := newEnv(t, nil)
	before := snapshot(t, e.ws)
	srv := fakeModel(t, `{"turns": [
		{"text": "I will now rewrite hello.txt completely, slowly, word by word, so there is time to interrupt me.",
		 "chunkSize": 4, "chunkDelayMs": 40,
		 "toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"hello.txt\",\"content\":\"overwritten\"}"}]},
		{"text": "never reached"}
	]}`)
	cmd := e.command("run", "--base-url", srv.URL(), "rewrite hello.txt")
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stderr strings.Builder
	started := make(chan struct{})
	go func() {
		buf := make([]byte, 256)
		once := sync.Once{}
		for {
			n, err := pr.Read(buf)
			mu.Lock()
			stderr.Write(buf[:n])
			if strings.Contains(stderr.String(), "I will") {
				once.Do(func() { close(started) })
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no streamed text within 10 s")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	mu.Lock()
	out := stderr.String()
	mu.Unlock()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\n%s", err, out)
	}
	if after := snapshot(t, e.ws); !reflect.DeepEqual(before, after) {
		t.Fatalf("the workspace changed: %v", after)
	}
	if !strings.Contains(out, "── cancelled") || strings.Contains(out, "never reached") {
		t.Errorf("stderr:\n%s", out)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d model calls after the interrupt", len(srv.Requests()))
	}
	// The session knows the task was cancelled.
	r := e.run("sessions", "--json")
	var infos []struct{ LastStatus string }
	if err := json.Unmarshal([]byte(r.stdout), &infos); err != nil || len(infos) != 1 || infos[0].LastStatus != "cancelled" {
		t.Errorf("sessions: %s %v", r.stdout, err)
	}
}

func TestExitCodes(t *testing.T) {
	editThenSay := "read-edit.json"
	cases := []struct {
		name   string
		files  map[string]string
		script string
		args   []string
		code   int
		stderr string
	}{
		{"verified", map[string]string{".agentls.json": `{"verify": {"commands": ["grep -q goodbye hello.txt"]}}`},
			editThenSay, []string{"--trust"}, 0, "✓ checks passed: 1 check passed (grep -q goodbye hello.txt)"},
		{"checks failing", map[string]string{".agentls.json": `{"verify": {"commands": ["grep -q nowhere hello.txt"]}, "agent": {"maxRetries": 0}}`},
			editThenSay, []string{"--trust"}, 1, "✗ checks failed: `grep -q nowhere hello.txt` failed (exit 1)"},
		// The checks see the proposed text: the disk still says hello.
		{"dry run checks the proposal", map[string]string{".agentls.json": `{"verify": {"commands": ["grep -q goodbye hello.txt"]}}`},
			editThenSay, []string{"--dry-run", "--trust"}, 0, "✓ checks passed"},
		{"checks off by flag", map[string]string{".agentls.json": `{"verify": {"commands": ["false"]}}`},
			editThenSay, []string{"--no-verify", "--trust"}, 0, "── ok · 1 file changed"},
		{"nothing changed, nothing to verify", map[string]string{".agentls.json": `{"verify": {"commands": ["false"]}}`},
			"hello.json", []string{"--trust"}, 0, "── ok · no files changed · 1 step"},
		{"model error", nil, `{"turns": [{"error": {"status": 401, "message": "Incorrect API key provided"}}]}`,
			nil, 1, "error: model error (HTTP 401): API key rejected"},
		{"max steps", nil, editThenSay, []string{"--max-steps", "1"}, 1, "stopped at the step limit: 1 model turns"},
		{"no task", nil, "", nil, 2, "no task given"},
		{"unknown flag", nil, "", []string{"--frobnicate", "x"}, 2, "flag provided but not defined: -frobnicate"},
		{"record and replay", nil, "", []string{"--record", "a", "--replay", "b", "x"}, 2, "--record and --replay exclude each other"},
		{"review without a terminal", nil, "", []string{"--review", "x"}, 2, "--review asks about each file on a terminal"},
		{"review from the configuration", map[string]string{".agentls.json": `{"agent": {"review": true}}`}, "", []string{"x"}, 2, "agent.review is true"},
		{"unknown session", nil, "hello.json", []string{"--session", "nope", "x"}, 2, `no session "nope" in this workspace`},
		{"missing recording", nil, "", []string{"--replay", "/nonexistent/rec.jsonl", "x"}, 2, "--replay: open /nonexistent/rec.jsonl"},
		{"missing workspace", nil, "", []string{"--workspace", "/nonexistent", "x"}, 2, "/nonexistent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.files)
			args := []string{"run"}
			if c.script != "" {
				args = append(args, "--base-url", fakeModel(t, c.script).URL())
			}
			args = append(args, c.args...)
			if c.code != 2 {
				args = append(args, "replace hello with goodbye")
			}
			r := e.run(args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
				t.Fatalf("exit %d (want %d), stderr lacks %q:\n%s", r.code, c.code, c.stderr, r.stderr)
			}
		})
	}
}

// events strips what differs between two runs of one task (the session
// and where the files are) from --json output.
func events(t *testing.T, stderr string) []map[string]any {
	var out []map[string]any
	for _, l := range jsonLines(t, stderr) {
		if l["kind"] == "start" || l["kind"] == "note" || l["kind"] == "warning" {
			continue
		}
		delete(l, "session")
		out = append(out, l)
	}
	return out
}

func TestRecordThenReplay(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	e1 := newEnv(t, map[string]string{".agentls.json": `{"verify": {"commands": ["grep -q goodbye hello.txt"]}}`})
	srv := fakeModel(t, "read-edit.json")
	r1 := e1.run("run", "--json", "--record", rec, "--base-url", srv.URL(), "replace hello with goodbye")
	if r1.code != 0 {
		t.Fatalf("record: exit %d\n%s", r1.code, r1.stderr)
	}
	url := srv.URL()
	srv.Close() // no network from here on

	data, err := os.ReadFile(rec)
	if err != nil || bytes.Contains(data, []byte(testKey)) {
		t.Fatalf("recording: %v (key inside: %v)", err, bytes.Contains(data, []byte(testKey)))
	}

	e2 := newEnv(t, map[string]string{".agentls.json": `{"verify": {"commands": ["grep -q goodbye hello.txt"]}}`})
	r2 := e2.run("run", "--json", "--replay", rec, "--base-url", url, "replace hello with goodbye")
	if r2.code != 0 {
		t.Fatalf("replay: exit %d\n%s", r2.code, r2.stderr)
	}
	if a, b := snapshot(t, e1.ws), snapshot(t, e2.ws); !reflect.DeepEqual(a, b) || a["hello.txt"] != helloAfter {
		t.Fatalf("edits differ:\nrecorded %v\nreplayed %v", a, b)
	}
	ev1, ev2 := events(t, r1.stderr), events(t, r2.stderr)
	if !reflect.DeepEqual(ev1, ev2) {
		for i := range min(len(ev1), len(ev2)) {
			if !reflect.DeepEqual(ev1[i], ev2[i]) {
				t.Fatalf("event %d differs:\nrecorded %v\nreplayed %v", i, ev1[i], ev2[i])
			}
		}
		t.Fatalf("recorded %d events, replayed %d", len(ev1), len(ev2))
	}

	// A workspace that differs makes the run diverge: said clearly, exit 1.
	e3 := newEnv(t, map[string]string{"hello.txt": "hello there\nsecond line\n"})
	r3 := e3.run("run", "--replay", rec, "replace hello with goodbye")
	want := `replay: exchange 2 differs from the recording: message 4 (tool result of read_file call_read): content differs at byte 8: recorded "1\thello world\n2\tsecond line\n", got "1\thello there\n2\tsecond line\n"`
	if r3.code != 1 || !strings.Contains(r3.stderr, want) {
		t.Fatalf("diverging replay: exit %d\n%s\nwant %s", r3.code, r3.stderr, want)
	}
}

func TestSessionsAndMemory(t *testing.T) {
	e := newEnv(t, nil)
	r1 := e.run("run", "--json", "--base-url", fakeModel(t, "hello.json").URL(), "say hello")
	if r1.code != 0 {
		t.Fatalf("exit %d\n%s", r1.code, r1.stderr)
	}
	id := jsonLines(t, r1.stderr)[0]["session"].(string)

	srv := fakeModel(t, `{"turns": [{"text": "You asked me to say hello."}]}`)
	r2 := e.run("run", "--session", id, "--base-url", srv.URL(), "what did I ask before?")
	if r2.code != 0 {
		t.Fatalf("exit %d\n%s", r2.code, r2.stderr)
	}
	msgs := srv.Requests()[0].Body.Messages
	var got []string
	for _, m := range msgs[1:] {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"user: say hello", "assistant: Hello! I am a scripted model. Nothing to change here.", "user: what did I ask before?"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("continued session sent:\n%q\nwant\n%q", got, want)
	}
	// Memory: the first task is recalled into the system prompt, as what
	// happened (it changed nothing), not as what the model said.
	if sys := msgs[0].Content; !strings.Contains(sys, "## Earlier tasks in this workspace\n- ") || !strings.Contains(sys, `Task "say hello" ended without changing any file.`) {
		t.Errorf("system prompt lacks the memory:\n%s", sys)
	}

	r := e.run("sessions")
	if r.code != 0 || !strings.Contains(r.stdout, id+"  ") || !strings.Contains(r.stdout, "what did I ask before?") {
		t.Fatalf("sessions list: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = e.run("sessions", "show", id)
	for _, w := range []string{"#1 t1", "  > say hello", "#2 t2", "  > what did I ask before?", "summary: You asked me to say hello.", "transcript: "} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("sessions show lacks %q:\n%s", w, r.stdout)
		}
	}
	if r := e.run("sessions", "show", "nope"); r.code != 2 {
		t.Errorf("show of an unknown session: exit %d", r.code)
	}

	// agent.memory false: nothing recalled.
	e.vars = append(e.vars, "AGENTLS_MODEL=fake-model")
	os.WriteFile(filepath.Join(e.ws, ".agentls.json"), []byte(`{"agent": {"memory": false}}`), 0o644)
	srv3 := fakeModel(t, "hello.json")
	if r := e.run("run", "--base-url", srv3.URL(), "say hello again"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if sys := srv3.Requests()[0].Body.Messages[0].Content; strings.Contains(sys, "Earlier tasks") {
		t.Errorf("memory off, yet recalled:\n%s", sys)
	}
}

func TestSessionStoreFailureIsNotFatal(t *testing.T) {
	e := newEnv(t, nil)
	// The state directory is a file: no session can be kept.
	blocked := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocked, nil, 0o600)
	e.vars = append(e.vars, "XDG_STATE_HOME="+blocked)
	r := e.run("run", "--base-url", fakeModel(t, "read-edit.json").URL(), "replace hello with goodbye")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: session store:") || !strings.Contains(r.stderr, "the task runs without a session") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if snapshot(t, e.ws)["hello.txt"] != helloAfter {
		t.Fatal("the task did not run")
	}
}
