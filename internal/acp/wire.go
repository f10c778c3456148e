package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// wire is agentls's side of the connection below the SDK: it screens the
// client's lines (malformed ones are answered here), answers the methods
// the SDK does not know (onWire), and keeps count of the requests not yet
// answered, so that the connection's end can wait for the last answers to
// be written before the process exits.
type wire struct {
	mu      sync.Mutex
	w       io.Writer
	pending map[string]bool // ids of requests read and not yet answered
	idle    chan struct{}   // closed when pending empties; nil while it is empty
	// after are called with a request's result once its answer is
	// written (under mu: they must not block or write).
	after map[string]func(result json.RawMessage)
	// calls are agentls's own requests to the client (call) waiting for
	// their answers, by id; served are the requests answered here (not by
	// the SDK) while they run, by id, for $/cancel_request to cancel.
	calls  map[string]chan wireAnswer
	served map[string]context.CancelFunc
	nextID int
}

func newWire(w io.Writer) *wire {
	return &wire{w: w, pending: map[string]bool{}, after: map[string]func(json.RawMessage){},
		calls: map[string]chan wireAnswer{}, served: map[string]context.CancelFunc{}}
}

// onAnswer calls fn with the result of request id once it is answered.
func (l *wire) onAnswer(id json.RawMessage, fn func(result json.RawMessage)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.after[string(id)] = fn
}

// Write writes one whole message (the connection and the screen share the
// stream) and notes an answer to a pending request.
func (l *wire) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	// Notifications (the SDK writes their method right after "jsonrpc"),
	// the bulk of the stream, are no answers: not decoded.
	if len(l.pending) > 0 && !bytes.HasPrefix(p, notificationPrefix) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(p, &m) == nil && m.Method == "" && len(m.ID) > 0 && l.pending[string(m.ID)] {
			delete(l.pending, string(m.ID))
			if fn := l.after[string(m.ID)]; fn != nil {
				delete(l.after, string(m.ID))
				if err == nil && len(m.Result) > 0 {
					fn(m.Result)
				}
			}
			if len(l.pending) == 0 && l.idle != nil {
				close(l.idle)
				l.idle = nil
			}
		}
	}
	return n, err
}

var notificationPrefix = []byte(`{"jsonrpc":"2.0","method"`)

// request notes a request read from the client.
func (l *wire) request(id json.RawMessage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending[string(id)] = true
}

// drain waits until every request read has been answered, or for max.
func (l *wire) drain(max time.Duration) {
	l.mu.Lock()
	if len(l.pending) == 0 {
		l.mu.Unlock()
		return
	}
	if l.idle == nil {
		l.idle = make(chan struct{})
	}
	idle := l.idle
	l.mu.Unlock()
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// maxLine bounds one message (the SDK's own limit).
const maxLine = 10 << 20

// onWire answers a request the SDK cannot: it returns the reply line, or
// nil to pass the message on to the SDK.
type onWire func(method string, id, params json.RawMessage) []byte

func screen(in io.Reader, out io.Writer, log *zap.Logger, track *wire, handle onWire) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		defer recoverLog(log, "reading the client's messages")
		// After a panic too: the connection sees the end of its input and
		// Serve returns, instead of the reader waiting for ever.
		defer pw.Close()
		br := bufio.NewReaderSize(in, 64<<10)
		var buf []byte
		for {
			raw, long, err := readLine(br, maxLine, buf[:0])
			buf = raw
			if err != nil && err != io.EOF {
				pw.CloseWithError(err)
				return
			}
			line := bytes.TrimSpace(raw)
			switch {
			case long:
				// Over the limit the SDK would end the connection: the
				// message is refused instead, under its id when the id
				// comes before the bulk, as it does from every client seen.
				log.Warn("message over the size limit", zap.Int("bytes", maxLine))
				_, _ = out.Write(tooLong(leadingID(line)))
			case len(line) == 0:
			default:
				if msg := malformed(line); msg != nil {
					log.Warn("malformed message", zap.ByteString("line", line[:min(len(line), 200)]))
					_, _ = out.Write(msg)
				} else if !forward(line, out, pw, track, handle) {
					return
				}
			}
			if err == io.EOF {
				return
			}
		}
	}()
	return pr
}

// forward answers a well-formed message the SDK cannot handle, or passes
// it on to the SDK through pw; false when the SDK's side is closed.
func forward(line []byte, out io.Writer, pw *io.PipeWriter, track *wire, handle onWire) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(line, &m)
	isRequest := m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
	if track != nil && m.Method == "" && track.answered(m.ID, line) {
		return true // the answer to a request of agentls's own (call)
	}
	if track != nil && m.Method == methodCancelRequest {
		track.cancelServed(m.Params) // and the SDK cancels its own
	}
	if isRequest && handle != nil {
		if reply := handle(m.Method, m.ID, m.Params); reply != nil {
			if len(reply) > 0 { // empty: answered later by the handler
				_, _ = out.Write(reply)
			}
			return true
		}
	}
	if isRequest && track != nil {
		track.request(m.ID)
	}
	_, err := pw.Write(append(line, '\n'))
	return err == nil
}

