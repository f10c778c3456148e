package llmhttp

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After": "Sat, 21 Nov 2026 12:00:30 GMT"}, 30 * time.Second},
		{map[string]string{"Retry-After": "Sat, 21 Nov 2026 11:00:00 GMT"}, 0}, // in the past
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := RetryAfter(h, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
