package cli

// `agentls run` in process, against the scripted model server: what the
// run decides (what lands on disk, the exit status, the session kept or
// forgotten, the diff of a dry run) without spawning the binary.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// runEnv is a workspace, a state directory and a clean environment for an
// in-process run.
type runEnv struct {
	t     *testing.T
	root  string
	state string
}

func newRunEnv(t *testing.T, files map[string]string) *runEnv {
	t.Helper()
	e := &runEnv{t: t, state: t.TempDir()}
	_, e.root = newWS(t, false, files)
	t.Setenv("XDG_STATE_HOME", e.state)
	for _, k := range []string{"AGENTLS_API_KEY", "OPENAI_API_KEY", "AGENTLS_BASE_URL", "OPENAI_BASE_URL", "AGENTLS_MODEL"} {
		t.Setenv(k, "")
	}
	return e
}

// model starts a scripted model server and returns its base URL.
func (e *runEnv) model(turns ...fakellm.Turn) (string, *fakellm.Server) {
	e.t.Helper()
	srv := fakellm.New(&fakellm.Script{Turns: turns})
	base, err := srv.Start()
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { srv.Close() })
	return base, srv
}

// run is `agentls run --workspace ROOT args…` with stdin not a terminal.
func (e *runEnv) run(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	var out, errb bytes.Buffer
	o, err := parseRunArgs(append([]string{"--workspace", e.root}, args...), &errb)
	if err != nil {
		e.t.Fatalf("parseRunArgs(%q): %v", args, err)
	}
	code = (&cliRun{o: o, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}).run(ctx)
	return code, out.String(), errb.String()
}

func (e *runEnv) read(rel string) string {
	got, ok := readDisk(e.t, e.root, rel)
	if !ok {
		return "<none>"
	}
	return got
}

