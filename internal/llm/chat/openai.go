package chat

import (
	"github.com/agentls/agentls/internal/agent"

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
)

// DefaultOpenAIBaseURL is used when OpenAIConfig.BaseURL is empty.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAIConfig configures the OpenAI-compatible backend.
type OpenAIConfig struct {
	BaseURL string // the /v1 root; default DefaultOpenAIBaseURL
	APIKey  string // may be empty for local servers
	Model   string // used when Request.Model is empty
	// IdleTimeout aborts a stream that sent no byte for this long; zero
	// means DefaultIdleTimeout(BaseURL).
	IdleTimeout time.Duration
	// HTTPClient is copied, never modified; nil means a client without a
	// total timeout (a long answer may legitimately stream for minutes).
	HTTPClient *http.Client
	MaxTokens  int // 0: the server's default
}

// String keeps the API key out of logs that print the config.
func (c OpenAIConfig) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "[redacted]"
	}
	return fmt.Sprintf("{BaseURL:%s Model:%s APIKey:%s IdleTimeout:%s MaxTokens:%d}", c.BaseURL, c.Model, key, c.IdleTimeout, c.MaxTokens)
}

// GoString does the same for %#v.
func (c OpenAIConfig) GoString() string { return "agent.OpenAIConfig" + c.String() }

// OpenAI is an LLM served by any OpenAI-compatible chat completions API
// (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter...).
type OpenAI struct {
	cfg    OpenAIConfig
	client *openai.Client
	idle   time.Duration
}

var _ agent.LLM = (*OpenAI)(nil)

// NewOpenAI returns a backend for cfg. It makes no request.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultOpenAIBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	idle := cfg.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout(cfg.BaseURL)
	}

	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = openAITransport{base: base}

	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = hc
	// SSE comments (keep-alives during long prompt processing) count as
	// "empty messages"; the default 300 aborts healthy streams. Dead streams
	// are caught by the idle timer instead.
	oc.EmptyMessagesLimit = 1 << 20
	return &OpenAI{cfg: cfg, client: openai.NewClientWithConfig(oc), idle: idle}
}

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

// keyHint says where the key comes from, in the order it is looked up.
const keyHint = "set AGENTLS_API_KEY or OPENAI_API_KEY, or llm.apiKey in the configuration"

// errStreamIdle is the cancel cause when the idle timer fires.
var errStreamIdle = errors.New("model stream idle")

// Stream sends req and streams the answer; see LLM. On error the Response
// holds what had arrived, which matters when the error is Partial.
func (o *OpenAI) Stream(ctx context.Context, req agent.Request, onText func(delta string)) (agent.Response, error) {
	creq, err := o.chatRequest(req)
	if err != nil {
		return agent.Response{}, err
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(o.idle, func() { cancel(errStreamIdle) })
	defer idle.Stop()
	call := &openAICall{model: creq.Model, touch: func() { idle.Reset(o.idle) }}
	ctx = context.WithValue(ctx, openAICallKey{}, call)

	acc := newStreamAccumulator()
	stream, err := o.client.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return agent.Response{}, o.classify(parent, ctx, call, err, false)
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) && context.Cause(ctx) == nil {
			break
		}
		if err != nil {
			return acc.response(req), o.classify(parent, ctx, call, err, acc.partial)
		}
		acc.add(chunk, onText)
	}
	call.drain()
	if acc.chunks == 0 {
		return agent.Response{}, &agent.LLMError{Retryable: true, Message: "stream from " + o.cfg.BaseURL + " ended before any chunk"}
	}
	if acc.finish == "" {
		return acc.response(req), o.unfinished(acc.partial)
	}
	return acc.response(req), nil
}

// errUnfinished is a stream that ended as if complete but never said why
// it stopped (no finish_reason): a proxy or server that dropped the rest.
var errUnfinished = errors.New("stream ended without a finish reason")

// unfinished classifies a stream that closed cleanly without a finish
// reason. It is broken, whatever the transport says: before any text it is
// retried like a reset; after text the answer is cut off, and a retry would
// repeat what the person already saw.
func (o *OpenAI) unfinished(partial bool) error {
	msg := "the stream from " + o.cfg.BaseURL + " ended without a finish reason: the answer is incomplete"
	if partial {
		msg += " (after part of the answer had streamed)"
	}
	return &agent.LLMError{Retryable: !partial, Partial: partial, Message: msg, Err: errUnfinished}
}

