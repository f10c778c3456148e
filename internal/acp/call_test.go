package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once;
// wrote gets a token at each write.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSpace(s.b.String()), "\n")
}

// A request of agentls's own gets the client's answer by its id; one whose
// context ends is cancelled with $/cancel_request, and its late answer is
// dropped, not passed to the SDK.
func TestWireCall(t *testing.T) {
	out := syncBuffer{wrote: make(chan struct{}, 1)}
	w := newWire(&out)
	done := make(chan struct{})

	got := make(chan json.RawMessage, 1)
	go func() {
		res, err := w.call(context.Background(), done, "elicitation/create", map[string]any{"sessionId": "s"})
		if err != nil {
			t.Errorf("call: %v", err)
		}
		got <- res
	}()
	id := waitRequest(t, &out, 1)
	if !w.answered(id, []byte(`{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"action":"decline"}}`)) {
		t.Fatal("the answer was not taken as agentls's own")
	}
	if res := <-got; string(res) != `{"action":"decline"}` {
		t.Errorf("result %s", res)
	}

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := w.call(ctx, done, "elicitation/create", nil)
		errc <- err
	}()
	id = waitRequest(t, &out, 2)
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Errorf("cancelled call: %v", err)
	}
	lines := out.lines()
	var c struct {
		Method string
		Params struct{ RequestID json.RawMessage }
	}
	_ = json.Unmarshal([]byte(lines[len(lines)-1]), &c)
	if c.Method != methodCancelRequest || string(c.Params.RequestID) != string(id) {
		t.Errorf("after the cancel: %s", lines[len(lines)-1])
	}
	if !w.answered(id, []byte(`{"jsonrpc":"2.0","id":`+string(id)+`,"result":{}}`)) {
		t.Error("a late answer went on to the SDK")
	}
	if w.answered(json.RawMessage(`7`), []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`)) {
		t.Error("the SDK's answer was taken")
	}

	close(done)
	if _, err := w.call(context.Background(), done, "elicitation/create", nil); err == nil {
		t.Error("a call on an ended connection did not fail")
	}
}

// $/cancel_request for a request answered on the wire cancels its context.
func TestWireServeCancel(t *testing.T) {
	w := newWire(&bytes.Buffer{})
	ctx, stop := w.serve(json.RawMessage(`12`))
	defer stop()
	w.cancelServed(json.RawMessage(`{"requestId":13}`))
	if ctx.Err() != nil {
		t.Fatal("another id cancelled it")
	}
	w.cancelServed(json.RawMessage(`{"requestId": 12}`))
	if ctx.Err() == nil {
		t.Fatal("not cancelled")
	}
}

// waitRequest waits for the n-th line the wire wrote, a request, and
// returns its id.
func waitRequest(t *testing.T, out *syncBuffer, n int) json.RawMessage {
	t.Helper()
	for {
		<-out.wrote
		lines := out.lines()
		if len(lines) >= n && lines[0] != "" {
			var m struct {
				ID     json.RawMessage
				Method string
			}
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil || m.Method == "" {
				t.Fatalf("wrote %q", lines[len(lines)-1])
			}
			return m.ID
		}
	}
}

// A call forgets its id however it ends: answered, cancelled, or on an
// ended connection; nothing stays in the table of calls.
func TestWireCallForgetsItsID(t *testing.T) {
	out := syncBuffer{wrote: make(chan struct{}, 1)}
	w := newWire(&out)
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := w.call(ctx, done, "elicitation/create", nil)
		errc <- err
	}()
	waitRequest(t, &out, 1)
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("cancelled call: %v", err)
	}
	close(done)
	if _, err := w.call(context.Background(), done, "elicitation/create", nil); err == nil {
		t.Fatal("a call on an ended connection did not fail")
	}
	w.mu.Lock()
	n := len(w.calls)
	w.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d calls left in the table", n)
	}
}
