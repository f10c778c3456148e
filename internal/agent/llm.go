package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Role of a conversation message, as in the OpenAI chat API.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation. It is backend-neutral: the
// OpenAI backend converts it to the wire form.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`  // assistant messages
	ToolCallID string     `json:"toolCallId,omitempty"` // tool messages
	Name       string     `json:"name,omitempty"`       // tool messages: the tool's name
	// Reasoning holds the reasoning items (opaque JSON, encrypted by the
	// provider) that preceded an assistant turn on the Responses API,
	// replayed before it so the model keeps its reasoning across turns.
	Reasoning []json.RawMessage `json:"reasoning,omitempty"`
	// Images go with a user message: the task's, for a model that takes
	// images. Absent, the message encodes as it always did.
	Images []Image `json:"images,omitempty"`
}

// Image is a picture the user gave with the task: its MIME type (one of
// ImageTypes) and its bytes in standard base64.
type Image struct {
	MIME string `json:"mime"`
	Data string `json:"data"`
	Name string `json:"name,omitempty"` // a file name or URI, for notes
}

// ImageTypes are the image formats the OpenAI-compatible APIs take.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Limits of the images one prompt carries.
const (
	MaxImages     = 4
	MaxImageBytes = 5 << 20 // decoded
)

// DataURL is the image as a data: URL, the form the APIs take.
func (im Image) DataURL() string { return "data:" + im.MIME + ";base64," + im.Data }

// Size is the image's decoded size in bytes, from its base64 length.
func (im Image) Size() int {
	n := len(im.Data) / 4 * 3
	for i := len(im.Data) - 1; i >= 0 && im.Data[i] == '='; i-- {
		n--
	}
	return n
}

// Note is how a record names the image without its data:
// "[image: name, 123 KB]".
func (im Image) Note() string {
	name := im.Name
	if name == "" {
		name = im.MIME
	}
	return fmt.Sprintf("[image: %s, %d KB]", name, (im.Size()+1023)/1024)
}

// WithoutImages returns msgs with every image replaced by its note at the
// end of the message's text, for records that must not hold the data
// (session files, recorded conversations). msgs without images come back
// as they are.
func WithoutImages(msgs []Message) []Message {
	out := msgs
	copied := false
	for i := range msgs {
		if len(msgs[i].Images) == 0 {
			continue
		}
		if !copied {
			out = append([]Message(nil), msgs...)
			copied = true
		}
		m := &out[i]
		for _, im := range m.Images {
			m.Content += "\n" + im.Note()
		}
		m.Images = nil
	}
	return out
}

// ToolCall is one call the model asked for. Arguments is the raw JSON text the
// model produced; it may be invalid, and tools must cope.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Freeform marks a tool whose one argument, the string "input", a
	// backend may take as free text (a custom tool on the Responses API:
	// apply_patch, as the models trained on it call it). Calls still carry
	// the arguments {"input": …}.
	Freeform bool `json:"freeform,omitempty"`
	// Grammar is a freeform tool's language as a Lark grammar, which a
	// backend that can (the Responses API's custom tool format) holds the
	// model's sampling to; "": free text.
	Grammar string `json:"grammar,omitempty"`
}

// Usage counts tokens for one model call or a whole task.
type Usage struct {
	InputTokens  int  `json:"inputTokens"`
	OutputTokens int  `json:"outputTokens"`
	Estimated    bool `json:"estimated,omitempty"` // true when the server sent no usage
	// ReasoningTokens is the part of OutputTokens the model spent
	// reasoning, when the server reports it (the Responses API does).
	ReasoningTokens int `json:"reasoningTokens,omitempty"`
}

// Cost is what u costs in USD at the prices per million input and
// output tokens.
func (u Usage) Cost(priceInput, priceOutput float64) float64 {
	return (float64(u.InputTokens)*priceInput + float64(u.OutputTokens)*priceOutput) / 1e6
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:  u.InputTokens + v.InputTokens,
		OutputTokens: u.OutputTokens + v.OutputTokens,
		Estimated:    u.Estimated || v.Estimated,

		ReasoningTokens: u.ReasoningTokens + v.ReasoningTokens,
	}
}

// Request is one model call.
type Request struct {
	Model    string     `json:"model"`
	Messages []Message  `json:"messages"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// CacheKey is the same for every request of a session, so a provider
	// that routes by it (the Responses API's prompt_cache_key) finds the
	// cached prefix; "": none.
	CacheKey string `json:"cacheKey,omitempty"`
}

// Response is what a finished model stream produced.
type Response struct {
	Content      string     `json:"content"`
	ToolCalls    []ToolCall `json:"toolCalls,omitempty"`
	Usage        Usage      `json:"usage"`
	FinishReason string     `json:"finishReason,omitempty"`
	// Reasoning holds the response's reasoning items (Responses API).
	Reasoning []json.RawMessage `json:"reasoning,omitempty"`
	// Changed lists the files the turn itself changed (workspace-relative):
	// an external agent's turn, whose tools ran before it ended. They join
	// the task's changed files, which the verify gate checks.
	Changed []string `json:"changed,omitempty"`
}

// LLM is a chat model that streams. Stream calls onText for each text delta
// as it arrives and returns the whole response when the stream ends.
// Cancelling ctx must abort the underlying HTTP stream.
type LLM interface {
	Stream(ctx context.Context, req Request, onText func(delta string)) (Response, error)
}

// LLMError is an error from a model backend, classified so the state machine
// can decide whether to retry.
type LLMError struct {
	Status     int           // HTTP status, 0 for transport errors
	Retryable  bool          // 408, 429, 5xx, connection resets, idle streams
	RetryAfter time.Duration // from a Retry-After header, 0 if none
	Partial    bool          // some of the response had already streamed
	Message    string        // what a person can act on; never contains the API key
	Err        error
}

func (e *LLMError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("model error (HTTP %d): %s", e.Status, e.Message)
	}
	return "model error: " + e.Message
}

func (e *LLMError) Unwrap() error { return e.Err }