// usesCompletionTokens tells reasoning models, for which go-openai rejects
// MaxTokens before sending.
func usesCompletionTokens(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// openAINoOutput replaces an empty tool result: go-openai drops an empty
// content (omitempty) and OpenAI then rejects the request.
const openAINoOutput = "(no output)"

func (o *OpenAI) chatRequest(req agent.Request) (openai.ChatCompletionRequest, error) {
	model := req.Model
	if model == "" {
		model = o.cfg.Model
	}
	if model == "" {
		return openai.ChatCompletionRequest{}, &agent.LLMError{Message: "no model configured (set llm.model or AGENTLS_MODEL)"}
	}
	cr := openai.ChatCompletionRequest{
		Model:         model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if o.cfg.MaxTokens > 0 {
		if usesCompletionTokens(model) {
			cr.MaxCompletionTokens = o.cfg.MaxTokens
		} else {
			cr.MaxTokens = o.cfg.MaxTokens
		}
	}
	for _, m := range req.Messages {
		cm := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
		switch m.Role {
		case agent.RoleAssistant:
			for _, c := range m.ToolCalls {
				args := c.Arguments
				if args == "" {
					args = "{}" // an absent arguments field is a 400 too
				}
				cm.ToolCalls = append(cm.ToolCalls, openai.ToolCall{
					ID: c.ID, Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: c.Name, Arguments: args},
				})
			}
		case agent.RoleTool:
			// The name field is left out: OpenAI's tool message has none.
			cm.ToolCallID = m.ToolCallID
			if cm.Content == "" {
				cm.Content = openAINoOutput
			}
		}
		cr.Messages = append(cr.Messages, cm)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		cr.Tools = append(cr.Tools, openai.Tool{
			Type:     openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	return cr, nil
}

// streamAccumulator assembles a streamed answer.
type streamAccumulator struct {
	text    strings.Builder
	calls   []agent.ToolCall
	byIndex map[int]int // tool call index on the wire → position in calls
	last    int         // position of the call the last delta went to
	finish  string
	usage   *openai.Usage
	chunks  int
	partial bool // a text or tool delta arrived: a retry would duplicate it
}

func newStreamAccumulator() *streamAccumulator {
	return &streamAccumulator{byIndex: map[int]int{}, last: -1}
}

func (a *streamAccumulator) add(ch openai.ChatCompletionStreamResponse, onText func(string)) {
	a.chunks++
	if ch.Usage != nil {
		a.usage = ch.Usage
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue // we ask for one choice; ignore servers that send more
		}
		for _, text := range []string{c.Delta.Content, c.Delta.Refusal} {
			if text == "" {
				continue
			}
			a.partial = true
			a.text.WriteString(text)
			if onText != nil {
				onText(text)
			}
		}
		for _, tc := range c.Delta.ToolCalls {
			a.partial = true
			a.addToolDelta(tc)
		}
		if c.FinishReason != "" {
			a.finish = string(c.FinishReason)
		}
	}
}

// addToolDelta merges one tool call fragment. OpenAI numbers calls by index
// and sends the id once; Ollama puts every call on index 0 and marks a new
// one only by a new id; some servers send no index at all.
func (a *streamAccumulator) addToolDelta(tc openai.ToolCall) {
	pos := a.last
	if tc.Index != nil {
		p, ok := a.byIndex[*tc.Index]
		pos = -1
		if ok {
			pos = p
		}
	}
	if pos >= 0 && tc.ID != "" && a.calls[pos].ID != "" && a.calls[pos].ID != tc.ID {
		pos = -1
	}
	if pos < 0 {
		a.calls = append(a.calls, agent.ToolCall{})
		pos = len(a.calls) - 1
	}
	if tc.Index != nil {
		a.byIndex[*tc.Index] = pos
	}
	a.last = pos
	c := &a.calls[pos]
	if c.ID == "" {
		c.ID = tc.ID
	}
	if c.Name == "" {
		c.Name = tc.Function.Name // set once: some servers repeat it in every fragment
	}
	c.Arguments += tc.Function.Arguments
}

func (a *streamAccumulator) response(req agent.Request) agent.Response {
	r := agent.Response{Content: a.text.String(), FinishReason: a.finish}
	for i, c := range a.calls {
		if c.ID == "" {
			// The result must name its call; invent an id the server never
			// sent so the next request stays well formed.
			c.ID = fmt.Sprintf("call_%d", i)
		}
		r.ToolCalls = append(r.ToolCalls, c)
	}
	if a.usage != nil {
		r.Usage = agent.Usage{InputTokens: a.usage.PromptTokens, OutputTokens: a.usage.CompletionTokens}
	} else {
		r.Usage = estimateOpenAIUsage(req, r)
	}
	return r
}

// estimateOpenAIUsage guesses four bytes per token for servers that report none.
func estimateOpenAIUsage(req agent.Request, r agent.Response) agent.Usage {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content) + 4
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	out := len(r.Content)
	for _, c := range r.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	return agent.Usage{InputTokens: (in + 3) / 4, OutputTokens: (out + 3) / 4, Estimated: true}
}

// openAICallKey carries a *openAICall from Stream to openAITransport.
type openAICallKey struct{}

// openAICall is what the transport saw of one call. go-openai exposes no
// response headers on errors, so Retry-After is captured here.
type openAICall struct {
	model  string
	header http.Header
	touch  func() // resets the idle timer
	body   io.Reader
}

// drain reads what follows [DONE] (the chunked-encoding trailer) so the
// connection goes back to the pool: without it every turn would open a new
// connection, and a new TLS handshake against a remote API. The idle timer
// bounds the wait.
func (c *openAICall) drain() {
	if c.body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(c.body, 64<<10))
	}
}

