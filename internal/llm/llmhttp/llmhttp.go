// Package llmhttp is what the OpenAI-protocol backends (chat completions and
// Responses) share at the HTTP level: an idle timer fed by every byte read,
// the response headers of a failed call (for Retry-After), connection reuse,
// and the classification of failures into messages a person can act on,
// with the API key scrubbed.
//
// It imports no agentls package but textcut (internal/layers); callers turn a Failure
// into their own error type.
package llmhttp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ErrIdle is the cancel cause when a stream stayed silent too long.
var ErrIdle = errors.New("model stream idle")

// DefaultIdleTimeout is how long a stream may stay silent before it counts
// as dead: longer for a server on this machine, which may spend minutes
// processing a long prompt on a small GPU before the first token.
func DefaultIdleTimeout(baseURL string) time.Duration {
	u, err := url.Parse(baseURL)
	if err != nil {
		return 120 * time.Second
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return 300 * time.Second
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return 300 * time.Second
	}
	return 120 * time.Second
}

// Client returns a copy of hc (nil: a client without a total timeout, since
// a long answer may legitimately stream for minutes) whose transport feeds
// the Call found in each request's context.
func Client(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		cp := *hc
		c = &cp
	}
	base := c.Transport
	if base == nil {
		base = defaultTransport()
	}
	c.Transport = transport{base: base}
	return c
}

// defaultTransport is http.DefaultTransport with a write buffer that holds
// a whole request of most conversations (64 KiB). With the default 4 KiB,
// every request went out in two writes, and the second through the
// connection's ReadFrom, which allocates a 32 KiB copy buffer each time.
// The buffer lives as long as its connection. The tasks of a language
// server share this transport, up to sessions.maxConcurrent (at most 64)
// at once on one host: with the default two idle connections a host, the
// third and fourth task dialled (TCP and TLS) before every request, 100
// connections for 404 requests of four tasks (BenchmarkEditorLatency,
// model-conns).
var defaultTransport = sync.OnceValue(func() http.RoundTripper {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t = t.Clone()
	t.WriteBufferSize = 64 << 10
	t.MaxIdleConnsPerHost = 64
	return t
})

// DefaultBaseURL is OpenAI's API root, for backends given none.
const DefaultBaseURL = "https://api.openai.com/v1"

type callKey struct{}

// Call is what the transport saw of one model call.
type Call struct {
	Model  string
	Header http.Header // response headers; nil until they arrived

	idle   time.Duration
	timer  *time.Timer
	cancel context.CancelCauseFunc
	body   io.Reader
}

// Begin starts a call: the returned context is cancelled with ErrIdle when
// no byte arrives for idle, and carries the Call to the transport. End
// must be called when the stream is done.
func Begin(ctx context.Context, model string, idle time.Duration) (context.Context, *Call) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &Call{Model: model, idle: idle, cancel: cancel}
	c.timer = time.AfterFunc(idle, func() { cancel(ErrIdle) })
	return context.WithValue(ctx, callKey{}, c), c
}

// End stops the timer and releases the context.
func (c *Call) End() {
	c.timer.Stop()
	c.cancel(nil)
}

func (c *Call) touch() { c.timer.Reset(c.idle) }

// Drain reads what follows the last event (the chunked-encoding trailer) so
// the connection goes back to the pool: without it every turn would open a
// new connection, and a new TLS handshake against a remote API. The idle
// timer bounds the wait.
func (c *Call) Drain() {
	if c.body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(c.body, 64<<10))
	}
}

// transport records response headers and watches body reads for the idle
// timer. RoundTrip runs on the caller's goroutine, so Call needs no lock.
type transport struct{ base http.RoundTripper }

func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	call, _ := r.Context().Value(callKey{}).(*Call)
	resp, err := t.base.RoundTrip(r)
	if err != nil || call == nil {
		return resp, err
	}
	call.Header = resp.Header
	call.touch()
	body := idleWatchBody{ReadCloser: resp.Body, touch: call.touch}
	call.body = body
	resp.Body = body
	return resp, nil
}

// idleWatchBody resets the idle timer on every byte received, keep-alive
// comments included: a server that still talks is not dead.
type idleWatchBody struct {
	io.ReadCloser
	touch func()
}

func (b idleWatchBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.touch()
	}
	return n, err
}
