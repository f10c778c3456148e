package lsp

import (
	"fmt"
	"strings"

	"go.uber.org/zap"
)

// Every goroutine the server starts runs behind a panic barrier: the panic
// and its stack go to the log and the server keeps serving. A task whose
// goroutine panics ends with status error, reason "internal".

// guard is the panic barrier: the server and its features hold one.
type guard struct{ log *zap.Logger }

// goSafe runs f in a goroutine with a panic barrier.
func (g guard) goSafe(what string, f func()) {
	go func() {
		defer g.recoverGo(what)
		f()
	}()
}

// recoverGo is the barrier itself, deferred first thing in a goroutine.
func (g guard) recoverGo(what string) {
	if p := recover(); p != nil {
		g.log.Error("goroutine panicked", zap.String("in", what), zap.Any("panic", p), zap.Stack("stack"))
	}
}

// catch runs f and returns the panic it raised, logged with its stack, as
// an error; nil if it returned normally.
func (g guard) catch(what string, f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			g.log.Error("panic", zap.String("in", what), zap.Any("panic", p), zap.Stack("stack"))
			err = fmt.Errorf("internal error in %s: %v", what, p)
		}
	}()
	f()
	return nil
}

// testHooks are switched on by AGENTLS_TEST_PANIC, which exists for the
// end-to-end tests only (never set it in use): a comma-separated list of
// places that panic (once per task whose prompt names the place) — onEvent, finishTask,
// publishReview, announceEnd — and "debug", which adds the command
// agentls.debug.heap. Read once at start.
type testHooks struct {
	panicAt map[string]bool
	debug   bool
}

func readTestHooks(getenv func(string) string) testHooks {
	var h testHooks
	for _, w := range strings.Split(getenv("AGENTLS_TEST_PANIC"), ",") {
		switch w = strings.TrimSpace(w); w {
		case "":
		case "debug":
			h.debug = true
		default:
			if h.panicAt == nil {
				h.panicAt = map[string]bool{}
			}
			h.panicAt[w] = true
		}
	}
	return h
}

// maybePanic panics at a place the test hooks name, when the task's prompt
// asks for it ("panic:<place>"), so a test chooses which task fails.
// It panics once per task and place, so later work that meets the task
// (re-publishing its proposals) shows what the panic left behind.
func (h testHooks) maybePanic(where string, t *runningTask) {
	if !h.panicAt[where] || t == nil || !strings.Contains(t.prompt, "panic:"+where) {
		return
	}
	t.mu.Lock()
	fired := t.panicked[where]
	if !fired {
		if t.panicked == nil {
			t.panicked = map[string]bool{}
		}
		t.panicked[where] = true
	}
	t.mu.Unlock()
	if !fired {
		panic("test hook: panic in " + where)
	}
}
