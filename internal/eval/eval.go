package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/llm"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/llm/responses"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// Options configures a run of the suite.
type Options struct {
	// Binary is the agentls executable to run tasks with.
	Binary string
	// Config is the user's configuration (model, endpoint, key in the
	// environment, prices, sandbox).
	Config config.Config
	// Scripted plays each task's recorded solution on the scripted model
	// instead of asking the configured endpoint.
	Scripted bool
	// Settings are written to each task's .agentls.json (for instance
	// {"agent": {"promptProfile": "terse"}}), to compare profiles. The
	// file replaces any the task's repository has (a repository's own
	// settings could point the model at another endpoint) and is trusted
	// (--trust): it is the user's, and sandbox.denyRead, which seals the
	// suite, is a setting that needs trust.
	Settings map[string]any
	// NoVerify turns agentls's verify gate off (users run with it on).
	NoVerify bool
	// API is the wire API: "chat" or "responses" (the scripted model
	// speaks both; default chat), or for an endpoint, what llm.api would
	// pick.
	API string
	// Suite is the directory the tasks come from: the model's sandbox
	// reads it (and the repository around it) as empty.
	Suite string
	// Repeat runs every task that many times (default 1).
	Repeat int
	// Keep leaves each task's directory in place and says where.
	Keep bool
	// Env is the environment agentls runs with [os.Environ()].
	Env []string
	// Log receives a line per task as it ends; nil: none.
	Log io.Writer
}

// CachedPriceShare is the share of the input price a cached input token
// costs in the cost estimates (OpenAI's GPT-5 family: a tenth).
const CachedPriceShare = 0.1

// Result is one task's outcome and what it cost.
type Result struct {
	Task   string `json:"task"`
	Lang   string `json:"lang"`
	Passed bool   `json:"passed"`
	// Run counts the repeats of the task, from 1.
	Run int `json:"run,omitempty"`
	// Skipped: the task's toolchain is missing (Error says which); it
	// counts in no pass rate.
	Skipped bool `json:"skipped,omitempty"`
	// Sealed: the model's commands ran in the sandbox that hides the
	// suite. Without it the score is not to be trusted.
	Sealed bool `json:"sealed"`
	// Change is how the model's change was sorted for grading; Failing
	// the required tests that did not pass.
	Change  Change   `json:"change"`
	Failing []string `json:"failing,omitempty"`
	// PassedOnTry is the polyglot try that passed (0: none); Tries the
	// outcome of each try.
	PassedOnTry int    `json:"passedOnTry,omitempty"`
	Tries       []bool `json:"tries,omitempty"`
	// Status is agentls's end status (ok, error, …) and Error what went
	// wrong when the agent or the harness failed.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	Turns  int    `json:"turns"`
	// Tokens are the sums of the server's reports; CachedTokens is what
	// it said it served from cache, PrefixTokens what a byte-identical
	// prefix of the previous request would let it (the estimate when a
	// server reports no caching).
	InputTokens  int `json:"inputTokens"`
	CachedTokens int `json:"cachedTokens"`
	PrefixTokens int `json:"prefixTokens"`
	OutputTokens int `json:"outputTokens"`
	// MinPrefixShare is the smallest PrefixShare after the first request,
	// MinPrevKept the smallest PrevKept (the goal: 1, or at least 0.95,
	// except right after a compaction).
	MinPrefixShare float64 `json:"minPrefixShare"`
	MinPrevKept    float64 `json:"minPrevKept"`
	// Cost is in US dollars at the configured prices: without caching, and
	// with cached (or, when none is reported, prefix) tokens at
	// CachedPriceShare of the input price.
	CostNoCache float64   `json:"costNoCache"`
	Cost        float64   `json:"cost"`
	WallMs      int64     `json:"wallMs"`
	Requests    []Request `json:"requests"`
	TestOutput  string    `json:"testOutput,omitempty"`
	Dir         string    `json:"dir,omitempty"`
}

// Report is the whole run.
type Report struct {
	Model    string         `json:"model"`
	Scripted bool           `json:"scripted"`
	API      string         `json:"api,omitempty"`
	Verify   bool           `json:"verify"`
	Repeat   int            `json:"repeat,omitempty"`
	Settings map[string]any `json:"settings,omitempty"`
	// Polyglot is set for a run of Aider's polyglot benchmark.
	Polyglot *PolyglotSummary `json:"polyglot,omitempty"`
	Results  []Result         `json:"results"`
	Total    Total            `json:"total"`
}

