package session

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// syncWindow is the least time between two fsyncs of a session: records
// written within it share the next fsync. It bounds what a power loss (not
// a killed process) can take: the last syncWindow of a task's records.
const syncWindow = 100 * time.Millisecond

// groupSync fsyncs a session file off the task's path, at most once per
// syncWindow, grouping the records written meanwhile into one fsync: a turn
// never waits for the disk, a fast model (many turns a second) costs fewer
// fsyncs than turns, and a slow one at most one per turn.
//
// Crash safety is unchanged for a killed process: each record is one
// write(2) before the task goes on, so kill -9 loses nothing. What waits is
// durability against a power loss, which covers the records up to the
// last completed fsync; End syncs before it returns.
type groupSync struct {
	f *os.File

	mu      sync.Mutex
	wake    *sync.Cond
	dirty   bool
	closing bool
	err     error
	done    chan struct{}
	stop    chan struct{} // closed by close: ends a wait for the window
}

func newGroupSync(f *os.File, warn func(string)) *groupSync {
	g := &groupSync{f: f, done: make(chan struct{}), stop: make(chan struct{})}
	g.wake = sync.NewCond(&g.mu)
	go func() {
		defer close(g.done)
		defer func() {
			if p := recover(); p != nil {
				warn(fmt.Sprintf("session sync: panic: %v", p))
				g.mu.Lock()
				if g.err == nil {
					g.err = fmt.Errorf("session sync: panic: %v", p)
				}
				g.mu.Unlock()
			}
		}()
		g.loop()
	}()
	return g
}

func (g *groupSync) loop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		for !g.dirty && !g.closing {
			g.wake.Wait()
		}
		if !g.dirty {
			return
		}
		g.dirty = false
		g.mu.Unlock()
		err := g.f.Sync()
		t := time.NewTimer(syncWindow)
		select {
		case <-t.C:
		case <-g.stop:
		}
		t.Stop()
		g.mu.Lock()
		if err != nil && g.err == nil {
			g.err = err
		}
	}
}

// kick asks for an fsync of what was written so far; it returns the first
// fsync error met, if any.
func (g *groupSync) kick() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dirty = true
	g.wake.Signal()
	return g.err
}

// close syncs what is still pending, stops the goroutine and returns the
// first fsync error.
func (g *groupSync) close() error {
	g.mu.Lock()
	g.closing = true
	g.wake.Signal()
	g.mu.Unlock()
	close(g.stop)
	<-g.done
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
