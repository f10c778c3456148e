package llmhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/textcut"
)

// Endpoint names the server a backend talks to, for messages.
type Endpoint struct {
	BaseURL string
	APIKey  string // only to keep it out of messages
	Idle    time.Duration
}

// Failure is a classified model error; backends copy it into their error
// type. Message never contains the API key.
type Failure struct {
	Status     int
	Retryable  bool
	RetryAfter time.Duration
	Partial    bool
	Message    string
	Err        error
}

// Classify explains err, returned by a call begun with Begin. It returns a
// non-nil cancelled error instead when the caller cancelled parent.
// A Partial failure is never retryable: a retry would repeat streamed text.
func (e Endpoint) Classify(parent, ctx context.Context, call *Call, err error, partial bool) (Failure, error) {
	if parent.Err() != nil {
		return Failure{}, fmt.Errorf("model stream cancelled: %w", context.Cause(parent))
	}
	f := Failure{Partial: partial, Err: scrubKey(err, e.APIKey)}
	retryable := false
	switch {
	case errors.Is(context.Cause(ctx), ErrIdle):
		f.Err = ErrIdle
		f.Message = fmt.Sprintf("model stream idle for %s (no data from %s)", e.Idle, e.BaseURL)
		retryable = true
	case httpStatus(err) != 0:
		f.Status = httpStatus(err)
		model := ""
		if call != nil {
			model = call.Model
		}
		f.Message, retryable = e.statusMessage(f.Status, serverMessage(err), model)
		if call != nil && call.Header != nil {
			f.RetryAfter = retryAfter(call.Header, time.Now())
		}
	default:
		f.Message, retryable = e.transportMessage(err)
	}
	e.finish(&f, retryable)
	return f, nil
}

// StreamFailure is a failure the server reported inside a 200 stream (an
// error event): the server gave up mid-answer, which is worth a retry.
func (e Endpoint) StreamFailure(msg string, partial bool) Failure {
	f := Failure{Partial: partial, Message: "server error from " + e.BaseURL + ": " + msg}
	f.Err = errors.New(redact(msg, e.APIKey))
	e.finish(&f, true)
	return f
}

// Broken is a stream that ended without its final event.
func (e Endpoint) Broken(what string, partial bool) Failure {
	f := Failure{Partial: partial, Message: "stream from " + e.BaseURL + " " + what, Err: io.ErrUnexpectedEOF}
	e.finish(&f, true)
	return f
}

func (e Endpoint) finish(f *Failure, retryable bool) {
	if f.Partial {
		f.Message += " (after part of the answer had streamed)"
	}
	f.Retryable = retryable && !f.Partial
	f.Message = redact(f.Message, e.APIKey)
}

// httpStatus is the HTTP status of a go-openai error, 0 if none.
func httpStatus(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode // 0 for an error event inside a 200 stream
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// serverMessage is the server's own words, trimmed to something readable.
func serverMessage(err error) string {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Message
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		body := strings.TrimSpace(string(reqErr.Body))
		if len(body) > 300 {
			body = textcut.Head(body, 300) + "…"
		}
		return body
	}
	return err.Error()
}

// statusMessage explains an HTTP error status and says whether a retry
// may help.
func (e Endpoint) statusMessage(status int, msg, model string) (string, bool) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	switch {
	case status == http.StatusUnauthorized:
		// The server's message may quote the key: never pass it on.
		if e.APIKey == "" {
			return "no API key configured, and " + e.BaseURL + " requires one (" + keyHint + ")", false
		}
		return "API key rejected by " + e.BaseURL + " (" + keyHint + ")", false
	case status == http.StatusForbidden:
		return "access denied by " + e.BaseURL + ": " + msg, false
	case status == http.StatusNotFound:
		return fmt.Sprintf("model '%s' not found at %s (or the endpoint is wrong): %s", model, e.BaseURL, msg), false
	case status == http.StatusRequestTimeout:
		return "request timed out at " + e.BaseURL + ": " + msg, true
	case status == http.StatusTooManyRequests:
		return "rate limited by " + e.BaseURL + ": " + msg, true
	case status >= 500:
		return fmt.Sprintf("server error from %s: %s", e.BaseURL, msg), true
	default:
		return msg, false
	}
}

// transportMessage explains an error that carries no HTTP status.
func (e Endpoint) transportMessage(err error) (string, bool) {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err // the URL is already in every message below
	}
	var dnsErr *net.DNSError
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var apiErr *openai.APIError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "cannot connect to " + e.BaseURL + ": connection refused (is the server running?)", false
	case errors.As(err, &dnsErr):
		return "cannot resolve the host of " + e.BaseURL + ": " + dnsErr.Err, false
	case errors.As(err, &apiErr):
		// An error event inside a 200 stream: the server gave up mid-answer.
		return "server error from " + e.BaseURL + ": " + apiErr.Message, true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection to " + e.BaseURL + " lost: " + err.Error(), true
	case errors.Is(err, openai.ErrReasoningToolsRequireResponses):
		return "request not sent: " + err.Error() + " (set llm.api to \"responses\" or \"auto\")", false
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return "stream from " + e.BaseURL + " sent only empty messages", true
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr):
		return "malformed stream chunk from " + e.BaseURL + ": " + err.Error(), false
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return "network timeout talking to " + e.BaseURL + ": " + err.Error(), true
	}
	if urlErr != nil {
		return "request to " + e.BaseURL + " failed: " + err.Error(), false
	}
	// Left: go-openai refusing the request before sending it (model and
	// parameter checks).
	return "request not sent: " + err.Error(), false
}

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms; 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return max(0, time.Duration(secs*float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}

// redact replaces the key in s.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// scrubKey returns err, or a copy without the API key when its text
// contains it (a server message may quote the key). Callers can still use
// errors.As for *openai.APIError.
func scrubKey(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		c := *apiErr
		c.Message = redact(c.Message, key)
		if !strings.Contains(c.Error(), key) {
			return &c
		}
	}
	return errors.New(redact(err.Error(), key))
}

// keyHint says where the key comes from, in the order it is looked up.
const keyHint = "set AGENTLS_API_KEY or OPENAI_API_KEY, or llm.apiKey in the configuration"