// Total sums the results.
type Total struct {
	Tasks          int     `json:"tasks"`
	Skipped        int     `json:"skipped,omitempty"`
	Passed         int     `json:"passed"`
	PassRate       float64 `json:"passRate"`
	Turns          int     `json:"turns"`
	InputTokens    int     `json:"inputTokens"`
	CachedTokens   int     `json:"cachedTokens"`
	PrefixTokens   int     `json:"prefixTokens"`
	OutputTokens   int     `json:"outputTokens"`
	MinPrefixShare float64 `json:"minPrefixShare"`
	MinPrevKept    float64 `json:"minPrevKept"`
	CostNoCache    float64 `json:"costNoCache"`
	Cost           float64 `json:"cost"`
	WallMs         int64   `json:"wallMs"`
}

// ScriptedModel is the model name the scripted runs use: one with
// built-in prices, so the cost columns are exercised.
const ScriptedModel = "gpt-5"

// Run runs tasks one after another (their timings stay comparable) and
// reports.
func Run(ctx context.Context, tasks []Task, o Options) Report {
	return runAll(ctx, o, "agentls-eval-", "%-28s %s\n", len(tasks), func(i int, model string, o Options, root string) (string, Result) {
		return tasks[i].Name, runTask(ctx, tasks[i], model, o, root)
	})
}

// runAll runs n jobs, each o.Repeat times, one after another, in one
// directory for the run (prefix names it), logging each verdict with
// logLine; job runs the i-th on the model in root and names it.
func runAll(ctx context.Context, o Options, prefix, logLine string, n int, job func(i int, model string, o Options, root string) (string, Result)) Report {
	if o.Env == nil {
		o.Env = os.Environ()
	}
	model := o.Config.LLM.Model
	if o.Scripted {
		model = ScriptedModel
	}
	if o.Repeat < 1 {
		o.Repeat = 1
	}
	if o.Scripted && o.API == "" {
		o.API = "chat"
	}
	rep := Report{Model: model, Scripted: o.Scripted, API: o.API, Verify: !o.NoVerify, Repeat: o.Repeat, Settings: o.Settings}
	// One directory for the run's tasks: each task's sandbox reads the
	// others (a kept grading copy holds hidden tests) as empty.
	root, err := os.MkdirTemp("", prefix)
	if err != nil {
		rep.Results = append(rep.Results, Result{Task: "(setup)", Error: err.Error()})
		return rep
	}
	if !o.Keep {
		defer os.RemoveAll(root)
	}
	for j := range n {
		for i := 1; i <= o.Repeat; i++ {
			if ctx.Err() != nil {
				break
			}
			name, r := job(j, model, o, root)
			r.Run = i
			rep.Results = append(rep.Results, r)
			if o.Log != nil {
				fmt.Fprintf(o.Log, logLine, name, verdictWord(r))
			}
		}
	}
	rep.Total = total(rep.Results)
	return rep
}

