package lsp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent"
)

// fakeClient is the editor's end of an in-memory connection: it records
// what the server sends and answers its requests (nil, or answer's
// result), so a unit test can call the server's methods directly and see
// what reached the editor.
type fakeClient struct {
	inbox
	mu     sync.Mutex
	answer func(method string, params json.RawMessage) any
}

type sent struct {
	method string
	params json.RawMessage
}

// inbox keeps what the server sent an editor of the tests, in order, and
// lets a test wait for a message.
type inbox struct {
	inMu sync.Mutex
	msgs []sent
	more chan struct{} // closed and replaced on every message
}

func (b *inbox) add(m sent) {
	b.inMu.Lock()
	defer b.inMu.Unlock()
	b.msgs = append(b.msgs, m)
	if b.more != nil {
		close(b.more)
	}
	b.more = make(chan struct{})
}

// sentSoFar is a copy of the messages received so far.
func (b *inbox) sentSoFar() []sent {
	b.inMu.Lock()
	defer b.inMu.Unlock()
	return slices.Clone(b.msgs)
}

// waitFor waits, up to ten seconds, until a message satisfies ok.
func (b *inbox) waitFor(t testing.TB, what string, ok func(sent) bool) sent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for i := 0; ; {
		b.inMu.Lock()
		for ; i < len(b.msgs); i++ {
			if ok(b.msgs[i]) {
				m := b.msgs[i]
				b.inMu.Unlock()
				return m
			}
		}
		if b.more == nil {
			b.more = make(chan struct{})
		}
		more := b.more
		b.inMu.Unlock()
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("no %s reached the editor in 10 s", what)
		}
	}
}

func (c *fakeClient) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	// The request is recycled once the handler returns: keep copies.
	c.add(sent{strings.Clone(req.Method()), append(json.RawMessage(nil), req.Params()...)})
	c.mu.Lock()
	answer := c.answer
	c.mu.Unlock()
	if answer != nil && req.IsCall() {
		res := answer(req.Method(), json.RawMessage(req.Params()))
		if err, ok := res.(error); ok {
			return nil, err
		}
		return res, nil
	}
	return nil, nil
}

// messages returns the window/showMessage texts received so far.
func (c *fakeClient) messages() []string {
	var out []string
	for _, m := range c.sentSoFar() {
		if m.method == protocol.MethodWindowShowMessage {
			var p protocol.ShowMessageParams
			_ = protocol.Unmarshal(m.params, &p)
			out = append(out, p.Message)
		}
	}
	return out
}

// newUnitServer is a Server on root, connected to a fakeClient through an
// in-memory pipe, with its state in a temporary directory and an empty
// environment. Nothing runs until the test calls the server's methods.
func newUnitServer(t *testing.T, root string) (*Server, *fakeClient) {
	t.Helper()
	state := t.TempDir()
	s := newServer(Options{Root: root, StateDir: state, Getenv: func(string) string { return "" }})
	s.ed.root = root
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s.ed.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(a), jsonrpc2.WithCodec(Codec{}))
	s.ed.client = protocol.ClientDispatcher(s.ed.conn)
	s.ed.conn.Go(ctx, func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	c := &fakeClient{}
	cc := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b), jsonrpc2.WithCodec(Codec{}))
	cc.Go(ctx, c.handle)
	t.Cleanup(func() {
		s.tasks.cancelAll()
		s.tasks.waitAll()
		cancel()
		s.ed.conn.Close()
		cc.Close()
	})
	return s, c
}

// tempRoot is a temporary workspace holding files, its path free of
// symlinks.
func tempRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// finished runs a task through the task manager whose body is body, and
// waits until it has ended; review marks it a review-mode task.
func finished(t *testing.T, s *Server, prompt string, review bool, body func(t *runningTask)) *runningTask {
	t.Helper()
	tk := &runningTask{prompt: prompt, review: review}
	s.tasks.start(tk, func(_ context.Context, tk *runningTask) {
		body(tk)
		tk.end(agent.Result{Status: agent.StatusOK, Reason: "done", Summary: "proposed"})
	})
	select {
	case <-tk.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the task did not end in 10 s")
	}
	return tk
}
