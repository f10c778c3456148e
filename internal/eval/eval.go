package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/llm/responses"
	"github.com/agentls/agentls/internal/proc"
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
	// {"agent": {"promptProfile": "terse"}}), to compare profiles.
	Settings map[string]any
	// Verify runs agentls's verify gate during the task.
	Verify bool
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
	Settings map[string]any `json:"settings,omitempty"`
	Results  []Result       `json:"results"`
	Total    Total          `json:"total"`
}

// Total sums the results.
type Total struct {
	Tasks          int     `json:"tasks"`
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
	if o.Env == nil {
		o.Env = os.Environ()
	}
	model := o.Config.LLM.Model
	if o.Scripted {
		model = ScriptedModel
	}
	rep := Report{Model: model, Scripted: o.Scripted, Settings: o.Settings}
	for _, t := range tasks {
		if ctx.Err() != nil {
			break
		}
		r := runTask(ctx, t, model, o)
		rep.Results = append(rep.Results, r)
		if o.Log != nil {
			fmt.Fprintf(o.Log, "%-28s %s\n", t.Name, map[bool]string{true: "pass", false: "FAIL " + firstLine(r.Error)}[r.Passed])
		}
	}
	rep.Total = total(rep.Results)
	return rep
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func total(rs []Result) Total {
	t := Total{Tasks: len(rs), MinPrefixShare: 1, MinPrevKept: 1}
	for _, r := range rs {
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

func runTask(ctx context.Context, t Task, model string, o Options) (r Result) {
	r = Result{Task: t.Name, Lang: t.Lang}
	start := time.Now()
	defer func() { r.WallMs = time.Since(start).Milliseconds() }()
	tmp, err := os.MkdirTemp("", "agentls-eval-"+t.Name+"-")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if o.Keep {
		r.Dir = tmp
	} else {
		defer os.RemoveAll(tmp)
	}
	ws := filepath.Join(tmp, "work")
	if err := copyTree(filepath.Join(t.Dir, "repo"), ws); err != nil {
		r.Error = "copying the repository: " + err.Error()
		return r
	}

	upstream := o.Config.LLM.BaseURL
	api := responses.Select(o.Config.LLM.API, upstream, model)
	settings := map[string]any{}
	for k, v := range o.Settings {
		settings[k] = v
	}
	if o.Scripted {
		script, err := scriptFor(t)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		llm := fakellm.New(script)
		base, err := llm.Start()
		if err != nil {
			r.Error = err.Error()
			return r
		}
		defer llm.Close()
		upstream, api = base, responses.APIChat
	}
	// The proxy's loopback address would make auto pick chat: the API is
	// decided here, for the real endpoint.
	llmSettings, _ := settings["llm"].(map[string]any)
	if llmSettings == nil {
		llmSettings = map[string]any{}
	}
	if _, set := llmSettings["api"]; !set {
		llmSettings["api"] = api
	}
	settings["llm"] = llmSettings
	if b, err := json.Marshal(settings); err == nil {
		_ = os.WriteFile(filepath.Join(ws, config.FileName), b, 0o644)
	}

	px, base, err := startProxy(upstream)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer px.close()

	args := []string{"run", "--json", "--base-url", base, "--model", model, "--allow", "*"}
	if !o.Verify {
		args = append(args, "--no-verify")
	}
	args = append(args, t.Prompt)
	cmd := exec.CommandContext(ctx, o.Binary, args...)
	cmd.Dir = ws
	cmd.Env = append(append([]string(nil), o.Env...), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	if o.Scripted {
		cmd.Env = append(cmd.Env, "AGENTLS_API_KEY=sk-scripted")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	r.Status = endStatus(stderr.Bytes())
	if runErr != nil && r.Status == "" {
		r.Error = fmt.Sprintf("agentls run: %v: %s", runErr, lastLines(stderr.String(), 5))
	}

	r.Requests = px.requests()
	r.Turns = len(r.Requests)
	inP, outP := assemble.Price(withModel(o.Config, model))
	r.MinPrefixShare, r.MinPrevKept = 1, 1
	for i, q := range r.Requests {
		r.InputTokens += q.InputTokens
		r.CachedTokens += q.CachedTokens
		r.OutputTokens += q.OutputTokens
		if i > 0 {
			r.PrefixTokens += int(q.PrefixShare * float64(q.InputTokens))
			r.MinPrefixShare = min(r.MinPrefixShare, q.PrefixShare)
			r.MinPrevKept = min(r.MinPrevKept, q.PrevKept)
		}
	}
	if len(r.Requests) < 2 {
		r.MinPrefixShare, r.MinPrevKept = 0, 0
	}
	cached := r.CachedTokens
	if cached == 0 {
		cached = r.PrefixTokens
	}
	r.CostNoCache = (float64(r.InputTokens)*inP + float64(r.OutputTokens)*outP) / 1e6
	r.Cost = (float64(r.InputTokens-cached)*inP + float64(cached)*inP*CachedPriceShare + float64(r.OutputTokens)*outP) / 1e6

	// The hidden tests go in after the agent, over whatever it wrote.
	if err := copyTree(filepath.Join(t.Dir, "hidden"), ws); err != nil {
		r.Error = "copying the hidden tests: " + err.Error()
		return r
	}
	if t.Lang == "ts" {
		if err := transpile(ws); err != nil {
			r.TestOutput = err.Error()
			return r
		}
	}
	passed, out, err := runHidden(ctx, o.Config, ws, t.Test)
	r.Passed, r.TestOutput = passed, out
	if err != nil && r.Error == "" {
		r.Error = err.Error()
	}
	if !passed && r.Error == "" {
		r.Error = "hidden tests failed: " + lastLines(out, 3)
	}
	return r
}

func withModel(c config.Config, model string) config.Config {
	c.LLM.Model = model
	return c
}

// runHidden runs the hidden tests through internal/proc, in the sandbox
// the configuration asks for: they run the model's code.
func runHidden(ctx context.Context, cfg config.Config, ws, test string) (bool, string, error) {
	sb, _, _ := assemble.Sandbox(cfg, ws)
	res, err := proc.Run(ctx, proc.Spec{Shell: test, Dir: ws, Env: os.Environ(), Timeout: 5 * time.Minute, Sandbox: sb})
	if err != nil {
		return false, "", fmt.Errorf("running the hidden tests: %w", err)
	}
	return res.ExitCode == 0 && !res.TimedOut, res.Output, nil
}

// endStatus is the status of the end event in agentls run's JSON stream.
func endStatus(stream []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	status := ""
	for sc.Scan() {
		var ev struct {
			Kind   string `json:"kind"`
			Result *struct {
				Status string `json:"status"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Kind == "end" && ev.Result != nil {
			status = ev.Result.Status
		}
	}
	return status
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// scriptFor is the scripted model's conversation for t: read the files a
// model would read, apply the recorded solution, say it is done.
func scriptFor(t Task) (*fakellm.Script, error) {
	patch, err := t.Solution()
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	var turns []fakellm.Turn
	if len(t.Read) > 0 {
		var calls []fakellm.ToolCall
		for i, p := range t.Read {
			a, _ := json.Marshal(map[string]string{"path": p})
			calls = append(calls, fakellm.ToolCall{ID: fmt.Sprintf("call_read_%d", i), Name: "read_file", Arguments: string(a)})
		}
		turns = append(turns, fakellm.Turn{ToolCalls: calls})
	}
	a, _ := json.Marshal(map[string]string{"input": patch})
	turns = append(turns,
		fakellm.Turn{ToolCalls: []fakellm.ToolCall{{ID: "call_patch", Name: "apply_patch", Arguments: string(a)}}},
		fakellm.Turn{Text: "Done: applied the fix and checked it."})
	return &fakellm.Script{Turns: turns}, nil
}
