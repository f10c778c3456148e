package assemble

import (
	"context"
	"errors"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/testkit/fakellm"
	"github.com/agentls/agentls/internal/tools"
)

// lifecycle is a TaskConfig over a fake model answering turns, a temporary
// workspace and a session store.
func lifecycle(t *testing.T, turns ...fakellm.Turn) (TaskConfig, *fakellm.Server) {
	t.Helper()
	llm := fakellm.New(&fakellm.Script{Turns: turns})
	base, err := llm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	root := t.TempDir()
	ws, err := tools.NewDiskWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.LLM.BaseURL, cfg.LLM.APIKey, cfg.LLM.Model = base, "sk-test", "m"
	cfg.Verify.Enabled = false
	cfg.Sandbox.Mode = proc.ModeOff
	st, err := session.Open(ws.Root(), session.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return TaskConfig{Spec: Spec{Config: cfg, Root: ws.Root(), Workspace: ws}, Prompt: "do it", Store: st}, llm
}

// The lifecycle opens the session, hands it to Began, runs the driver,
// lets Ended decide what is recorded, and ends the session with it.
func TestRunRecordsWhatEndedSays(t *testing.T) {
	tc, _ := lifecycle(t, fakellm.Turn{Text: "done."})
	var rec *session.Recorder
	tc.Hooks.Began = func(r *session.Recorder) { rec = r }
	tc.Hooks.Ended = func(_ context.Context, res agent.Result) (agent.Result, []session.Change) {
		if res.Status != agent.StatusOK || res.Summary != "done." {
			t.Errorf("Ended got %+v", res)
		}
		res.Summary = "shown"
		return res, []session.Change{session.NewChange("a.txt", nil, false, []byte("x\n"))}
	}
	res, err := Run(context.Background(), tc)
	if err != nil || res.Summary != "shown" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if rec == nil {
		t.Fatal("Began never saw the session")
	}
	got, err := tc.Store.Load(rec.Session())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tasks) != 1 || got.Tasks[0].Status() != agent.StatusOK || len(got.Tasks[0].Changes) != 1 {
		t.Fatalf("session records %+v", got.Tasks)
	}
}

// A panic in a front end's hook still ends the session, as internal.
func TestRunEndsTheSessionOnAPanic(t *testing.T) {
	tc, _ := lifecycle(t, fakellm.Turn{Text: "done."})
	var rec *session.Recorder
	tc.Hooks.Began = func(r *session.Recorder) { rec = r }
	tc.Hooks.Ended = func(context.Context, agent.Result) (agent.Result, []session.Change) { panic("front end") }
	func() {
		defer func() { _ = recover() }()
		_, _ = Run(context.Background(), tc)
		t.Fatal("the panic did not reach the caller")
	}()
	got, err := tc.Store.Load(rec.Session())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tasks) != 1 || got.Tasks[0].Result == nil || got.Tasks[0].Result.Reason != "internal" {
		t.Fatalf("session records %+v", got.Tasks)
	}
}

// A session that must exist and does not stops the task before the
// model is asked anything.
func TestRunRefusesAnUnknownSession(t *testing.T) {
	tc, llm := lifecycle(t)
	tc.Session, tc.MustExist = "nope", true
	_, err := Run(context.Background(), tc)
	if !errors.Is(err, ErrWontRun) {
		t.Fatalf("err = %v", err)
	}
	if n := len(llm.Requests()); n != 0 {
		t.Fatalf("%d model requests", n)
	}
}

// The task holds the front end's MCP manager only while it runs.
func TestRunReleasesItsMCPServers(t *testing.T) {
	tc, _ := lifecycle(t, fakellm.Turn{Text: "done."})
	tc.Config.MCPServers = map[string]config.MCPServer{"x": {Command: "/nonexistent/x"}}
	tc.MCP = &SharedMCP{}
	if _, err := Run(context.Background(), tc); err != nil {
		t.Fatal(err)
	}
	m, release := tc.MCP.Acquire(tc.Config, tc.Root)
	tc.MCP.Close()
	if closed(m) {
		t.Fatal("closed while held")
	}
	release()
	if !closed(m) {
		t.Fatal("the task never released the manager: Close waits for a holder")
	}
}

// A workspace endpoint held back for want of trust stops the task before
// the session or the model: no fall back to another endpoint.
func TestRunRefusesAHeldBackEndpoint(t *testing.T) {
	tc, llm := lifecycle(t, fakellm.Turn{Text: "done."})
	tc.Untrusted = []string{"tools.allow", "llm.baseURL"}
	_, err := Run(context.Background(), tc)
	if !errors.Is(err, ErrUntrusted) || !errors.Is(err, ErrWontRun) {
		t.Fatalf("err = %v", err)
	}
	if n := len(llm.Requests()); n != 0 {
		t.Fatalf("%d model requests", n)
	}
	if infos, _ := tc.Store.List(); len(infos) != 0 {
		t.Fatalf("a session was recorded: %+v", infos)
	}
	tc.Untrusted = []string{"tools.allow"} // held back, but not needed to run
	if _, err := Run(context.Background(), tc); err != nil {
		t.Fatal(err)
	}
}

// A task run by an external agent (the bridge) uses no endpoint of
// agentls's: a held-back llm.baseURL does not stop it.
func TestRunHeldBackEndpointDoesNotStopABackend(t *testing.T) {
	tc, llm := lifecycle(t)
	tc.Untrusted = []string{"llm.baseURL"}
	ran := false
	tc.Hooks.Backend = func(Spec) (driver.Actor, func()) {
		return actor(func() { ran = true }), func() {}
	}
	if _, err := Run(context.Background(), tc); err != nil || !ran {
		t.Fatalf("err %v, ran %v", err, ran)
	}
	if n := len(llm.Requests()); n != 0 {
		t.Fatalf("%d model requests", n)
	}
}

// actor is an external agent's turn that only calls f.
type actor func()

func (a actor) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	return a.Act(ctx, req, onText, nil)
}

func (a actor) Act(context.Context, agent.Request, func(string), func(agent.Event)) (agent.Response, error) {
	a()
	return agent.Response{Content: "done"}, nil
}

// Every request of a session carries one prompt cache key (Responses
// API: prompt_cache_key), over its tasks: a follow-up in the same session
// has the first task's key, another session another key.
func TestPromptCacheKeyPerSession(t *testing.T) {
	tc, llm := lifecycle(t, fakellm.Turn{Text: "one."}, fakellm.Turn{Text: "two."}, fakellm.Turn{Text: "three."})
	tc.Config.LLM.API = "responses"
	var sess string
	tc.Hooks.Began = func(r *session.Recorder) { sess = r.Session() }
	if _, err := Run(context.Background(), tc); err != nil {
		t.Fatal(err)
	}
	tc.Hooks.Began = nil
	follow := tc
	follow.Session, follow.MustExist, follow.Prompt = sess, true, "and again"
	if _, err := Run(context.Background(), follow); err != nil {
		t.Fatal(err)
	}
	other := tc
	other.Prompt = "something else"
	if _, err := Run(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	reqs := llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	k0, k1, k2 := reqs[0].Responses.PromptCacheKey, reqs[1].Responses.PromptCacheKey, reqs[2].Responses.PromptCacheKey
	if k0 == "" || k0 != k1 || k2 == k0 || k0 != CacheKey(sess) {
		t.Errorf("keys %q %q %q (session %s, %q)", k0, k1, k2, sess, CacheKey(sess))
	}
}
