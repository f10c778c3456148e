package record

// This file is over 400 lines because the recorder, the replayer and the
// divergence report share one line format that must not drift.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/textcut"
)

// A recording is JSON lines: a header, then for each model exchange a
// request line (written before the call, so a hung call is still on
// record) and a response line with the text deltas as they streamed. To
// keep a long task's recording linear in size, a request stores only the
// messages after those it shares with the previous request ("base"), and
// its tools only when they changed.
const recordingVersion = 1

type recLine struct {
	Type string `json:"type"` // header, request, response
	N    int    `json:"n,omitempty"`

	// header
	Version int       `json:"version,omitempty"`
	Time    time.Time `json:"time,omitzero"`

	// request
	Model     string           `json:"model,omitempty"`
	Base      int              `json:"base,omitempty"`
	Messages  []agent.Message  `json:"messages,omitempty"`
	Tools     []agent.ToolSpec `json:"tools,omitempty"`
	SameTools bool             `json:"sameTools,omitempty"`

	// response
	Deltas   []string        `json:"deltas,omitempty"`
	Response *agent.Response `json:"response,omitempty"`
	Error    *recError       `json:"error,omitempty"`
}

// recError is a failed exchange, enough to fail the same way on replay.
type recError struct {
	Message   string `json:"message"`
	Cancelled bool   `json:"cancelled,omitempty"` // the recorded run was cancelled here
	// Set when the error was an *LLMError, which the machine classifies.
	LLM          bool  `json:"llm,omitempty"`
	Status       int   `json:"status,omitempty"`
	Retryable    bool  `json:"retryable,omitempty"`
	RetryAfterMs int64 `json:"retryAfterMs,omitempty"`
	Partial      bool  `json:"partial,omitempty"`
}

// Recorder is an LLM that passes every call to another and writes the
// exchange to a recording, which Replayer serves again without a network.
// Redact is applied to every line written, so the API key never reaches
// the file even when a message quotes it.
type Recorder struct {
	llm    agent.LLM
	redact func(string) string

	mu        sync.Mutex
	w         io.Writer
	n         int
	prevMsgs  []agent.Message
	prevTools []agent.ToolSpec
	err       error
}

// NewRecorder records llm's exchanges to w and writes the header at once.
// redact may be nil.
func NewRecorder(llm agent.LLM, w io.Writer, redact func(string) string) *Recorder {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	r := &Recorder{llm: llm, w: w, redact: redact}
	r.mu.Lock()
	r.write(recLine{Type: "header", Version: recordingVersion, Time: time.Now().UTC()})
	r.mu.Unlock()
	return r
}

// Err is the first error writing the recording. A failed write does not
// fail the model call: the task is worth more than its recording.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// write writes one line; the caller holds r.mu.
func (r *Recorder) write(l recLine) {
	if r.err != nil {
		return
	}
	b, err := json.Marshal(l)
	if err != nil {
		r.err = fmt.Errorf("recording: %w", err)
		return
	}
	b = append([]byte(r.redact(string(b))), '\n')
	if _, err := r.w.Write(b); err != nil {
		r.err = fmt.Errorf("recording: %w", err)
	}
}

// Stream implements LLM.
func (r *Recorder) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	r.mu.Lock()
	r.n++
	n := r.n
	base := 0
	for base < len(req.Messages) && base < len(r.prevMsgs) && reflect.DeepEqual(req.Messages[base], r.prevMsgs[base]) {
		base++
	}
	line := recLine{Type: "request", N: n, Model: req.Model, Base: base, Messages: agent.WithoutImages(req.Messages[base:])} // images as notes, never their data
	if n > 1 && reflect.DeepEqual(req.Tools, r.prevTools) {
		line.SameTools = true
	} else {
		line.Tools = req.Tools
	}
	r.prevMsgs, r.prevTools = req.Messages, req.Tools
	r.write(line)
	r.mu.Unlock()

	var (
		dmu    sync.Mutex
		deltas []string
	)
	resp, err := r.llm.Stream(ctx, req, func(d string) {
		dmu.Lock()
		deltas = append(deltas, d)
		dmu.Unlock()
		onText(d)
	})
	out := recLine{Type: "response", N: n, Deltas: deltas, Response: &resp}
	if err != nil {
		re := &recError{Message: err.Error(), Cancelled: ctx.Err() != nil}
		var le *agent.LLMError
		if errors.As(err, &le) {
			re.LLM, re.Status, re.Retryable, re.Partial = true, le.Status, le.Retryable, le.Partial
			re.RetryAfterMs = le.RetryAfter.Milliseconds()
			re.Message = le.Message
		}
		out.Error = re
	}
	r.mu.Lock()
	r.write(out)
	r.mu.Unlock()
	return resp, err
}

