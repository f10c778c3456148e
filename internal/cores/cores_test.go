package cores

import (
	"runtime"
	"sync"
	"testing"
)

func TestBorrowWithoutLeanChangesNothing(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	release := Borrow()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS = %d while borrowed without Lean, want %d", got, before)
	}
	release()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS = %d after release, want %d", got, before)
	}
}

func TestLeanAndOverlappingBorrowers(t *testing.T) {
	def := runtime.GOMAXPROCS(0)
	t.Cleanup(func() {
		mu.Lock()
		lean = false
		mu.Unlock()
		runtime.SetDefaultGOMAXPROCS()
	})
	Lean()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS = %d after Lean, want 1", got)
	}
	a := Borrow()
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Errorf("GOMAXPROCS = %d while borrowed, want the default %d", got, def)
	}
	b := Borrow()
	a()
	a() // a second release is a no-op, not b's
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Errorf("GOMAXPROCS = %d with one borrower left, want %d", got, def)
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS = %d after the last release, want 1", got)
	}
	// Many at once, as parallel read-only tools do.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { Borrow()() })
	}
	wg.Wait()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS = %d after concurrent borrowers, want 1", got)
	}
}
