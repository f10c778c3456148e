package chat

import (
	"context"
	"encoding/json"
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

// DefaultOpenAIBaseURL is used when OpenAIConfig.BaseURL is empty.
const DefaultOpenAIBaseURL = llmhttp.DefaultBaseURL

// OpenAIConfig configures the OpenAI-compatible backend.
type OpenAIConfig struct {
	BaseURL string // the /v1 root; default DefaultOpenAIBaseURL
	APIKey  string // may be empty for local servers
	Model   string // used when Request.Model is empty
	// IdleTimeout aborts a stream that sent no byte for this long; zero
	// means llmhttp.DefaultIdleTimeout(BaseURL).
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
	cfg  OpenAIConfig
	http *http.Client // feeds the idle timer of each call (llmhttp)
	auth string       // the Authorization header; empty without a key
	ep   llmhttp.Endpoint
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
		idle = llmhttp.DefaultIdleTimeout(cfg.BaseURL)
	}
	o := &OpenAI{cfg: cfg, http: llmhttp.Client(cfg.HTTPClient),
		ep: llmhttp.Endpoint{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Idle: idle}}
	if cfg.APIKey != "" {
		o.auth = "Bearer " + cfg.APIKey
	}
	return o
}

// Stream sends req and streams the answer; see LLM. On error the Response
// holds what had arrived, which matters when the error is Partial.
func (o *OpenAI) Stream(ctx context.Context, req agent.Request, onText func(delta string)) (agent.Response, error) {
	creq, body, err := o.encodeRequest(req)
	if err != nil {
		return agent.Response{}, err
	}
	parent := ctx
	ctx, call := llmhttp.Begin(ctx, creq.Model, o.ep.Idle)
	defer call.End()
	if err := validateChat(creq); err != nil {
		return agent.Response{}, o.classify(parent, ctx, call, err, false)
	}

	acc := newStreamAccumulator()
	resp, err := o.post(ctx, body)
	if err != nil {
		return agent.Response{}, o.classify(parent, ctx, call, err, false)
	}
	defer resp.Body.Close()
	events := newSSEReader(resp.Body)
	defer events.release()
	for {
		var ch chunk
		data, err := events.next()
		if errors.Is(err, io.EOF) && context.Cause(ctx) == nil {
			break
		}
		if err == nil {
			err = json.Unmarshal(data, &ch)
		}
		if err != nil {
			return acc.response(req), o.classify(parent, ctx, call, err, acc.partial)
		}
		acc.add(&ch, onText)
	}
	call.Drain()
	if acc.chunks == 0 {
		return agent.Response{}, fail(o.ep.Broken("ended before any chunk", false))
	}
	if acc.finish == "" {
		// Closed cleanly without a finish reason: a proxy or server that
		// dropped the rest. Broken, whatever the transport says: retried
		// like a reset before any text; after text the answer is cut off,
		// and a retry would repeat what the person already saw.
		return acc.response(req), fail(o.ep.Broken("ended without a finish reason: the answer is incomplete", acc.partial))
	}
	return acc.response(req), nil
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
			//lint:ignore SA1019 local and older servers know only max_tokens
			cr.MaxTokens = o.cfg.MaxTokens
		}
	}
	for i := range req.Messages {
		cr.Messages = append(cr.Messages, openAIMessage(&req.Messages[i]))
	}
	if len(req.Tools) > 0 {
		cr.Tools = openAITools(req.Tools)
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
	usage   *chunkUsage
	chunks  int
	partial bool // a text or tool delta arrived: a retry would duplicate it
}

func newStreamAccumulator() *streamAccumulator {
	return &streamAccumulator{byIndex: map[int]int{}, last: -1}
}

func (a *streamAccumulator) add(ch *chunk, onText func(string)) {
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
			a.finish = c.FinishReason
		}
	}
}

// addToolDelta merges one tool call fragment. OpenAI numbers calls by index
// and sends the id once; Ollama puts every call on index 0 and marks a new
// one only by a new id; some servers send no index at all.
func (a *streamAccumulator) addToolDelta(tc toolDelta) {
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

// classify turns an error of the stream into an *LLMError, or into the
// context error when the caller cancelled.
func (o *OpenAI) classify(parent, ctx context.Context, call *llmhttp.Call, err error, partial bool) error {
	f, cancelled := o.ep.Classify(parent, ctx, call, err, partial)
	if cancelled != nil {
		return cancelled
	}
	return fail(f)
}

func fail(f llmhttp.Failure) error {
	return &agent.LLMError{Status: f.Status, Retryable: f.Retryable, RetryAfter: f.RetryAfter, Partial: f.Partial, Message: f.Message, Err: f.Err}
}
