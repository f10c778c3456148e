package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/textcut"
)

// Assignment is what one Run is asked to do: the user's prompt and what
// comes with it. (A running task is lsp's runningTask; its record in a session,
// session.Recorder.)
type Assignment struct {
	Prompt string
	// Images go with the prompt to a model that takes them.
	Images []agent.Image
	// Editor is what the editor passed along: the current file and
	// selection, already rendered as text for the model ("" if none).
	Editor string
	// Dir is the directory the user is in, relative to the workspace root
	// ("" for the root): the CLI's working directory, the directory of the
	// editor's current file.
	Dir string
	// HookContext is what the task's SessionStart and UserPromptSubmit
	// hooks add to the model's context ("" if none).
	HookContext string
	// History holds earlier turns of the session, for continued sessions.
	History []agent.Message
	// Seed makes retry jitter reproducible; 0 picks one from the clock.
	Seed uint64
}

// Verifier runs the project's checks after the agent changed files.
type Verifier interface {
	Verify(ctx context.Context, changed []string) (agent.VerifyReport, error)
}

// Actor is a model backend whose turns act: an external agent (the ACP
// bridge, agent.backend.acp) runs its own tools during a turn. Act is
// Stream that also reports the turn's tool calls and results, plans and
// thoughts through onEvent, which the machine emits in order with the
// turn's text; the files the turn changed come back in
// Response.Changed, so the verify gate, its retries and the task's limits
// are the machine's, as for agentls's own tools.
type Actor interface {
	agent.LLM
	Act(ctx context.Context, req agent.Request, onText func(delta string), onEvent func(agent.Event)) (agent.Response, error)
}

// ErrTurnCancelled, wrapped in an Actor's error, says the actor itself gave
// up its turn (an ACP agent that ends it "cancelled" once the user denied
// what it asked to do): the task ends cancelled, as when the user cancels
// it, not as a failed model call.
var ErrTurnCancelled = errors.New("the turn was cancelled")

// Planner gathers what the model is told before the task: the system
// prompt and project context. Recalled memory joins here too.
type Planner interface {
	Plan(ctx context.Context, t Assignment) (agent.Planned, error)
}

// Stopper decides whether a model that answered without tools may stop:
// the task's Stop hooks and its stop condition (agentls run --until). An
// error is the check's own failure, shown to the model as feedback.
type Stopper interface {
	CheckStop(ctx context.Context, s agent.CheckStop) agent.StopChecked
}

// DefaultToolGrace is Driver.ToolGrace's default.
const DefaultToolGrace = 2 * time.Second

// Timeouter is implemented by tools whose calls may ask for a longer
// timeout than the default (run_command's timeout_seconds).
type Timeouter interface {
	Timeout(args json.RawMessage, def time.Duration) time.Duration
}

// Driver runs tasks: it performs the machine's actions and feeds the
// outcomes back. A Driver may run several tasks at once.
type Driver struct {
	LLM   agent.LLM
	Model string
	// CacheKey goes with every model request (agent.Request.CacheKey):
	// one per session, so the provider's prompt cache is found again.
	CacheKey string
	Tools    []agent.Tool
	Planner  Planner  // nil: a bare system prompt
	Verifier Verifier // nil: no verify gate
	// Stopper, when set, is asked before the task ends on the model's
	// answer (agent.Limits.StopCheck); nil: the answer ends it.
	Stopper     Stopper
	Limits      agent.Limits
	ToolTimeout time.Duration // per call; 0: 120 s
	TaskTimeout time.Duration // whole task; 0: none
	// ToolGrace is how long a tool may take to return once its context
	// is done (timeout, cancel); after that the driver stops waiting for
	// it, so a tool stuck in a system call (an open(2) on a FIFO, a hung
	// network file system) cannot hold the task. 0: DefaultToolGrace.
	ToolGrace time.Duration
	// OnAbandoned is told about each call the driver stopped waiting for,
	// with a message for a person; it may be nil. The abandoned goroutine
	// is left to finish on its own; its result is dropped.
	OnAbandoned func(call agent.ToolCall, msg string)
	// Prices per million tokens for this model; zero: no cost.
	Price struct{ Input, Output float64 }
	// Root is the workspace root whose nested AGENTS.md files join tool
	// results when the task first touches their subtree; "": none.
	Root string
	// Secret says whether a workspace-relative, '/'-separated path names a
	// secret file (tools.secretFiles), for the nested AGENTS.md files:
	// one that is, or links to, a secret is never shown. nil: the default
	// secret files.
	Secret func(rel string) bool
	// OnEvent receives every event of every task, in order per task. It is
	// called from the driver's loop, so it must not block for long.
	OnEvent func(agent.Event)
	// OnConversation sees the conversation after the planner's prefix
	// (earlier session turns, the task, the turns so far) before every
	// model call and once more when the task finishes, however it ends, so
	// a session store can persist each turn and continue it later. It runs
	// on the driver's loop and must not block for long; msgs belongs to
	// the machine and must be copied to be kept. A panic in it is
	// recovered. nil: none.
	OnConversation func(ctx context.Context, msgs []agent.Message)
	// Log is told of each input the machine ignored, with the state it was
	// in [none]: where a replay leaves its recording, it shows first.
	Log *zap.Logger
}

