package retry

import (
	"testing"
	"time"
)

func TestBackoffHidden(t *testing.T) {
	p := Policy{Base: 100 * time.Millisecond, Max: 2 * time.Second}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 2 * time.Second, 2 * time.Second}
	for i, w := range want {
		if got := p.Backoff(i); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", i, got, w)
		}
	}
	for _, a := range []int{40, 64, 100, 1000} {
		if got := p.Backoff(a); got != p.Max {
			t.Errorf("Backoff(%d) = %v, want Max", a, got)
		}
	}
}
