package driver

import "sync"

// maxIdleWorkers bounds the goroutines a run keeps waiting for work: a
// turn uses two or three (the model call, the tool batch, the tool), more
// only for parallel read-only calls.
const maxIdleWorkers = 8

// workers runs a run's jobs (model calls, tool batches, tool calls, timers,
// checks) on goroutines it keeps: one that finished a job waits for the
// next with the stack it grew. A new goroutine starts with a small stack
// and copies it each time it doubles; a model call or a tool call grows it
// to tens of kilobytes, so every turn paid for several copies (runtime
// morestack was 4.5% of a turn's CPU in the 100-turn benchmark).
//
// A job that never returns (a tool stuck in a system call, which the run
// abandons) keeps its worker; the others carry on without it.
type workers struct {
	mu     sync.Mutex
	idle   []chan func()
	closed bool
}

// do runs job on an idle worker, or on a new one.
func (w *workers) do(job func()) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		ch := w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		ch <- job // buffered, and only this caller holds ch now
		return
	}
	w.mu.Unlock()
	ch := make(chan func(), 1)
	ch <- job
	go w.loop(ch)
}

// loop runs jobs until the pool is closed or full. Jobs recover their own
// panics (goDo, runTool); one that does not ends this worker, never the
// process.
func (w *workers) loop(ch chan func()) {
	for job := range ch {
		if !runJob(job) {
			return
		}
		w.mu.Lock()
		if w.closed || len(w.idle) >= maxIdleWorkers {
			w.mu.Unlock()
			return
		}
		w.idle = append(w.idle, ch)
		w.mu.Unlock()
	}
}

func runJob(job func()) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	job()
	return true
}

// close ends the idle workers; busy ones end when their job returns.
func (w *workers) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	for _, ch := range w.idle {
		close(ch)
	}
	w.idle = nil
}