// Run performs one task and returns when it ended. Cancelling ctx cancels
// the task (Result.Cancelled); in-flight model streams, tools and checks are
// stopped and waited for before Run returns.
func (d *Driver) Run(ctx context.Context, t Assignment) agent.Result {
	run := &run{d: d, inputs: make(chan agent.Input, 256), tools: map[string]agent.Tool{}, scoped: &scoped{root: d.Root, secret: d.Secret}}
	for _, tl := range d.Tools {
		run.tools[tl.Spec().Name] = tl
		run.specs = append(run.specs, tl.Spec())
	}
	run.task = t
	lim := d.Limits
	if lim == (agent.Limits{}) {
		lim = agent.DefaultLimits()
	}
	if d.Verifier == nil {
		lim.Verify = false
	}
	lim.StopCheck = d.Stopper != nil
	if lim.PriceInput == 0 && lim.PriceOutput == 0 {
		// The cost budget counts at the prices the result's cost uses.
		lim.PriceInput, lim.PriceOutput = d.Price.Input, d.Price.Output
	}
	specJSON, _ := json.Marshal(run.specs)
	lim.ToolsTokens = len(specJSON) / 4
	run.limits = lim
	seed := t.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}

	taskCtx := ctx
	var stopTimeout context.CancelFunc = func() {}
	if d.TaskTimeout > 0 {
		taskCtx, stopTimeout = context.WithTimeout(ctx, d.TaskTimeout)
	}
	defer stopTimeout()
	runCtx, stop := context.WithCancel(taskCtx)
	run.ctx = runCtx
	defer func() {
		stop()
		run.wg.Wait()
	}()

	m := agent.NewMachine()
	run.m = m
	acts := m.Step(agent.Start{Task: t.Prompt, Images: t.Images, Limits: lim, Seed: seed})
	done := taskCtx.Done()
	for {
		for _, a := range acts {
			if r, ok := run.do(a); ok {
				return r
			}
		}
		select {
		case in := <-run.inputs:
			acts = run.step(in)
		case <-done:
			done = nil // step once; the machine is Idle afterwards
			if errors.Is(taskCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
				acts = run.step(agent.Fail{Reason: "timeout", Err: fmt.Sprintf("task timed out after %s", d.TaskTimeout)})
			} else {
				acts = run.step(agent.Cancel{})
			}
		}
	}
}

// run is the state of one Driver.Run.
type run struct {
	d      *Driver
	ctx    context.Context
	task   Assignment
	inputs chan agent.Input
	wg     sync.WaitGroup // the run's goroutines, but for abandoned tools
	tools  map[string]agent.Tool
	specs  []agent.ToolSpec
	limits agent.Limits

	prefix []agent.Message // the planner's prefix (Persist), for Parent
	spent  spent           // the task's usage so far, for Parent

	scoped *scoped // nested AGENTS.md already shown

	m *agent.Machine // read on the loop only
}

// step feeds in to the machine and logs it when the machine ignored it.
func (r *run) step(in agent.Input) []agent.Action {
	state, before := r.m.State(), r.m.Ignored()
	acts := r.m.Step(in)
	if r.m.Ignored() != before && r.d.Log != nil {
		r.d.Log.Info("the agent machine ignored an input", zap.String("input", fmt.Sprintf("%T", in)), zap.String("state", string(state)))
	}
	return acts
}

// send delivers an input unless the run is over.
func (r *run) send(in agent.Input) {
	select {
	case r.inputs <- in:
	case <-r.ctx.Done():
	}
}

// goDo runs f in a goroutine the run owns, recovering panics into err.
func (r *run) goDo(f func() agent.Input) {
	r.wg.Go(func() {
		var in agent.Input
		func() {
			defer func() {
				if p := recover(); p != nil {
					r.d.logPanic("a driver goroutine", p)
					in = agent.Fail{Reason: "internal", Err: fmt.Sprintf("internal error: %v", p)}
				}
			}()
			in = f()
		}()
		if in != nil {
			r.send(in)
		}
	})
}

