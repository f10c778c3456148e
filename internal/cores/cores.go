// Package cores decides how many cores agentls's own Go code runs on.
//
// A headless task is a serial loop: send the conversation, read the
// answer, run a tool, append to the session, and again. Its goroutines
// hand the turn to one another (the model stream, the HTTP connection's
// reader and writer, the tool); with more than one P every hand-off wakes
// another thread, and the scheduler's spinning threads and the futex calls
// that wake them were a tenth of a turn's CPU. Lean runs the loop on one P.
// Work that does use several cores, a grep across the tree, borrows them
// for as long as it runs. Processes the model starts are not affected, nor
// is waiting in system calls: a blocked call never holds the P.
package cores

import (
	"runtime"
	"sync"
)

var (
	mu        sync.Mutex
	lean      bool
	borrowers int
)

// Lean runs the process's Go code on one P from now on, but while work that
// called Borrow runs.
func Lean() {
	mu.Lock()
	defer mu.Unlock()
	lean = true
	if borrowers == 0 {
		runtime.GOMAXPROCS(1)
	}
}

// Borrow gives the caller every core (the runtime's default GOMAXPROCS)
// until it calls release; without Lean it changes nothing. Borrowers may
// overlap: the cores go back when the last one releases them.
func Borrow() (release func()) {
	mu.Lock()
	defer mu.Unlock()
	if !lean {
		return func() {}
	}
	borrowers++
	if borrowers == 1 {
		runtime.SetDefaultGOMAXPROCS()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			borrowers--
			if borrowers == 0 && lean {
				runtime.GOMAXPROCS(1)
			}
		})
	}
}
