// Package fakellm is a scripted OpenAI-compatible chat server for tests and
// demos. It listens on real loopback HTTP and streams real SSE, so the code
// under test runs its production HTTP client, and it can misbehave on cue
// (errors, broken or idle streams, keep-alives, quirks of other servers).
//
// A script is a list of turns; each chat completion request answers with the
// next turn. The package depends on nothing else in agentls so that any test
// — unit, end-to-end or editor — can use it.
package fakellm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Script is a scripted conversation: request i gets Turns[i].
type Script struct {
	Turns []Turn `json:"turns"`
	// Conversations, when set, answer instead of Turns: a request is
	// answered from the conversation whose key its first user message
	// contains, with the turn its number of assistant messages gives.
	// Nothing depends on the order of requests, so several agents (or
	// one that starts over) can share one server.
	Conversations map[string][]Turn `json:"conversations,omitempty"`
	// Models is what GET /v1/models lists; default ["fake-model"].
	Models []string `json:"models,omitempty"`
	// Asides answer, out of the script's order and as often as asked,
	// the requests their Expect matches (each must have one): requests a
	// test does not sequence, such as a health check's probe sent
	// whenever an editor's :checkhealth runs. They take no turn.
	Asides []Turn `json:"asides,omitempty"`
}

// Turn is one scripted model answer, or one scripted failure.
type Turn struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Usage is reported as is; nil means a rough estimate from the sizes.
	Usage *Usage `json:"usage,omitempty"`
	// OmitUsage ignores stream_options.include_usage, as some servers do.
	OmitUsage bool `json:"omitUsage,omitempty"`
	// ChunkSize is the number of bytes per text or argument delta (default
	// 8). Deltas never split a UTF-8 sequence.
	ChunkSize    int `json:"chunkSize,omitempty"`
	DelayMs      int `json:"delayMs,omitempty"`      // before the response headers
	ChunkDelayMs int `json:"chunkDelayMs,omitempty"` // between two SSE events
	// Error answers with an HTTP error in OpenAI's JSON shape instead.
	Error *ErrorReply `json:"error,omitempty"`
	// BreakAfter closes the connection abruptly after that many SSE events
	// (0: right after the headers). The role preamble counts as an event.
	BreakAfter *int `json:"breakAfter,omitempty"`
	// EndAfter ends the response cleanly (a proper end of the HTTP body)
	// after that many SSE events, without the rest: on chat completions no
	// finish reason or [DONE], on /v1/responses no response.completed. A
	// stream that stops as if it had finished.
	EndAfter *int `json:"endAfter,omitempty"`
	// StallMs pauses the stream for that long after StallAfter events
	// (default 1, i.e. after the role preamble), then goes on.
	StallMs    int  `json:"stallMs,omitempty"`
	StallAfter *int `json:"stallAfter,omitempty"`
	// Reset closes the TCP connection (with RST) without any response.
	Reset bool `json:"reset,omitempty"`
	// Quirk imitates a non-OpenAI server; see the Quirk constants.
	Quirk string `json:"quirk,omitempty"`
	// KeepAlive sends that many SSE comment lines before the first event.
	KeepAlive int `json:"keepAlive,omitempty"`
	// FinishReason overrides the finish reason ("stop" or "tool_calls").
	FinishReason string  `json:"finishReason,omitempty"`
	Expect       *Expect `json:"expect,omitempty"`
	// Reasoning are the encrypted contents of reasoning items that open
	// the output on /v1/responses (ignored on chat completions).
	Reasoning []string `json:"reasoning,omitempty"`
	// StreamError replaces the final event by a failure inside the 200
	// stream: response.failed, or a bare error event when its Type is
	// "error". /v1/responses only.
	StreamError *ErrorReply `json:"streamError,omitempty"`
}

// Quirks of OpenAI-compatible servers that clients must survive.
const (
	// QuirkOllama puts every tool call on index 0; a new call is marked only
	// by a new id.
	QuirkOllama = "ollama"
	// QuirkNoIndex sends tool call deltas without an index field.
	QuirkNoIndex = "noIndex"
	// QuirkStopWithTools ends with finish_reason "stop" although tool calls
	// were sent (vLLM, SGLang).
	QuirkStopWithTools = "stopWithTools"
)

// ToolCall is a scripted tool call. Arguments is raw JSON text, streamed in
// fragments.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is token usage in OpenAI's field names.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens,omitempty"`
	// ReasoningTokens is reported by /v1/responses only (in
	// output_tokens_details); they are part of CompletionTokens.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// ErrorReply is a scripted HTTP error.
type ErrorReply struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
	// RetryAfter is sent verbatim as the Retry-After header: seconds or an
	// HTTP date.
	RetryAfter string `json:"retryAfter,omitempty"`
	Type       string `json:"type,omitempty"` // default derived from Status
	Code       string `json:"code,omitempty"`
}

// Expect asserts what the request carried, so a script that drifted from the
// code fails with a message saying where, instead of answering nonsense.
type Expect struct {
	LastUserContains string `json:"lastUserContains,omitempty"`
	LastToolContains string `json:"lastToolContains,omitempty"`
}

// Load reads a script file.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fakellm: load script: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("fakellm: %s: %w", path, err)
	}
	return s, nil
}

// Parse decodes a script. Unknown fields are errors: a misspelt option
// would otherwise silently do nothing.
func Parse(data []byte) (*Script, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("parse script: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate reports options that cannot work.
func (s *Script) Validate() error {
	var errs []error
	for i, a := range s.Asides {
		if a.Expect == nil || *a.Expect == (Expect{}) {
			errs = append(errs, fmt.Errorf("aside %d: needs an expect, or it would answer every request", i))
		}
	}
	for i, t := range s.Turns {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("turn %d: %s", i, fmt.Sprintf(format, args...)))
		}
		switch t.Quirk {
		case "", QuirkOllama, QuirkNoIndex, QuirkStopWithTools:
		default:
			bad("unknown quirk %q", t.Quirk)
		}
		if t.Error != nil && (t.Error.Status < 400 || t.Error.Status > 599) {
			bad("error status %d is not an HTTP error", t.Error.Status)
		}
		if t.ChunkSize < 0 || t.DelayMs < 0 || t.ChunkDelayMs < 0 || t.StallMs < 0 || t.KeepAlive < 0 {
			bad("negative size, delay or count")
		}
		if t.BreakAfter != nil && *t.BreakAfter < 0 || t.StallAfter != nil && *t.StallAfter < 0 || t.EndAfter != nil && *t.EndAfter < 0 {
			bad("negative breakAfter, stallAfter or endAfter")
		}
		for j, c := range t.ToolCalls {
			if c.Name == "" {
				bad("tool call %d has no name", j)
			}
		}
	}
	return errors.Join(errs...)
}