func (r *run) do(a agent.Action) (agent.Result, bool) {
	d := r.d
	switch a := a.(type) {
	case agent.Emit:
		ev := a.Event
		if ev.Kind == agent.KindUsage && ev.TaskUsage != nil {
			r.spent.set(*ev.TaskUsage)
		}
		if ev.Kind == agent.KindEnd && ev.Result != nil {
			res := *ev.Result
			res.Cost = d.cost(res.Usage)
			ev.Result = &res
		}
		if d.OnEvent != nil {
			d.OnEvent(ev)
		}
	case agent.Persist:
		r.prefix = a.Prefix
		if h := d.OnConversation; h != nil {
			d.safeHook("OnConversation", func() { h(r.ctx, a.Conversation) })
		}
	case agent.Finish:
		res := a.Result
		res.Cost = d.cost(res.Usage)
		return res, true
	case agent.Plan:
		r.goDo(func() agent.Input {
			if d.Planner == nil {
				return agent.Planned{Prefix: []agent.Message{{Role: agent.RoleSystem, Content: SystemPrompt}}, History: r.task.History}
			}
			p, err := d.Planner.Plan(r.ctx, r.task)
			if err != nil {
				return agent.Fail{Reason: "plan", Err: err.Error()}
			}
			return p
		})
	case agent.CallModel:
		req := agent.Request{Model: d.Model, Messages: a.Messages, Tools: r.specs, CacheKey: d.CacheKey}
		if a.NoTools {
			req.Tools = nil // the summary turn at the end of the budget
		}
		r.goDo(func() agent.Input {
			onText := func(delta string) { r.send(agent.TextDelta{Text: delta}) }
			var resp agent.Response
			var err error
			if a, ok := d.LLM.(Actor); ok {
				resp, err = a.Act(r.ctx, req, onText, func(ev agent.Event) { r.send(agent.Observed{Event: ev}) })
			} else {
				resp, err = d.LLM.Stream(r.ctx, req, onText)
			}
			if err != nil {
				if r.ctx.Err() != nil {
					return nil
				}
				if errors.Is(err, ErrTurnCancelled) {
					return agent.Cancel{}
				}
				return agent.ModelFailed{Err: err, Partial: resp}
			}
			return agent.ModelDone{Response: resp}
		})
	case agent.StartTimer:
		// A goroutine the run waits for, unlike time.AfterFunc's, so none
		// is left sending after Run returned.
		r.goDo(func() agent.Input {
			t := time.NewTimer(a.After)
			defer t.Stop()
			select {
			case <-t.C:
				return agent.TimerFired{ID: a.ID}
			case <-r.ctx.Done():
				return nil
			}
		})
	case agent.RunTools:
		r.runTools(a.Calls)
	case agent.RunVerify:
		r.goDo(func() agent.Input {
			rep, err := d.Verifier.Verify(r.ctx, a.Changed)
			if err != nil {
				if r.ctx.Err() != nil {
					return nil
				}
				return agent.VerifyDone{Report: agent.VerifyReport{Passed: false, Summary: "could not run the checks: " + err.Error(), Feedback: err.Error()}}
			}
			return agent.VerifyDone{Report: rep}
		})
	case agent.Compact:
		r.goDo(func() agent.Input {
			sum, u, err := r.summarize(a.Dropped)
			return agent.Compacted{Summary: sum, Usage: u, Err: err}
		})
	case agent.CheckStop:
		r.goDo(func() agent.Input {
			c := d.Stopper.CheckStop(r.ctx, a)
			if r.ctx.Err() != nil {
				return nil
			}
			return c
		})
	case agent.Report:
		r.goDo(func() agent.Input { return agent.Reported{} })
	}
	return agent.Result{}, false
}

// summarize asks the model for a summary of dropped turns (no tools, no
// streaming to subscribers).
func (r *run) summarize(dropped []agent.Message) (string, agent.Usage, error) {
	var b strings.Builder
	for _, m := range dropped {
		fmt.Fprintf(&b, "[%s", m.Role)
		if m.Name != "" {
			fmt.Fprintf(&b, " %s", m.Name)
		}
		b.WriteString("] ")
		b.WriteString(truncate(m.Content, 2000))
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "\n  call %s %s", c.Name, truncate(c.Arguments, 300))
		}
		b.WriteString("\n")
	}
	ctx, cancel := context.WithTimeout(r.ctx, 2*time.Minute)
	defer cancel()
	resp, err := r.d.LLM.Stream(ctx, agent.Request{Model: r.d.Model, Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: CompactionPrompt},
		{Role: agent.RoleUser, Content: truncate(b.String(), 200_000)},
	}}, func(string) {})
	if err != nil {
		return "", resp.Usage, err
	}
	return resp.Content, resp.Usage, nil
}

func (d *Driver) cost(u agent.Usage) float64 {
	return u.Cost(d.Price.Input, d.Price.Output)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Head(s, n) + "…"
}

// safeHook runs an observer hook; a panic in it is a bug in the hook, not
// a reason to take the server down, and it is logged with its stack.
func (d *Driver) safeHook(name string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			d.logPanic(name, p)
		}
	}()
	f()
}

// logPanic logs a recovered panic with the stack of the goroutine that
// recovered it (inside the deferred call, that is the panicking one).
func (d *Driver) logPanic(where string, p any) {
	if d.Log == nil {
		return
	}
	d.Log.Error("recovered a panic", zap.String("in", where), zap.Any("panic", p), zap.Stack("stack"))
}
