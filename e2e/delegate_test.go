package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/delegate"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// startNATS runs a real NATS server with JetStream in this process (the
// server's own Go module), on a free loopback port, and returns its URL.
func startNATS(t testing.TB) string {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns.ClientURL()
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// delegateRepo is a repository with a bare origin it is pushed to: keep.txt
// and gone.txt committed and pushed.
func delegateRepo(t testing.TB) (ws, origin string) {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	origin = filepath.Join(base, "origin.git")
	ws = filepath.Join(base, "ws")
	git(t, base, "init", "-q", "--bare", origin)
	git(t, base, "init", "-q", ws)
	for name, body := range map[string]string{"keep.txt": "keep\n", "gone.txt": "to be deleted\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, ws, "add", "-A")
	git(t, ws, "commit", "-qm", "start")
	git(t, ws, "remote", "add", "origin", origin)
	git(t, ws, "push", "-q", "-u", "origin", "main")
	return ws, origin
}

// jobTurns is a job's conversation: add added-N.txt, delete gone.txt,
// then say it is done. delayMs holds the first turn in flight.
func jobTurns(n, delayMs int) []fakellm.Turn {
	args := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return []fakellm.Turn{
		{DelayMs: delayMs, ToolCalls: []fakellm.ToolCall{
			{ID: "w", Name: "write_file", Arguments: args(map[string]string{"path": fmt.Sprintf("added-%d.txt", n), "content": fmt.Sprintf("job %d was here\n", n)})},
			{ID: "d", Name: "delete_file", Arguments: args(map[string]string{"path": "gone.txt"})},
		}, Usage: &fakellm.Usage{PromptTokens: 100, CompletionTokens: 20}},
		{Text: fmt.Sprintf("Added added-%d.txt and deleted gone.txt.", n), Usage: &fakellm.Usage{PromptTokens: 150, CompletionTokens: 10}},
	}
}

type delegateEnv struct {
	natsURL, modelURL string
	llm               *fakellm.Server
}

func (d delegateEnv) env(state string) []string {
	return append(os.Environ(), "AGENTLS_NATS_URL="+d.natsURL, "AGENTLS_BASE_URL="+d.modelURL,
		"AGENTLS_API_KEY=sk-test-secret-key-123", "AGENTLS_MODEL=test-model", "XDG_STATE_HOME="+state)
}

func (d delegateEnv) agentls(t testing.TB, dir, state string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = d.env(state)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// startWorker starts `agentls worker` and stops it (SIGTERM) at the end.
// More flags (extra) override the defaults here.
func (d delegateEnv) startWorker(t testing.TB, name string, concurrency int, extra ...string) *exec.Cmd {
	t.Helper()
	dir := t.TempDir()
	args := []string{"worker", "--repo", "*", "--concurrency", strconv.Itoa(concurrency),
		"--ack-wait", "2s", "--max-deliver", "3", "--dir", filepath.Join(dir, "work"), "--log-file", filepath.Join(dir, "worker.log")}
	cmd := exec.Command(binary, append(args, extra...)...)
	cmd.Env = d.env(filepath.Join(dir, "state"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil { // not waited for by the test
			_ = cmd.Process.Signal(syscall.SIGTERM)
			err := cmd.Wait()
			// A worker stops cleanly on SIGTERM (a race report would
			// make it exit 66); one the test SIGKILLed is gone anyway.
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); err != nil && !(ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL) {
				t.Errorf("worker %s: %v", name, err)
			}
		}
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "worker.log"))
			t.Logf("worker %s log:\n%s", name, b)
		}
	})
	return cmd
}