// exchange is one recorded call, its request rebuilt whole.
type exchange struct {
	n        int
	req      agent.Request
	deltas   []string
	resp     agent.Response
	err      *recError
	complete bool // the response line was recorded
}

// Replayer is an LLM that serves a recording: each call gets the next
// recorded exchange, its text streamed in the recorded deltas, so the
// events of a replayed task are those of the recorded one. A request that
// differs from the recorded one fails with a *ReplayError saying which
// exchange and what differed. System messages are not compared: they carry
// the project's instructions and recalled memory, which may legitimately
// differ where the recording is replayed.
type Replayer struct {
	mu   sync.Mutex
	ex   []exchange
	next int
	err  *ReplayError
}

// ReplayError says where a run left its recording.
type ReplayError struct {
	Exchange int // 1-based
	Detail   string
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("replay: exchange %d differs from the recording: %s", e.Exchange, e.Detail)
}

// NewReplayer reads a recording. A torn last line (the recording process
// was killed) is tolerated: the exchange it belonged to is incomplete and
// fails when it is reached.
func NewReplayer(rd io.Reader) (*Replayer, error) {
	p := &Replayer{}
	br := bufio.NewReaderSize(rd, 64<<10)
	var msgs []agent.Message
	var tools []agent.ToolSpec
	byN := map[int]int{}
	for lineNo := 1; ; lineNo++ {
		b, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, fmt.Errorf("read recording: %w", rerr)
		}
		torn := !bytes.HasSuffix(b, []byte("\n"))
		b = bytes.TrimSpace(b)
		if len(b) > 0 {
			var l recLine
			if err := json.Unmarshal(b, &l); err != nil {
				if !(torn && errors.Is(rerr, io.EOF)) {
					return nil, fmt.Errorf("recording line %d: %w", lineNo, err)
				}
				break
			}
			switch l.Type {
			case "header":
				if l.Version > recordingVersion {
					return nil, fmt.Errorf("recording version %d is newer than this agentls reads (%d)", l.Version, recordingVersion)
				}
			case "request":
				if l.Base > len(msgs) {
					return nil, fmt.Errorf("recording line %d: request %d builds on %d messages, the previous request had %d", lineNo, l.N, l.Base, len(msgs))
				}
				msgs = append(append([]agent.Message(nil), msgs[:l.Base]...), l.Messages...)
				if !l.SameTools {
					tools = l.Tools
				}
				byN[l.N] = len(p.ex)
				p.ex = append(p.ex, exchange{n: l.N, req: agent.Request{Model: l.Model, Messages: msgs, Tools: tools}})
			case "response":
				i, ok := byN[l.N]
				if !ok {
					return nil, fmt.Errorf("recording line %d: response %d has no request", lineNo, l.N)
				}
				e := &p.ex[i]
				e.deltas, e.err, e.complete = l.Deltas, l.Error, true
				if l.Response != nil {
					e.resp = *l.Response
				}
			default:
				return nil, fmt.Errorf("recording line %d: unknown line type %q", lineNo, l.Type)
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
	}
	return p, nil
}

// Len is the number of recorded exchanges; Remaining those not served yet.
func (p *Replayer) Len() int { return len(p.ex) }

// Model is the model the recording was made with (its first exchange's),
// or "" when it names none: what a replay's header should show.
func (p *Replayer) Model() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.ex {
		if e.req.Model != "" {
			return e.req.Model
		}
	}
	return ""
}

// Remaining is how many recorded exchanges were not asked for (yet). A run
// that ended with some left diverged from the recording too.
func (p *Replayer) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ex) - p.next
}

// Err is the first divergence met, nil while the run follows the
// recording.
func (p *Replayer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		return nil
	}
	return p.err
}

// fail records and returns a divergence; the caller holds p.mu.
func (p *Replayer) fail(n int, detail string) error {
	e := &ReplayError{Exchange: n, Detail: detail}
	if p.err == nil {
		p.err = e
	}
	return e
}

