package llmhttp

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
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
		if got := retryAfter(h, now); got != tt.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestDefaultIdleTimeout(t *testing.T) {
	tests := []struct {
		url  string
		want time.Duration
	}{
		{"https://api.openai.com/v1", 120 * time.Second},
		{"http://localhost:11434/v1", 300 * time.Second},
		{"http://127.0.0.1:8080/v1", 300 * time.Second},
		{"http://127.3.2.1/v1", 300 * time.Second},
		{"http://[::1]:8000/v1", 300 * time.Second},
		{"http://192.168.1.20:11434/v1", 120 * time.Second},
		{"http://localhost.example.com/v1", 120 * time.Second},
		{"::not a url", 120 * time.Second},
	}
	for _, tt := range tests {
		if got := DefaultIdleTimeout(tt.url); got != tt.want {
			t.Errorf("DefaultIdleTimeout(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

// A long error body from the server is cut on a character boundary: the
// cap falls inside an "é" after the leading "x".
func TestServerMessageKeepsWholeCharacters(t *testing.T) {
	body := "x" + strings.Repeat("é", 400)
	got := serverMessage(&openai.RequestError{HTTPStatusCode: 500, Body: []byte(body)})
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "xéé") || !strings.HasSuffix(got, "…") {
		t.Errorf("message cut a character: %q", got)
	}
}