// readLine reads the next line of r, without its newline, into buf. A line
// over limit bytes with its newline (as the SDK counts) is read to its end,
// but only its first 64 KiB are kept (for its id), and long is set.
func readLine(r *bufio.Reader, limit int, buf []byte) (line []byte, long bool, err error) {
	const head = 64 << 10
	n := 0
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		switch {
		case n <= limit:
			buf = append(buf, chunk...)
		case len(buf) < head:
			buf = append(buf, chunk[:min(len(chunk), head-len(buf))]...)
		}
		if n > limit {
			long = true
			buf = buf[:min(len(buf), head)]
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), long, err
	}
}

// leadingID is the id of a message cut short: found when it comes before
// the cut, else nil.
func leadingID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			return v
		}
	}
	return nil
}

// tooLong is the reply to a message over maxLine.
func tooLong(id json.RawMessage) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32600, "message": "Invalid request", "data": map[string]any{
			"error": fmt.Sprintf("the message is over agentls's limit of %d MB: send fewer or smaller images at once", maxLine>>20)}}})
	return append(b, '\n')
}

// reply is a JSON-RPC response line: result, or err when it is set.
func reply(id json.RawMessage, result any, err error) []byte {
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if err != nil {
		m["error"] = toWireError(err)
	} else {
		m["result"] = result
	}
	b, e := json.Marshal(m)
	if e != nil {
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": -32603, "message": "Internal error", "data": map[string]any{"error": e.Error()}}})
	}
	return append(b, '\n')
}

// malformed returns the error reply for a line that is not a JSON-RPC
// message, or nil.
func malformed(line []byte) []byte {
	reply := func(code int, message, detail string) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
			"error": map[string]any{"code": code, "message": message, "data": map[string]any{"error": detail}}})
		return append(b, '\n')
	}
	if !json.Valid(line) {
		return reply(-32700, "Parse error", "the message is not valid JSON")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return reply(-32600, "Invalid request", "a message must be a JSON object")
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return reply(-32600, "Invalid request", `"jsonrpc" must be "2.0"`)
	}
	_, hasMethod := m["method"]
	_, hasID := m["id"]
	if !hasMethod && !hasID {
		return reply(-32600, "Invalid request", "a message needs a method or an id")
	}
	return nil
}

// methodCancelRequest is ACP's request cancellation (stable since June
// 2026): either side may send it for a request of its own that it no
// longer waits for.
const methodCancelRequest = "$/cancel_request"

// callPrefix starts the ids of agentls's own requests (call), which the
// SDK's numeric ids never do.
const callPrefix = "agentls-"

// wireAnswer is the client's answer to a call.
type wireAnswer struct {
	Result json.RawMessage   `json:"result"`
	Error  *sdk.RequestError `json:"error"`
}

// call sends a request to the client on the wire and waits for its answer,
// until ctx ends (then the client is sent $/cancel_request for it and a
// late answer is dropped) or done closes (the connection ended). It is for
// requests the SDK cannot send as ACP wants them: the SDK v0.13.0's
// elicitation/create has no field for the session it belongs to.
func (l *wire) call(ctx context.Context, done <-chan struct{}, method string, params any) (json.RawMessage, error) {
	l.mu.Lock()
	l.nextID++
	id := fmt.Sprintf("%s%d", callPrefix, l.nextID)
	ch := make(chan wireAnswer, 1)
	l.calls[id] = ch
	l.mu.Unlock()
	// However the call ends, its id is forgotten (answered forgets it
	// too): a late answer is dropped.
	defer func() {
		l.mu.Lock()
		delete(l.calls, id)
		l.mu.Unlock()
	}()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := l.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	select {
	case ans := <-ch:
		if ans.Error != nil {
			return nil, ans.Error
		}
		return ans.Result, nil
	case <-ctx.Done():
		c, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": methodCancelRequest, "params": map[string]any{"requestId": id}})
		_, _ = l.Write(append(c, '\n'))
		return nil, ctx.Err()
	case <-done:
		return nil, errors.New("the client is gone")
	}
}

// answered delivers the client's answer to a call; false when id is none
// of agentls's own (the SDK's, then).
func (l *wire) answered(id json.RawMessage, line []byte) bool {
	var sid string
	if json.Unmarshal(id, &sid) != nil || !strings.HasPrefix(sid, callPrefix) {
		return false
	}
	l.mu.Lock()
	ch := l.calls[sid]
	delete(l.calls, sid)
	l.mu.Unlock()
	if ch != nil {
		var ans wireAnswer
		if err := json.Unmarshal(line, &ans); err != nil {
			ans.Error = sdk.NewInternalError(map[string]any{"error": "the client's answer: " + err.Error()})
		}
		ch <- ans
	}
	return true // a late answer (cancelled) is dropped
}

// serve runs a request answered here (onWire) under a context that
// $/cancel_request for id cancels; stop ends it when the request is done.
func (l *wire) serve(id json.RawMessage) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	key := idKey(id)
	l.mu.Lock()
	l.served[key] = cancel
	l.mu.Unlock()
	return ctx, func() {
		l.mu.Lock()
		delete(l.served, key)
		l.mu.Unlock()
		cancel()
	}
}

// cancelServed cancels the request $/cancel_request's params name, when it
// is one answered here.
func (l *wire) cancelServed(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	l.mu.Lock()
	cancel := l.served[idKey(p.RequestID)]
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// idKey is a request id as a map key: compact, so that spacing does not
// make two ids of one request.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}