// openAITransport records response headers and watches body reads for the
// idle timer. RoundTrip runs on the caller's goroutine, so openAICall needs
// no lock.
type openAITransport struct{ base http.RoundTripper }

func (t openAITransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	call, _ := r.Context().Value(openAICallKey{}).(*openAICall)
	if err != nil || call == nil {
		return resp, err
	}
	call.header = resp.Header
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

// classify turns an error of the stream into an *LLMError, or into the
// context error when the caller cancelled.
func (o *OpenAI) classify(parent, ctx context.Context, call *openAICall, err error, partial bool) error {
	if parent.Err() != nil {
		return fmt.Errorf("model stream cancelled: %w", context.Cause(parent))
	}
	e := &agent.LLMError{Partial: partial, Err: scrubKey(err, o.cfg.APIKey)}
	retryable := false
	switch {
	case errors.Is(context.Cause(ctx), errStreamIdle):
		e.Err = errStreamIdle
		e.Message = fmt.Sprintf("model stream idle for %s (no data from %s)", o.idle, o.cfg.BaseURL)
		retryable = true
	case openAIStatus(err) != 0:
		e.Status = openAIStatus(err)
		e.Message, retryable = o.statusMessage(e.Status, openAIServerMessage(err), call.model)
		if call.header != nil {
			e.RetryAfter = parseRetryAfter(call.header, time.Now())
		}
	default:
		e.Message, retryable = o.transportMessage(err)
	}
	if partial {
		e.Message += " (after part of the answer had streamed)"
	}
	e.Retryable = retryable && !partial
	e.Message = redactKey(e.Message, o.cfg.APIKey)
	return e
}

func openAIStatus(err error) int {
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

// openAIServerMessage is the server's own words, trimmed to something readable.
func openAIServerMessage(err error) string {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Message
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		body := strings.TrimSpace(string(reqErr.Body))
		if len(body) > 300 {
			body = body[:300] + "…"
		}
		return body
	}
	return err.Error()
}

func (o *OpenAI) statusMessage(status int, msg, model string) (string, bool) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	switch {
	case status == http.StatusUnauthorized:
		// The server's message may quote the key: never pass it on.
		if o.cfg.APIKey == "" {
			return "no API key configured, and " + o.cfg.BaseURL + " requires one (" + keyHint + ")", false
		}
		return "API key rejected by " + o.cfg.BaseURL + " (" + keyHint + ")", false
	case status == http.StatusForbidden:
		return "access denied by " + o.cfg.BaseURL + ": " + msg, false
	case status == http.StatusNotFound:
		return fmt.Sprintf("model '%s' not found at %s (or the endpoint is wrong): %s", model, o.cfg.BaseURL, msg), false
	case status == http.StatusRequestTimeout:
		return "request timed out at " + o.cfg.BaseURL + ": " + msg, true
	case status == http.StatusTooManyRequests:
		return "rate limited by " + o.cfg.BaseURL + ": " + msg, true
	case status >= 500:
		return fmt.Sprintf("server error from %s: %s", o.cfg.BaseURL, msg), true
	default:
		return msg, false
	}
}

func (o *OpenAI) transportMessage(err error) (string, bool) {
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
		return "cannot connect to " + o.cfg.BaseURL + ": connection refused (is the server running?)", false
	case errors.As(err, &dnsErr):
		return "cannot resolve the host of " + o.cfg.BaseURL + ": " + dnsErr.Err, false
	case errors.As(err, &apiErr):
		// An error event inside a 200 stream: the server gave up mid-answer.
		return "server error from " + o.cfg.BaseURL + ": " + apiErr.Message, true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection to " + o.cfg.BaseURL + " lost: " + err.Error(), true
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return "stream from " + o.cfg.BaseURL + " sent only empty messages", true
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr):
		return "malformed stream chunk from " + o.cfg.BaseURL + ": " + err.Error(), false
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return "network timeout talking to " + o.cfg.BaseURL + ": " + err.Error(), true
	}
	if urlErr != nil {
		return "request to " + o.cfg.BaseURL + " failed: " + err.Error(), false
	}
	// Left: go-openai refusing the request before sending it (model and
	// parameter checks).
	return "request not sent: " + err.Error(), false
}

// parseRetryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms; 0 when absent or unreadable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
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

func redactKey(s, key string) string {
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
		c.Message = redactKey(c.Message, key)
		if !strings.Contains(c.Error(), key) {
			return &c
		}
	}
	return errors.New(redactKey(err.Error(), key))
}
