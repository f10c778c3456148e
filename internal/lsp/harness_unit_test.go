package lsp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
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
	mu     sync.Mutex
	msgs   []sent
	answer func(method string, params json.RawMessage) any
	more   chan struct{} // closed and replaced on every message
}

type sent struct {
	method string
	params json.RawMessage
}

func (c *fakeClient) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	c.mu.Lock()
	// The request is recycled once the handler returns: keep copies.
	c.msgs = append(c.msgs, sent{strings.Clone(req.Method()), append(json.RawMessage(nil), req.Params()...)})
	close(c.more)
	c.more = make(chan struct{})
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
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.msgs {
		if m.method == protocol.MethodWindowShowMessage {
			var p protocol.ShowMessageParams
			_ = protocol.Unmarshal(m.params, &p)
			out = append(out, p.Message)
		}
	}
	return out
}

// waitFor waits, up to ten seconds, until a message satisfies ok.
func (c *fakeClient) waitFor(t *testing.T, what string, ok func(sent) bool) sent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for i := 0; ; {
		c.mu.Lock()
		for ; i < len(c.msgs); i++ {
			if ok(c.msgs[i]) {
				m := c.msgs[i]
				c.mu.Unlock()
				return m
			}
		}
		more := c.more
		c.mu.Unlock()
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("no %s reached the editor in 10 s", what)
		}
	}
}

// newUnitServer is a Server on root, connected to a fakeClient through an
// in-memory pipe, with its state in a temporary directory and an empty
// environment. Nothing runs until the test calls the server's methods.
func newUnitServer(t *testing.T, root string) (*Server, *fakeClient) {
	t.Helper()
	state := t.TempDir()
	s := newServer(Options{Root: root, StateDir: state, Getenv: func(string) string { return "" }})
	s.root = root
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(a), jsonrpc2.WithCodec(Codec{}))
	s.client = protocol.ClientDispatcher(s.conn)
	s.conn.Go(ctx, func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	c := &fakeClient{more: make(chan struct{})}
	cc := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b), jsonrpc2.WithCodec(Codec{}))
	cc.Go(ctx, c.handle)
	t.Cleanup(func() {
		s.tasks.cancelAll()
		s.tasks.waitAll()
		cancel()
		s.conn.Close()
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