// Stream implements LLM.
func (p *Replayer) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	p.mu.Lock()
	i := p.next
	if i >= len(p.ex) {
		defer p.mu.Unlock()
		return agent.Response{}, p.fail(i+1, fmt.Sprintf("the run asked for another model call, but the recording ends after %d", len(p.ex)))
	}
	e := p.ex[i]
	if d := diffRequest(e.req, req); d != "" {
		defer p.mu.Unlock()
		return agent.Response{}, p.fail(i+1, d)
	}
	p.next++
	if !e.complete {
		defer p.mu.Unlock()
		return agent.Response{}, p.fail(i+1, "the recording ends before this exchange's response (the recording run was stopped)")
	}
	p.mu.Unlock()
	var sent strings.Builder
	for _, d := range e.deltas {
		if err := ctx.Err(); err != nil {
			return agent.Response{Content: sent.String()}, err
		}
		sent.WriteString(d)
		onText(d)
	}
	if e.err == nil {
		return cloneResponse(e.resp), nil
	}
	if e.err.LLM {
		return cloneResponse(e.resp), &agent.LLMError{Status: e.err.Status, Retryable: e.err.Retryable, Partial: e.err.Partial,
			RetryAfter: time.Duration(e.err.RetryAfterMs) * time.Millisecond, Message: e.err.Message}
	}
	if e.err.Cancelled {
		return cloneResponse(e.resp), fmt.Errorf("replay: the recorded run was cancelled during exchange %d (%s)", i+1, e.err.Message)
	}
	return cloneResponse(e.resp), errors.New(e.err.Message)
}

// cloneResponse copies the tool calls: the caller may change them, and
// the recording must serve the same answer again.
func cloneResponse(r agent.Response) agent.Response {
	r.ToolCalls = append([]agent.ToolCall(nil), r.ToolCalls...)
	return r
}

// diffRequest describes the first difference between the recorded request
// and the one made, or "" when they match.
func diffRequest(rec, got agent.Request) string {
	rn, gn := toolNames(rec.Tools), toolNames(got.Tools)
	if !reflect.DeepEqual(rn, gn) {
		return fmt.Sprintf("the tools offered differ: recorded [%s], got [%s]", strings.Join(rn, " "), strings.Join(gn, " "))
	}
	rm, gm := nonSystem(rec.Messages), nonSystem(agent.WithoutImages(got.Messages))
	for i := 0; i < len(rm) && i < len(gm); i++ {
		if d := diffMessage(rm[i].m, gm[i].m); d != "" {
			return fmt.Sprintf("message %d (%s): %s", gm[i].at+1, describe(gm[i].m), d)
		}
	}
	switch {
	case len(gm) > len(rm):
		x := gm[len(rm)]
		return fmt.Sprintf("the run sent %d messages where the recording has %d; the first extra is message %d (%s): %s",
			len(gm), len(rm), x.at+1, describe(x.m), snippet(x.m.Content, 0))
	case len(rm) > len(gm):
		x := rm[len(gm)]
		return fmt.Sprintf("the run sent %d messages where the recording has %d; the first missing is (%s): %s",
			len(gm), len(rm), describe(x.m), snippet(x.m.Content, 0))
	}
	return ""
}

type placed struct {
	m  agent.Message
	at int // index in the whole request
}

func nonSystem(ms []agent.Message) []placed {
	var out []placed
	for i, m := range ms {
		if m.Role != agent.RoleSystem {
			out = append(out, placed{m, i})
		}
	}
	return out
}

func toolNames(ts []agent.ToolSpec) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func describe(m agent.Message) string {
	switch {
	case m.Role == agent.RoleTool:
		return fmt.Sprintf("tool result of %s %s", m.Name, m.ToolCallID)
	case len(m.ToolCalls) > 0:
		return fmt.Sprintf("%s with %d tool calls", m.Role, len(m.ToolCalls))
	}
	return string(m.Role)
}

func diffMessage(r, g agent.Message) string {
	if r.Role != g.Role {
		return fmt.Sprintf("role: recorded %s, got %s", r.Role, g.Role)
	}
	if r.Content != g.Content {
		at := commonPrefix(r.Content, g.Content)
		return fmt.Sprintf("content differs at byte %d: recorded %s, got %s", at, snippet(r.Content, at), snippet(g.Content, at))
	}
	if r.ToolCallID != g.ToolCallID || r.Name != g.Name {
		return fmt.Sprintf("tool call: recorded %s %s, got %s %s", r.Name, r.ToolCallID, g.Name, g.ToolCallID)
	}
	if len(r.ToolCalls) != len(g.ToolCalls) {
		return fmt.Sprintf("recorded %d tool calls, got %d", len(r.ToolCalls), len(g.ToolCalls))
	}
	for i := range r.ToolCalls {
		rc, gc := r.ToolCalls[i], g.ToolCalls[i]
		if rc != gc {
			return fmt.Sprintf("tool call %d: recorded %s(%s) %s, got %s(%s) %s", i+1, rc.Name, snippet(rc.Arguments, 0), rc.ID, gc.Name, snippet(gc.Arguments, 0), gc.ID)
		}
	}
	return ""
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// snippet quotes s around byte at: a little before, more after.
func snippet(s string, at int) string {
	from, to := textcut.Floor(s, at-30), textcut.Ceil(s, at+70)
	q := fmt.Sprintf("%q", s[from:to])
	if from > 0 {
		q = "…" + q
	}
	if to < len(s) {
		q += "…"
	}
	return q
}