func (e *runEnv) store() *session.Store {
	e.t.Helper()
	st, err := session.Open(e.root, session.Options{StateDir: filepath.Join(e.state, "agentls")})
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

func (e *runEnv) sessions() []session.Info {
	e.t.Helper()
	infos, err := e.store().List()
	if err != nil {
		e.t.Fatal(err)
	}
	return infos
}

// readEdit is a turn that reads path, then edits it (read before edit).
func readEdit(id, path, old, new string) []fakellm.ToolCall {
	return []fakellm.ToolCall{{ID: id + "r", Name: "read_file", Arguments: `{"path":"` + path + `"}`}, edit(id, path, old, new)}
}

func edit(id, path, old, new string) fakellm.ToolCall {
	b, _ := json.Marshal(map[string]string{"path": path, "old_string": old, "new_string": new})
	return fakellm.ToolCall{ID: id, Name: "edit_file", Arguments: string(b)}
}

func command(id, cmd string) fakellm.ToolCall {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return fakellm.ToolCall{ID: id, Name: "run_command", Arguments: string(b)}
}

func TestRunWritesAndRecords(t *testing.T) {
	e := newRunEnv(t, map[string]string{"a.txt": "hello\n", "go.mod": "module x\n"})
	base, _ := e.model(fakellm.Turn{ToolCalls: readEdit("c1", "a.txt", "hello", "HELLO")}, fakellm.Turn{Text: "Shouted."})
	code, stdout, stderr := e.run(context.Background(), "--base-url", base, "--no-verify", "shout")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := e.read("a.txt"); got != "HELLO\n" {
		t.Errorf("a.txt = %q", got)
	}
	if stdout != "" {
		t.Errorf("stdout is for --dry-run's diff only: %q", stdout)
	}
	infos := e.sessions()
	if len(infos) != 1 || infos[0].LastStatus != "ok" || infos[0].LastPrompt != "shout" {
		t.Fatalf("sessions %+v", infos)
	}
	if !strings.Contains(stderr, "agentls run --session "+infos[0].ID) {
		t.Errorf("stderr does not say how to continue session %s:\n%s", infos[0].ID, stderr)
	}
	sess, err := e.store().Load(infos[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if ch := sess.Tasks[0].Changes; len(ch) != 1 || ch[0].Path != "a.txt" || !strings.Contains(ch[0].Diff, "+HELLO") {
		t.Errorf("the session's changes: %+v", ch)
	}
	if st := sess.Steps(); len(st) != 1 || st[0].Files[0].Text != "HELLO\n" {
		t.Errorf("the steps for rewind: %+v", st)
	}

	// --session continues it, with the history sent to the model.
	base, srv := e.model(fakellm.Turn{Text: "Again."})
	if code, _, stderr := e.run(context.Background(), "--base-url", base, "--no-verify", "--session", infos[0].ID, "again"); code != exitOK {
		t.Fatalf("--session: exit %d\n%s", code, stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(mustMarshal(reqs[0].Body.Messages), "Shouted.") {
		t.Errorf("the continued task did not send the history")
	}
	if got := e.sessions(); len(got) != 1 {
		t.Errorf("a second session: %+v", got)
	}
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// --dry-run writes nothing and prints the diff on stdout; no steps are
// recorded for rewind.
func TestRunDryRun(t *testing.T) {
	e := newRunEnv(t, map[string]string{"a.txt": "hello\n", "go.mod": "module x\n"})
	base, _ := e.model(fakellm.Turn{ToolCalls: readEdit("c1", "a.txt", "hello", "HELLO")}, fakellm.Turn{Text: "Shouted."})
	code, stdout, stderr := e.run(context.Background(), "--base-url", base, "--no-verify", "--dry-run", "shout")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := e.read("a.txt"); got != "hello\n" {
		t.Errorf("a dry run wrote a.txt: %q", got)
	}
	if !strings.Contains(stdout, "--- a/a.txt\n+++ b/a.txt\n") || !strings.Contains(stdout, "-hello\n+HELLO\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
	infos := e.sessions()
	if len(infos) != 1 {
		t.Fatalf("sessions %+v", infos)
	}
	sess, err := e.store().Load(infos[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Steps()) != 0 || len(sess.Tasks[0].Changes) != 0 {
		t.Errorf("a dry run recorded steps %+v or changes %+v", sess.Steps(), sess.Tasks[0].Changes)
	}
}

// Bad input stops the run with exit 2 and a message, before any model is
// asked.
func TestRunRefusesBadSetups(t *testing.T) {
	e := newRunEnv(t, map[string]string{"go.mod": "module x\n"})
	base, srv := e.model()
	for _, c := range []struct {
		args []string
		say  string
	}{
		{[]string{"t"}, "no model is set up"}, // OpenAI's endpoint without a key
		{[]string{"--base-url", "nonsense", "t"}, "is not a URL"},
		{[]string{"--base-url", base, "--session", "20990101-000000-000000000000", "t"}, "no session"},
		{[]string{"--base-url", base, "--replay", filepath.Join(e.root, "none.jsonl"), "t"}, "--replay"},
		{[]string{"--base-url", base, "--review", "t"}, "--review asks about each file on a terminal"},
	} {
		code, _, stderr := e.run(context.Background(), c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.say) {
			t.Errorf("%q: exit %d, want 2 saying %q:\n%s", c.args, code, c.say, stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	var out, errb bytes.Buffer
	if code := (&cliRun{o: runOptions{workspace: filepath.Join(e.root, "missing"), task: "t"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}).run(context.Background()); code != exitUsage || !strings.Contains(errb.String(), "missing") {
		t.Errorf("a missing workspace: %d %q", code, errb.String())
	}
}

// A task that never reached the model (nothing listens) leaves no session
// and says what to check.
func TestRunUnreachableModel(t *testing.T) {
	e := newRunEnv(t, map[string]string{"go.mod": "module x\n"})
	base, srv := e.model()
	srv.Close() // nothing listens there now
	code, _, stderr := e.run(context.Background(), "--base-url", base, "--no-verify", "t")
	if code != exitFailed {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "never reached the model") || strings.Contains(stderr, "continue it with") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if got := e.sessions(); len(got) != 0 {
		t.Errorf("sessions kept: %+v", got)
	}
}

// A command nobody could approve (no terminal) makes the run fail, naming
// the command.
func TestRunRefusedCommandFails(t *testing.T) {
	e := newRunEnv(t, map[string]string{"go.mod": "module x\n", ".agentls.json": `{"tools": {"approval": "always-ask"}}`})
	base, _ := e.model(fakellm.Turn{ToolCalls: []fakellm.ToolCall{command("c1", "touch ran.txt")}}, fakellm.Turn{Text: "Could not."})
	code, _, stderr := e.run(context.Background(), "--base-url", base, "--no-verify", "t")
	if code != exitFailed || !strings.Contains(stderr, "touch ran.txt") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if e.read("ran.txt") != "<none>" {
		t.Error("the refused command ran")
	}
}

// A workspace file that names the endpoint is not trusted: the run stops
// rather than send the work elsewhere; --base-url or --trust lets it run.
func TestRunUntrustedEndpoint(t *testing.T) {
	e := newRunEnv(t, map[string]string{"go.mod": "module x\n"})
	base, srv := e.model(fakellm.Turn{Text: "one."}, fakellm.Turn{Text: "two."})
	os.WriteFile(filepath.Join(e.root, ".agentls.json"), []byte(`{"llm": {"baseURL": "`+base+`", "apiKey": "k"}}`), 0o644)
	code, _, stderr := e.run(context.Background(), "--no-verify", "t")
	if code != exitFailed || !strings.Contains(stderr, "agentls trust") || len(srv.Requests()) != 0 {
		t.Errorf("untrusted: exit %d, %d requests:\n%s", code, len(srv.Requests()), stderr)
	}
	if code, _, stderr := e.run(context.Background(), "--no-verify", "--base-url", base, "t"); code != exitOK {
		t.Errorf("--base-url: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := e.run(context.Background(), "--no-verify", "--trust", "t"); code != exitOK || len(srv.Requests()) != 2 {
		t.Errorf("--trust: exit %d\n%s", code, stderr)
	}
}

// The checks run after the edits; failing checks exit 1.
func TestRunVerifyFailedExits1(t *testing.T) {
	e := newRunEnv(t, map[string]string{"a.txt": "x\n", ".agentls.json": `{"verify": {"commands": ["grep -q ok a.txt"]}, "sandbox": {"mode": "off"}, "agent": {"maxRetries": 0}}`})
	base, _ := e.model(
		fakellm.Turn{ToolCalls: readEdit("c1", "a.txt", "x", "y")}, fakellm.Turn{Text: "Done."},
		fakellm.Turn{Text: "Still failing."}, fakellm.Turn{Text: "Still failing."}, fakellm.Turn{Text: "Still failing."})
	code, _, stderr := e.run(context.Background(), "--base-url", base, "--trust", "--max-steps", "3", "t")
	if code != exitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "grep -q ok a.txt") {
		t.Errorf("the failing check is not named:\n%s", stderr)
	}
}

// A run whose context is cancelled exits 130.
func TestRunCancelled(t *testing.T) {
	e := newRunEnv(t, map[string]string{"go.mod": "module x\n"})
	base, _ := e.model(fakellm.Turn{Text: "never"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code, _, stderr := e.run(ctx, "--base-url", base, "--no-verify", "t"); code != exitCancelled {
		t.Errorf("exit %d, want 130:\n%s", code, stderr)
	}
}