func waitFinal(t testing.TB, ctx context.Context, q *delegate.Queue, ids []string) map[string]delegate.Status {
	t.Helper()
	deadline := time.Now().Add(2 * testWait)
	out := map[string]delegate.Status{}
	for len(out) < len(ids) {
		if time.Now().After(deadline) {
			t.Fatalf("jobs not finished: %d of %d (%v)", len(out), len(ids), out)
		}
		for _, id := range ids {
			if st, err := delegate.LastStatus(ctx, q, id); err == nil && st.Final() {
				out[id] = st
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return out
}

// Two workers, five jobs, one worker SIGKILLed while a model turn of its
// job is in flight: every job ends exactly once, done, with a patch that
// applies at its commit and holds a new and a deleted file, and with its
// result and transcript in the object store. Then a job's change comes
// back as a worktree task and merges; a job from an unpushed commit is
// refused.
func TestDelegateWorkersSurviveAKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const slow = 3
	convs := map[string][]fakellm.Turn{}
	for n := 1; n <= 5; n++ {
		delay := 0
		if n == slow {
			delay = 4000
		}
		convs[fmt.Sprintf("JOBKEY%d", n)] = jobTurns(n, delay)
	}
	llm := fakellm.New(&fakellm.Script{Conversations: convs})
	base, err := llm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	d := delegateEnv{natsURL: startNATS(t), modelURL: base, llm: llm}
	ws, _ := delegateRepo(t)
	userState := filepath.Join(t.TempDir(), "state")

	ids := make([]string, 5)
	for n := 1; n <= 5; n++ {
		out, stderr, code := d.agentls(t, ws, userState, "submit", "--json", fmt.Sprintf("JOBKEY%d: add a file and delete gone.txt", n))
		if code != 0 {
			t.Fatalf("submit %d: exit %d\n%s", n, code, stderr)
		}
		var job delegate.Job
		if err := json.Unmarshal([]byte(out), &job); err != nil {
			t.Fatalf("submit --json: %v: %s", err, out)
		}
		ids[n-1] = job.ID
	}
	q, err := delegate.Connect(ctx, config.Delegate{URL: d.natsURL}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()

	workers := map[int]*exec.Cmd{}
	for _, name := range []string{"a", "b"} {
		w := d.startWorker(t, name, 2)
		workers[w.Process.Pid] = w
	}
	// The slow job's first turn is in flight: kill the worker running it.
	deadline := time.Now().Add(testWait)
	var killed int
	for killed == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slow job never reached the model")
		}
		for _, r := range llm.Requests() {
			if len(r.Body.Messages) > 0 && strings.Contains(firstUser(r.Body.Messages), fmt.Sprintf("JOBKEY%d", slow)) {
				st, err := delegate.LastStatus(ctx, q, ids[slow-1])
				if err != nil || st.State != delegate.StateRunning {
					continue
				}
				_, pid, _ := strings.Cut(st.Worker, ":")
				p, _ := strconv.Atoi(pid)
				if w, ok := workers[p]; ok {
					if err := w.Process.Signal(syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					killed = p
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	final := waitFinal(t, ctx, q, ids)

	for n, id := range ids {
		st := final[id]
		if st.State != delegate.StateDone || st.Result == nil || st.Result.Status != "ok" {
			t.Fatalf("job %d: %+v", n+1, st)
		}
		hist, err := delegate.History(ctx, q, id)
		if err != nil {
			t.Fatal(err)
		}
		ends := 0
		for _, h := range hist {
			if h.Final() {
				ends++
			}
		}
		if ends != 1 {
			t.Errorf("job %d ended %d times: %+v", n+1, ends, hist)
		}
		if n+1 == slow {
			if _, pid, _ := strings.Cut(st.Worker, ":"); pid == strconv.Itoa(killed) || st.Attempt < 2 {
				t.Errorf("the slow job ended on the killed worker, or at its first delivery: %+v", st)
			}
		}
		for _, obj := range []string{"result.json", "transcript.md", "events.jsonl", "patch", "session.json"} {
			b, err := q.Obj.GetBytes(ctx, id+"/"+obj)
			if err != nil || len(b) == 0 {
				t.Errorf("job %d: object %s: %v (%d bytes)", n+1, obj, err, len(b))
			}
		}
		tr, _ := q.Obj.GetString(ctx, id+"/transcript.md")
		if !strings.Contains(tr, fmt.Sprintf("added-%d.txt", n+1)) {
			t.Errorf("job %d: transcript does not mention its file:\n%s", n+1, tr)
		}
		patch, _ := q.Obj.GetString(ctx, id+"/patch")
		if !strings.Contains(patch, fmt.Sprintf("+++ b/added-%d.txt", n+1)) || !strings.Contains(patch, "new file mode") ||
			!strings.Contains(patch, "deleted file mode") || !strings.Contains(patch, "--- a/gone.txt") {
			t.Errorf("job %d: the patch lacks the new or the deleted file:\n%s", n+1, patch)
		}
		// It applies at the job's commit.
		check := t.TempDir()
		git(t, check, "clone", "-q", ws, "c")
		pf := filepath.Join(check, "p.patch")
		os.WriteFile(pf, []byte(patch), 0o644)
		git(t, filepath.Join(check, "c"), "apply", "--check", pf)
	}

	// Back for review: the first job's change as a worktree task, merged.
	out, stderr, code := d.agentls(t, ws, userState, "jobs", "fetch", ids[0])
	if code != 0 || !strings.Contains(out, "created added-1.txt") || !strings.Contains(out, "deleted gone.txt") {
		t.Fatalf("jobs fetch: exit %d\n%s\n%s", code, out, stderr)
	}
	// Its session came along: it can be continued here.
	var res struct{ Session string }
	rb, _ := q.Obj.GetBytes(ctx, ids[0]+"/result.json")
	json.Unmarshal(rb, &res)
	if out, _, code := d.agentls(t, ws, userState, "sessions", "show", res.Session); res.Session == "" || code != 0 || !strings.Contains(out, "JOBKEY1") {
		t.Fatalf("the job's session %q was not imported: exit %d\n%s", res.Session, code, out)
	}
	out, stderr, code = d.agentls(t, ws, userState, "worktrees", "merge", ids[0])
	if code != 0 {
		t.Fatalf("worktrees merge: exit %d\n%s\n%s", code, out, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "added-1.txt")); err != nil || string(b) != "job 1 was here\n" {
		t.Fatalf("merged added-1.txt: %q, %v", b, err)
	}
	out, _, code = d.agentls(t, ws, userState, "jobs")
	if code != 0 || strings.Count(out, " done ") < 5 {
		t.Errorf("jobs list:\n%s", out)
	}

	// A commit nobody pushed is refused, saying why.
	git(t, ws, "commit", "-qm", "local only", "--allow-empty")
	_, stderr, code = d.agentls(t, ws, userState, "submit", "JOBKEY1 again")
	if code != 2 || !strings.Contains(stderr, "no remote-tracking branch") || !strings.Contains(stderr, "git push") {
		t.Fatalf("submit of an unpushed commit: exit %d\n%s", code, stderr)
	}
}

func firstUser(msgs []fakellm.Message) string {
	for _, m := range msgs {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// A session exported from one checkout and imported into a copy at
// another path (another machine's state directory) is continued there: the
// next task's request carries the first task's conversation. Before
// export/import, --session in the copy failed with "no session … in this
// workspace".
func TestSessionTravels(t *testing.T) {
	llm := fakellm.New(&fakellm.Script{Turns: []fakellm.Turn{
		{Text: "The answer is forty-two."},
		{Text: "You asked about the answer before."},
	}})
	base, err := llm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	d := delegateEnv{modelURL: base}
	a, _ := delegateRepo(t)
	stateA, stateB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	_, stderr, code := d.agentls(t, a, stateA, "run", "--json", "--no-verify", "what is the answer, FIRSTPROMPT?")
	if code != 0 {
		t.Fatalf("run: %d\n%s", code, stderr)
	}
	var id string
	for _, l := range strings.Split(stderr, "\n") {
		var start struct{ Kind, Session string }
		if json.Unmarshal([]byte(l), &start) == nil && start.Kind == "start" {
			id = start.Session
		}
	}
	if id == "" {
		t.Fatalf("no session in:\n%s", stderr)
	}
	exported := filepath.Join(t.TempDir(), "s.json")
	if _, stderr, code := d.agentls(t, a, stateA, "sessions", "export", "--output", exported, id); code != 0 {
		t.Fatalf("export: %d\n%s", code, stderr)
	}
	b := filepath.Join(t.TempDir(), "elsewhere")
	git(t, filepath.Dir(b), "clone", "-q", a, b)
	if _, stderr, code := d.agentls(t, b, stateB, "run", "--session", id, "--no-verify", "again"); code != 2 || !strings.Contains(stderr, "no session") {
		t.Fatalf("continue before import: exit %d\n%s", code, stderr)
	}
	if out, stderr, code := d.agentls(t, b, stateB, "sessions", "import", exported); code != 0 || !strings.Contains(out, "imported session "+id) {
		t.Fatalf("import: %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := d.agentls(t, b, stateB, "sessions", "import", exported); code == 0 || !strings.Contains(stderr, "exists already") {
		t.Fatalf("second import: %d\n%s", code, stderr)
	}
	if _, stderr, code := d.agentls(t, b, stateB, "run", "--session", id, "--no-verify", "what did I ask?"); code != 0 {
		t.Fatalf("continue after import: %d\n%s", code, stderr)
	}
	reqs := llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var saw bool
	for _, m := range reqs[1].Body.Messages {
		saw = saw || strings.Contains(m.Content, "FIRSTPROMPT") || strings.Contains(m.Content, "forty-two")
	}
	if !saw {
		t.Fatalf("the continued task's request lacks the first task's conversation: %+v", reqs[1].Body.Messages)
	}
	out, _, _ := d.agentls(t, b, stateB, "sessions", "show", id)
	if !strings.Contains(out, b) || !strings.Contains(out, "transcript: "+stateB) {
		t.Fatalf("the imported session is not this workspace's:\n%s", out)
	}
}

// agentls run --result FILE: the outcome with a patch against the starting
// commit that holds a new, a deleted and a binary file, the transcript and
// the events; and nothing of it inside the checkout.
func TestRunResultFile(t *testing.T) {
	args := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	llm := fakellm.New(&fakellm.Script{Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{
			{ID: "w", Name: "write_file", Arguments: args(map[string]string{"path": "CHANGELOG.md", "content": "# changes\n"})},
			{ID: "d", Name: "delete_file", Arguments: args(map[string]string{"path": "gone.txt"})},
		}},
		{Text: "Wrote the changelog."},
	}})
	base, err := llm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	d := delegateEnv{modelURL: base}
	ws, _ := delegateRepo(t)
	// A binary file the user added before the run is in the patch too.
	os.WriteFile(filepath.Join(ws, "logo.bin"), []byte{0, 1, 2, 0xff, 0}, 0o644)
	resultPath := filepath.Join(t.TempDir(), "result.json")
	state := filepath.Join(t.TempDir(), "state")
	_, stderr, code := d.agentls(t, ws, state, "run", "--json", "--no-verify", "--result", resultPath, "add a changelog")
	if code != 0 {
		t.Fatalf("run: %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(resultPath)
	if err != nil {
		t.Fatal(err)
	}
	var r delegate.RunResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Exit != 0 || r.Result.Status != "ok" || r.Session == "" || r.Export == nil || r.Commit == "" ||
		!strings.Contains(r.Transcript, "CHANGELOG.md") || !strings.Contains(r.Events, `"kind":"end"`) {
		t.Fatalf("result: %+v", r)
	}
	for _, want := range []string{"+++ b/CHANGELOG.md", "deleted file mode", "--- a/gone.txt", "GIT binary patch", "logo.bin"} {
		if !strings.Contains(r.Patch, want) {
			t.Errorf("patch lacks %q:\n%s", want, r.Patch)
		}
	}
	// The patch is the whole change: applied to a clean clone it gives
	// the workspace's files.
	c := filepath.Join(t.TempDir(), "c")
	git(t, filepath.Dir(c), "clone", "-q", ws, c)
	pf := filepath.Join(t.TempDir(), "p")
	os.WriteFile(pf, []byte(r.Patch), 0o644)
	git(t, c, "apply", "--binary", pf)
	if got, _ := os.ReadFile(filepath.Join(c, "logo.bin")); !bytes.Equal(got, []byte{0, 1, 2, 0xff, 0}) {
		t.Errorf("logo.bin after apply: %v", got)
	}
	// Nothing of the job's state, events or result is left in the checkout.
	if st := git(t, ws, "status", "--porcelain", "--untracked-files=all"); strings.Count(st, "\n")+1 != 3 {
		t.Errorf("the checkout holds more than the task's change:\n%s", st)
	}
}

// "Delegate task" from an editor over LSP and from an ACP client: each
// publishes a job for the pushed commit, a worker runs it, and the
// finished change comes back as a worktree task the editor merges (LSP)
// or a worktree the ACP client is told of; an unpushed commit is refused
// with the reason.
func TestDelegateFromLSPAndACP(t *testing.T) {
	convs := map[string][]fakellm.Turn{"LSPJOB": jobTurns(7, 0), "ACPJOB": jobTurns(8, 0)}
	llm := fakellm.New(&fakellm.Script{Conversations: convs})
	base, err := llm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	d := delegateEnv{natsURL: startNATS(t), modelURL: base, llm: llm}
	ws, _ := delegateRepo(t)
	d.startWorker(t, "w", 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	q, err := delegate.Connect(ctx, config.Delegate{URL: d.natsURL}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()

	s := start(t, setup{root: ws, env: []string{"AGENTLS_NATS_URL=" + d.natsURL}})
	var res struct{ Job, Commit string }
	if err := s.Command(s.ctx, "agentls.delegate", map[string]any{"task": "LSPJOB: add a file"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Job == "" || res.Commit != git(t, ws, "rev-parse", "HEAD") {
		t.Fatalf("agentls.delegate: %+v", res)
	}
	// When it ends, its change arrives as a worktree task by itself.
	if !s.WaitFor(testWait, func() bool {
		for _, n := range s.Notes("window/showMessage") {
			if strings.Contains(string(n.Params), "delegated job "+res.Job+" is done") && strings.Contains(string(n.Params), "waits as worktree task") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no message that job %s is done and waits for review", res.Job)
	}
	var jobs struct{ Jobs []delegate.Status }
	if err := s.Command(s.ctx, "agentls.jobs", map[string]any{}, &jobs); err != nil || len(jobs.Jobs) != 1 || jobs.Jobs[0].State != delegate.StateDone {
		t.Fatalf("agentls.jobs: %+v %v", jobs, err)
	}
	var fetched struct{ Worktree string }
	if err := s.Command(s.ctx, "agentls.jobFetch", map[string]any{"id": res.Job}, &fetched); err != nil || fetched.Worktree != res.Job {
		t.Fatalf("agentls.jobFetch: %+v %v", fetched, err)
	}
	var m mergeResult
	if err := s.Command(s.ctx, "agentls.worktreeMerge", map[string]any{"id": res.Job}, &m); err != nil {
		t.Fatal(err)
	}
	if !m.Applied || m.Merged < 1 || len(m.Conflicts) != 0 {
		t.Fatalf("agentls.worktreeMerge: %+v", m)
	}
	if text, ok := s.Text("added-7.txt"); !ok || text != "job 7 was here\n" {
		t.Fatalf("added-7.txt in the editor after the merge: %q, %v", text, ok)
	}

	// ACP: /delegate, then /jobs fetch.
	t.Setenv("AGENTLS_NATS_URL", d.natsURL)
	r := connectACP(t, ctx, ws, llm, base, filepath.Join(t.TempDir(), "acpstate"), `{"verify":{"enabled":false}}`, false)
	sid := r.newSession(t)
	r.prompt(t, sid, "/delegate ACPJOB: add a file")
	text := agentText(r.client.snapshot())
	i := strings.Index(text, "Delegated job ")
	if i < 0 {
		t.Fatalf("/delegate said:\n%s", text)
	}
	id := strings.Fields(text[i+len("Delegated job "):])[0]
	waitFinal(t, ctx, q, []string{id})
	r.prompt(t, sid, "/jobs fetch "+id)
	if text := agentText(r.client.snapshot()); !strings.Contains(text, "created added-8.txt") || !strings.Contains(text, "deleted gone.txt") {
		t.Fatalf("/jobs fetch said:\n%s", text)
	}

	// Unpushed: refused over LSP, saying why.
	git(t, ws, "commit", "-qm", "local", "--allow-empty")
	err = s.Command(s.ctx, "agentls.delegate", map[string]any{"task": "LSPJOB again"}, nil)
	if err == nil || !strings.Contains(err.Error(), "no remote-tracking branch") {
		t.Fatalf("agentls.delegate of an unpushed commit: %v", err)
	}
	r.prompt(t, sid, "/delegate ACPJOB again")
	if text := agentText(r.client.snapshot()); !strings.Contains(text, "Not delegated") || !strings.Contains(text, "git push") {
		t.Fatalf("/delegate of an unpushed commit:\n%s", text)
	}
}

// A stopped worker loses nothing: SIGTERM cancels its job mid-turn and
// gives it back (Nak), and another worker runs it to the end. A job that
// cannot run (its repository is not there) ends failed with the reason at
// its MaxDeliver-th delivery; one whose worker dies at every delivery ends
// failed from JetStream's max-deliveries advisory.
func TestDelegateJobsEndOrComeBack(t *testing.T) {
	convs := map[string][]fakellm.Turn{"TERMJOB": jobTurns(1, 3000), "DIEJOB": jobTurns(2, 3000)}
	llm := fakellm.New(&fakellm.Script{Conversations: convs})
	base, err := llm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	d := delegateEnv{natsURL: startNATS(t), modelURL: base, llm: llm}
	ws, _ := delegateRepo(t)
	userState := filepath.Join(t.TempDir(), "state")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	q, err := delegate.Connect(ctx, config.Delegate{URL: d.natsURL}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	submit := func(task string) string {
		out, stderr, code := d.agentls(t, ws, userState, "submit", "--json", task)
		if code != 0 {
			t.Fatalf("submit: %d\n%s", code, stderr)
		}
		var j delegate.Job
		json.Unmarshal([]byte(out), &j)
		return j.ID
	}
	inFlight := func(key string) {
		t.Helper()
		deadline := time.Now().Add(testWait)
		for time.Now().Before(deadline) {
			for _, r := range llm.Requests() {
				if strings.Contains(firstUser(r.Body.Messages), key) {
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s never reached the model", key)
	}

	// SIGTERM: given back, finished by the next worker.
	term := submit("TERMJOB: add a file")
	w1 := d.startWorker(t, "first", 1)
	inFlight("TERMJOB")
	w1.Process.Signal(syscall.SIGTERM)
	if err := w1.Wait(); err != nil {
		t.Fatalf("the worker did not exit cleanly on SIGTERM: %v", err)
	}
	if st, _ := delegate.LastStatus(ctx, q, term); st.Final() {
		t.Fatalf("the job ended with its worker: %+v", st)
	}
	w2 := d.startWorker(t, "second", 1)
	if st := waitFinal(t, ctx, q, []string{term})[term]; st.State != delegate.StateDone || st.Attempt != 2 || st.Result.Status != "ok" {
		t.Fatalf("after SIGTERM: %+v", st)
	}

	// Delivered again after its end was recorded (as when a worker dies
	// between the result and the ack; here published again without the
	// de-duplicating id): acked, not run again.
	modelCalls := func() int {
		n := 0
		for _, r := range llm.Requests() {
			if strings.Contains(firstUser(r.Body.Messages), "TERMJOB") {
				n++
			}
		}
		return n
	}
	before := modelCalls()
	raw, _ := json.Marshal(delegate.Job{ID: term, Repo: filepath.Dir(ws) + "/origin.git", Commit: git(t, ws, "rev-parse", "HEAD"), Task: "TERMJOB: add a file"})
	if _, err := q.JS.Publish(ctx, delegate.JobsSubject+"."+term, raw); err != nil {
		t.Fatal(err)
	}
	jobsStream, err := q.JS.Stream(ctx, delegate.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(testWait); ; time.Sleep(50 * time.Millisecond) {
		info, err := jobsStream.Info(ctx)
		if err == nil && info.State.Msgs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the repeated job was never acked")
		}
	}
	if hist, _ := delegate.History(ctx, q, term); len(hist) != 4 || modelCalls() != before { // queued, running ×2, done
		t.Fatalf("the repeated job ran again: %d model calls, then %d; %+v", before, modelCalls(), hist)
	}

	// No repository: failed at the last delivery, with the reason.
	q2 := delegate.Job{ID: "nosuchrepo", Repo: filepath.Join(t.TempDir(), "missing.git"), Commit: git(t, ws, "rev-parse", "HEAD"), Task: "x"}
	if err := delegate.Submit(ctx, q, q2); err != nil {
		t.Fatal(err)
	}
	if st := waitFinal(t, ctx, q, []string{q2.ID})[q2.ID]; st.State != delegate.StateFailed || st.Attempt != 3 || !strings.Contains(st.Reason, "clone") {
		t.Fatalf("a job that cannot run: %+v", st)
	}

	// A worker that dies at every delivery (MaxDeliver 1 here): the
	// advisory ends the job as failed, and a live worker records it.
	w3 := d.startWorker(t, "third", 1, "--max-deliver", "1") // the consumer's now
	die := submit("DIEJOB: add a file")
	inFlight("DIEJOB")
	st, err := delegate.LastStatus(ctx, q, die)
	for err == nil && st.State != delegate.StateRunning {
		time.Sleep(20 * time.Millisecond)
		st, err = delegate.LastStatus(ctx, q, die)
	}
	for _, w := range []*exec.Cmd{w2, w3} {
		if strings.HasSuffix(st.Worker, ":"+strconv.Itoa(w.Process.Pid)) {
			w.Process.Signal(syscall.SIGKILL)
		}
	}
	if st := waitFinal(t, ctx, q, []string{die})[die]; st.State != delegate.StateFailed || !strings.Contains(st.Reason, "never finished") {
		t.Fatalf("a job whose worker died: %+v", st)
	}
}

// BenchmarkE2EDelegateFiveWorkers: jobs per minute through a real
// nats-server, five `agentls worker` processes on this machine (one job at
// a time each), the scripted model answering at once: submit to the end
// state of the last job, end to end (clone, agentls run, object store,
// state). Each iteration runs 20 jobs.
func BenchmarkE2EDelegateFiveWorkers(b *testing.B) {
	const jobs = 20
	convs := map[string][]fakellm.Turn{}
	for n := range jobs {
		convs[fmt.Sprintf("BENCHJOB%02d:", n)] = jobTurns(n, 0)
	}
	llm := fakellm.New(&fakellm.Script{Conversations: convs})
	base, err := llm.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { llm.Close() })
	d := delegateEnv{natsURL: startNATS(b), modelURL: base, llm: llm}
	ws, _ := delegateRepo(b)
	ctx := context.Background()
	q, err := delegate.Connect(ctx, config.Delegate{URL: d.natsURL}, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	for i := range 5 {
		d.startWorker(b, fmt.Sprint(i), 1)
	}
	p, err := delegate.PushedCommit(ctx, ws)
	if err != nil {
		b.Fatal(err)
	}
	var elapsed time.Duration
	b.ResetTimer()
	for i := range b.N {
		ids := make([]string, jobs)
		start := time.Now()
		for n := range jobs {
			ids[n] = fmt.Sprintf("bench%d-%d", i, n)
			if err := delegate.Submit(ctx, q, delegate.Job{ID: ids[n], Repo: p.Repo, Commit: p.Commit, Task: fmt.Sprintf("BENCHJOB%02d: go", n)}); err != nil {
				b.Fatal(err)
			}
		}
		for id, st := range waitFinal(b, ctx, q, ids) {
			if st.State != delegate.StateDone {
				b.Fatalf("%s: %+v", id, st)
			}
		}
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(jobs*b.N)/elapsed.Minutes(), "jobs/min")
}