func verdictWord(r Result) string {
	switch {
	case r.Skipped:
		return "skip " + firstLine(r.Error)
	case r.Passed:
		return "pass"
	}
	return "FAIL " + firstLine(r.Error)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func total(rs []Result) Total {
	t := Total{MinPrefixShare: 1, MinPrevKept: 1}
	for _, r := range rs {
		if r.Skipped {
			t.Skipped++
			continue
		}
		t.Tasks++
		if r.Passed {
			t.Passed++
		}
		t.Turns += r.Turns
		t.InputTokens += r.InputTokens
		t.CachedTokens += r.CachedTokens
		t.PrefixTokens += r.PrefixTokens
		t.OutputTokens += r.OutputTokens
		t.CostNoCache += r.CostNoCache
		t.Cost += r.Cost
		t.WallMs += r.WallMs
		if len(r.Requests) > 1 {
			t.MinPrefixShare = min(t.MinPrefixShare, r.MinPrefixShare)
			t.MinPrevKept = min(t.MinPrevKept, r.MinPrevKept)
		}
	}
	if t.Tasks > 0 {
		t.PassRate = float64(t.Passed) / float64(t.Tasks)
	}
	return t
}

// endpoint is the model one task talks to: the configured one or the
// scripted one, behind the recording proxy. Both tries of a polyglot
// exercise go through the same endpoint, so the proxy sums them.
type endpoint struct {
	base  string // the proxy's URL, given to agentls
	api   string
	px    *proxy
	close func()
}

// jobDir makes a job's directory in the run's root and lists the other
// jobs' (which its sandbox reads as empty); with o.Keep it is kept and
// named in r.Dir, else cleanup removes it.
func jobDir(root, prefix string, o Options, r *Result) (dir string, others []string, cleanup func(), err error) {
	others, _ = filepath.Glob(filepath.Join(root, "*"))
	dir, err = os.MkdirTemp(root, prefix)
	if err != nil {
		return "", nil, nil, err
	}
	if o.Keep {
		r.Dir = dir
		return dir, others, func() {}, nil
	}
	return dir, others, func() { os.RemoveAll(dir) }, nil
}

// scriptedEndpoint opens the endpoint of a task: the scripted model
// playing script's answer when the run is scripted, else the model.
func scriptedEndpoint(model string, o Options, script func() (*fakellm.Script, error)) (*endpoint, error) {
	var sc *fakellm.Script
	if o.Scripted {
		var err error
		if sc, err = script(); err != nil {
			return nil, err
		}
	}
	return openEndpoint(model, sc, o)
}

func openEndpoint(model string, script *fakellm.Script, o Options) (*endpoint, error) {
	upstream := o.Config.LLM.BaseURL
	api := responses.Select(o.Config.LLM.API, upstream, model)
	var stop func()
	if o.Scripted {
		llm := fakellm.New(script)
		base, err := llm.Start()
		if err != nil {
			return nil, err
		}
		stop = func() { _ = llm.Close() }
		upstream, api = base, responses.APIChat
		if o.API == responses.APIResponses {
			api = responses.APIResponses
		}
	} else if o.API != "" {
		api = o.API
	}
	px, base, err := startProxy(upstream)
	if err != nil {
		if stop != nil {
			stop()
		}
		return nil, err
	}
	return &endpoint{base: base, api: api, px: px, close: func() {
		px.close()
		if stop != nil {
			stop()
		}
	}}, nil
}

// agentRun is one `agentls run` in ws: its end status and session.
type agentRun struct {
	status, session, err string
}

// runAgent runs agentls on ws with the task's prompt (session: continue
// that session). deny are the paths its sandbox must read as empty.
func runAgent(ctx context.Context, o Options, ep *endpoint, model, ws, state, prompt, session string, deny []string) agentRun {
	// The proxy's loopback address would make auto pick chat: the API is
	// decided here, for the real endpoint.
	settings := map[string]any{}
	for k, v := range o.Settings {
		settings[k] = v
	}
	llmSettings, _ := settings["llm"].(map[string]any)
	llmSettings = maps.Clone(llmSettings)
	if llmSettings == nil {
		llmSettings = map[string]any{}
	}
	if _, set := llmSettings["api"]; !set {
		llmSettings["api"] = ep.api
	}
	settings["llm"] = llmSettings
	sandbox, _ := settings["sandbox"].(map[string]any)
	sandbox = maps.Clone(sandbox)
	if sandbox == nil {
		sandbox = map[string]any{}
	}
	denied, _ := sandbox["denyRead"].([]any)
	for _, d := range deny {
		denied = append(denied, d)
	}
	sandbox["denyRead"] = denied
	settings["sandbox"] = sandbox
	if b, err := json.Marshal(settings); err == nil {
		_ = os.WriteFile(filepath.Join(ws, config.FileName), b, 0o644)
	}
	// --trust: the eval wrote the settings file (the sandbox.denyRead
	// that seals the suite is a sandbox.* key, which needs it).
	args := []string{"run", "--json", "--trust", "--base-url", ep.base, "--model", model, "--allow", "*"}
	if o.NoVerify {
		args = append(args, "--no-verify")
	}
	if session != "" {
		args = append(args, "--session", session)
	}
	args = append(args, "--", prompt)
	cmd := exec.CommandContext(ctx, o.Binary, args...)
	cmd.Dir = ws
	cmd.Env = append(append([]string(nil), o.Env...), "XDG_STATE_HOME="+state)
	if o.Scripted {
		cmd.Env = append(cmd.Env, "AGENTLS_API_KEY=sk-scripted")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	var r agentRun
	r.status, r.session = endStatus(stderr.Bytes())
	if runErr != nil && r.status == "" {
		r.err = fmt.Sprintf("agentls run: %v: %s", runErr, lastLines(stderr.String(), 5))
	}
	return r
}

// account fills r's token, turn and cost fields from the proxy's record.
func account(r *Result, reqs []Request, o Options, model string) {
	r.Requests = reqs
	r.Turns = len(reqs)
	inP, outP := llm.Price(withModel(o.Config, model))
	r.MinPrefixShare, r.MinPrevKept = 1, 1
	for i, q := range reqs {
		r.InputTokens += q.InputTokens
		r.CachedTokens += q.CachedTokens
		r.OutputTokens += q.OutputTokens
		if i > 0 {
			r.PrefixTokens += int(q.PrefixShare * float64(q.InputTokens))
			r.MinPrefixShare = min(r.MinPrefixShare, q.PrefixShare)
			r.MinPrevKept = min(r.MinPrevKept, q.PrevKept)
		}
	}
	if len(reqs) < 2 {
		r.MinPrefixShare, r.MinPrevKept = 0, 0
	}
	cached := r.CachedTokens
	if cached == 0 {
		cached = r.PrefixTokens
	}
	r.CostNoCache = (float64(r.InputTokens)*inP + float64(r.OutputTokens)*outP) / 1e6
	r.Cost = (float64(r.InputTokens-cached)*inP + float64(cached)*inP*CachedPriceShare + float64(r.OutputTokens)*outP) / 1e6
}

func runTask(ctx context.Context, t Task, model string, o Options, root string) (r Result) {
	r = Result{Task: t.Name, Lang: t.Lang}
	start := time.Now()
	defer func() { r.WallMs = time.Since(start).Milliseconds() }()
	if why := t.Missing(); why != "" {
		r.Skipped, r.Error = true, "skipped: "+why
		return r
	}
	tmp, others, cleanup, err := jobDir(root, t.Name+"-", o, &r)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer cleanup()
	base, ws, grade := filepath.Join(tmp, "base"), filepath.Join(tmp, "work"), filepath.Join(tmp, "grade")
	if err := materialize(ctx, t, base); err != nil {
		r.Error = "the task's repository: " + err.Error()
		return r
	}
	orig, err := snapshot(base)
	if err == nil {
		err = copyTree(base, ws)
	}
	if err == nil {
		err = gitInit(ctx, ws)
	}
	if err != nil {
		r.Error = "copying the repository: " + err.Error()
		return r
	}
	deny := sealed(o.Suite, o.Binary, append(others, base))
	r.Sealed = sandboxed(o.Config)

	ep, err := scriptedEndpoint(model, o, t.Solution)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	run := runAgent(ctx, o, ep, model, ws, filepath.Join(tmp, "state"), t.Prompt, "", deny)
	ep.close()
	r.Status, r.Error = run.status, run.err
	account(&r, ep.px.requests(), o, model)

	// Grading: a fresh copy of the repository as given, the model's
	// change to anything but tests and configuration, then the hidden
	// tests.
	work, err := snapshot(ws)
	if err != nil {
		r.Error = "reading the model's change: " + err.Error()
		return r
	}
	delete(work, config.FileName)
	if _, ok := orig[config.FileName]; ok {
		work[config.FileName] = orig[config.FileName]
	}
	patterns := t.TestPatterns
	if patterns == nil {
		patterns = defaultTestPatterns[t.Lang]
	}
	var stdlib map[string]bool
	if t.Lang == "python" {
		stdlib = pythonStdlib()
	}
	r.Change = sortChange(orig, work, patterns, stdlib)
	if err := copyTree(base, grade); err != nil {
		r.Error = "the grading copy: " + err.Error()
		return r
	}
	if err := applyChange(grade, work, r.Change); err != nil {
		r.Error = "the grading copy: " + err.Error()
		return r
	}
	if hidden := filepath.Join(t.Dir, "hidden"); exists(hidden) {
		if err := copyTree(hidden, grade); err != nil {
			r.Error = "copying the hidden tests: " + err.Error()
			return r
		}
	}
	got, out, err := runTests(ctx, grading{cfg: o.Config, dir: grade, deny: deny, layer: filepath.Join(tmp, "layer")}, t)
	if err != nil {
		r.Error = "running the hidden tests: " + err.Error()
		return r
	}
	v := judge(t, got)
	r.Passed, r.Failing, r.TestOutput = v.Passed, v.Failing, lastLines(out, 200)
	if !v.Passed && r.Error == "" {
		r.Error = describe(v, len(t.FailToPass)+len(t.PassToPass))
	}
	return r
}

// sandboxed reports whether the model's commands run confined: without
// it, nothing keeps the suite from the model.
func sandboxed(cfg config.Config) bool {
	_, ok, _ := assemble.Sandbox(cfg, os.TempDir())
	return ok
}
func withModel(c config.Config, model string) config.Config {
	c.LLM.Model = model
	return c
}

// endStatus is the status of the end event in agentls run's JSON stream,
// and the session it ran in.
func endStatus(stream []byte) (status, session string) {
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			Kind    string `json:"kind"`
			Session string `json:"session"`
			Result  *struct {
				Status string `json:"status"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Session != "" {
			session = ev.Session
		}
		if ev.Kind == "end" && ev.Result != nil {
			status = ev.Result.Status
		}
	}
	return status, session
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
