// Package responses is a model backend for OpenAI's Responses API
// (POST /v1/responses), which some models (GPT-6, codex) need for tool calls.
// It keeps the history itself: every call sends the whole conversation with
// store false and no previous_response_id, as the chat backend does.
//
// It uses go-openai's Responses stream (the library the chat backend uses),
// so both share one HTTP layer (internal/llm/llmhttp): idle timer,
// Retry-After, error messages, key scrubbing.
package responses

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/llm/llmhttp"
)

// Config configures the backend.
type Config struct {
	BaseURL string // the /v1 root; default https://api.openai.com/v1
	APIKey  string // may be empty for local servers
	Model   string // used when Request.Model is empty
	// ReasoningEffort is sent as reasoning.effort when set (none, minimal,
	// low, medium, high, xhigh, max: what the model accepts).
	ReasoningEffort string
	// IdleTimeout aborts a stream that sent no byte for this long; zero
	// means llmhttp.DefaultIdleTimeout(BaseURL).
	IdleTimeout time.Duration
	// HTTPClient is copied, never modified; nil means no total timeout.
	HTTPClient *http.Client
	MaxTokens  int // max_output_tokens; 0: the server's default
}

// String keeps the API key out of logs that print the config.
func (c Config) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "[redacted]"
	}
	return fmt.Sprintf("{BaseURL:%s Model:%s APIKey:%s ReasoningEffort:%s IdleTimeout:%s MaxTokens:%d}",
		c.BaseURL, c.Model, key, c.ReasoningEffort, c.IdleTimeout, c.MaxTokens)
}

// GoString does the same for %#v.
func (c Config) GoString() string { return "responses.Config" + c.String() }

// Backend streams from a Responses API endpoint.
type Backend struct {
	cfg    Config
	client *openai.Client
	ep     llmhttp.Endpoint
}

var _ agent.LLM = (*Backend)(nil)

// New returns a backend for cfg. It makes no request.
func New(cfg Config) *Backend {
	if cfg.BaseURL == "" {
		cfg.BaseURL = llmhttp.DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	idle := cfg.IdleTimeout
	if idle <= 0 {
		idle = llmhttp.DefaultIdleTimeout(cfg.BaseURL)
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	hc := llmhttp.Client(cfg.HTTPClient)
	hc.Transport = reasoningTransport{base: hc.Transport}
	oc.HTTPClient = hc
	// Every event line ("event: …") counts as an empty message in
	// go-openai's reader; dead streams are caught by the idle timer.
	oc.EmptyMessagesLimit = 1 << 20
	return &Backend{
		cfg:    cfg,
		client: openai.NewClientWithConfig(oc),
		ep:     llmhttp.Endpoint{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Idle: idle},
	}
}

// Stream sends req and streams the answer; see agent.LLM. On error the
// Response holds what had arrived, which matters when the error is Partial.
func (b *Backend) Stream(ctx context.Context, req agent.Request, onText func(delta string)) (agent.Response, error) {
	rreq, err := b.request(req)
	if err != nil {
		return agent.Response{}, err
	}
	parent := ctx
	ctx, call := llmhttp.Begin(ctx, rreq.Model, b.ep.Idle)
	defer call.End()
	ctx, reasoning := withCollector(ctx)

	acc := newAccumulator(onText)
	acc.reasoning = reasoning
	stream, err := b.client.CreateResponseStream(ctx, rreq)
	if err != nil {
		return agent.Response{}, b.classify(parent, ctx, call, err, false)
	}
	defer stream.Close()
	for !acc.done {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) && context.Cause(ctx) == nil {
			// A clean end of the body before the final event: a proxy
			// or server that gave up. Nothing says the answer is whole.
			return acc.response(req), fail(b.ep.Broken("ended before response.completed", acc.partial))
		}
		if err != nil {
			return acc.response(req), b.classify(parent, ctx, call, err, acc.partial)
		}
		if f := acc.add(ev); f != nil {
			return acc.response(req), fail(b.ep.StreamFailure(*f, acc.partial))
		}
	}
	call.Drain()
	return acc.response(req), nil
}

func (b *Backend) classify(parent, ctx context.Context, call *llmhttp.Call, err error, partial bool) error {
	f, cancelled := b.ep.Classify(parent, ctx, call, err, partial)
	if cancelled != nil {
		return cancelled
	}
	return fail(f)
}

func fail(f llmhttp.Failure) error {
	return &agent.LLMError{Status: f.Status, Retryable: f.Retryable, RetryAfter: f.RetryAfter, Partial: f.Partial, Message: f.Message, Err: f.Err}
}
