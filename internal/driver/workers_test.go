package driver

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Sequential jobs run on the same few goroutines, a panicking job takes
// only its worker, a stuck job keeps only its own, and close ends the idle
// ones.
func TestWorkersReuseAndClose(t *testing.T) {
	base := runtime.NumGoroutine()
	var w workers
	ids := map[uint64]bool{}
	var mu sync.Mutex
	for range 200 {
		done := make(chan struct{})
		w.do(func() {
			mu.Lock()
			ids[goid()] = true
			mu.Unlock()
			close(done)
		})
		<-done
	}
	if len(ids) > 2 {
		t.Errorf("200 sequential jobs ran on %d goroutines, want them reused", len(ids))
	}

	done := make(chan struct{})
	w.do(func() { defer close(done); panic("boom") })
	<-done
	after := make(chan struct{})
	w.do(func() { close(after) })
	select {
	case <-after:
	case <-time.After(5 * time.Second):
		t.Fatal("the pool stopped after a job panicked")
	}

	stuck := make(chan struct{})
	w.do(func() { <-stuck })
	ran := make(chan struct{})
	w.do(func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("a stuck job held up the next one")
	}

	w.close()
	close(stuck)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines after close, %d before the pool", n, base)
	}
	// A closed pool still runs what it is given, on a goroutine that ends.
	late := make(chan struct{})
	w.do(func() { close(late) })
	<-late
}

// goid is the calling goroutine's id, read from its stack header.
func goid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	var id uint64
	for _, c := range buf[len("goroutine "):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
