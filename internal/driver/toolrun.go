package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/agent"
)

// runTools runs a turn's calls: consecutive read-only calls together in
// parallel, every other call alone, in the model's order, so a read after
// an edit sees the edit. Results reach the machine in the model's order
// too, whichever finished first, so a task's events are the same on every
// run of the same inputs (a replay matches its recording).
func (r *run) runTools(calls []agent.ToolCall) {
	// The conversation's prefix as of this turn, taken here on the
	// driver's goroutine: a Persist the machine emits while the tools run
	// replaces r.prefix, which the tools' goroutines must not read.
	prefix := slices.Clip(r.prefix)
	if len(calls) == 0 {
		return
	}
	r.wg.Go(func() {
		// Tools recover their own panics (runTool); a panic in this
		// bookkeeping ends the task, never the process.
		defer func() {
			if p := recover(); p != nil {
				r.d.logPanic("running tools", p)
				r.send(agent.Fail{Reason: "internal", Err: fmt.Sprintf("internal error running tools: %v", p)})
			}
		}()
		for i := 0; i < len(calls); {
			j := i + 1
			if r.readOnly(calls[i]) {
				for j < len(calls) && r.readOnly(calls[j]) {
					j++
				}
			}
			batch := make([]agent.ToolDone, j-i)
			if j-i == 1 {
				// One call runs here: a goroutine to wait for at once
				// would only hand the turn from one thread to another.
				res, err := r.runTool(calls[i], prefix)
				batch[0] = agent.ToolDone{ID: calls[i].ID, Result: res, Err: err}
			} else {
				var wg sync.WaitGroup
				for k, c := range calls[i:j] {
					wg.Go(func() {
						res, err := r.runTool(c, prefix)
						batch[k] = agent.ToolDone{ID: c.ID, Result: res, Err: err}
					})
				}
				wg.Wait()
			}
			if r.ctx.Err() != nil {
				return
			}
			for _, done := range batch {
				r.send(done)
			}
			i = j
		}
	})
}

func (r *run) readOnly(c agent.ToolCall) bool {
	t, ok := r.tools[c.Name]
	return ok && t.ReadOnly()
}

// runTool runs one call with its timeout, hooks and panic recovery. Every
// failure is an error for the model, never a task failure.
func (r *run) runTool(c agent.ToolCall, prefix []agent.Message) (res agent.ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.d.logPanic("tool "+c.Name, p)
			err = fmt.Errorf("tool %s crashed: %v", c.Name, p)
		}
	}()
	t, ok := r.tools[c.Name]
	if !ok {
		names := make([]string, 0, len(r.tools))
		for n := range r.tools {
			names = append(names, n)
		}
		sort.Strings(names)
		return agent.ToolResult{}, fmt.Errorf("unknown tool %q; the tools are: %s", c.Name, strings.Join(names, ", "))
	}
	args, err := toolArgs(t, c.Arguments)
	if err != nil {
		return agent.ToolResult{}, err
	}
	timeout := r.d.ToolTimeout
	if timeout <= 0 {
		timeout = 120 * time.Second
	}
	if tt, ok := t.(Timeouter); ok {
		timeout = tt.Timeout(args, timeout)
	}
	ctx, cancel := context.WithTimeout(WithParent(r.ctx, r.parent(c, prefix)), timeout)
	defer cancel()
	res, err, stuck := r.runBounded(ctx, t, c, args)
	if stuck {
		why := "the task was cancelled"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && r.ctx.Err() == nil {
			why = fmt.Sprintf("it timed out after %s", timeout)
		}
		msg := fmt.Sprintf("%s did not stop within %s after %s and was abandoned; it may be stuck in a system call (reading a named pipe, socket or device, or a hung file system)", c.Name, r.grace(), why)
		if r.d.OnAbandoned != nil {
			r.d.safeHook("OnAbandoned", func() { r.d.OnAbandoned(c, msg) })
		}
		return agent.ToolResult{}, errors.New(msg)
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && r.ctx.Err() == nil {
		err = fmt.Errorf("%s timed out after %s", c.Name, timeout)
	}
	if err == nil {
		res.Output += r.scoped.For(append(argPaths(args), res.Changed...))
	}
	return res, err
}

// argPaths returns the paths a call names (path, from, to).
func argPaths(args json.RawMessage) []string {
	var a struct{ Path, From, To string }
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	var ps []string
	for _, p := range []string{a.Path, a.From, a.To} {
		if p != "" {
			ps = append(ps, p)
		}
	}
	return ps
}

func (r *run) grace() time.Duration {
	if r.d.ToolGrace > 0 {
		return r.d.ToolGrace
	}
	return DefaultToolGrace
}

// runBounded runs the tool in a goroutine of its own and waits for it
// until ctx is done and the grace period has passed after that. A tool
// that ignores its context still returns in time; one stuck where no
// context reaches (a blocking system call) is abandoned: stuck is true,
// and its goroutine, which the run does not wait for, ends when the call
// does. The run's own goroutines never wait for it.
func (r *run) runBounded(ctx context.Context, t agent.Tool, c agent.ToolCall, args json.RawMessage) (agent.ToolResult, error, bool) {
	type outcome struct {
		res agent.ToolResult
		err error
	}
	ch := make(chan outcome, 1) // buffered: an abandoned tool never blocks on it
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				r.d.logPanic("tool "+c.Name, p)
				o = outcome{err: fmt.Errorf("tool %s crashed: %v", c.Name, p)}
			}
			ch <- o
		}()
		o.res, o.err = t.Run(ctx, args)
	}()
	select {
	case o := <-ch:
		return o.res, o.err, false
	case <-ctx.Done():
	}
	grace := time.NewTimer(r.grace())
	defer grace.Stop()
	select {
	case o := <-ch:
		return o.res, o.err, false
	case <-grace.C:
		return agent.ToolResult{}, nil, true
	}
}

// toolArgs checks a call's arguments; an empty string means no arguments.
func toolArgs(t agent.Tool, raw string) (json.RawMessage, error) {
	args := strings.TrimSpace(raw)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return nil, fmt.Errorf("arguments are not valid JSON: %s; expected arguments matching this schema: %s", truncate(args, 200), t.Spec().Parameters)
	}
	return json.RawMessage(args), nil
}
