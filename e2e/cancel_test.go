package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const slowAnswer = `{"turns":[{"text":"a slow answer that will be cancelled","chunkSize":1,"chunkDelayMs":200}]}`

// window/workDoneProgress/cancel on a task's progress token cancels it.
func TestProgressCancelCancelsTheTask(t *testing.T) {
	s := start(t, setup{script: slowAnswer})
	id, err := s.Run(s.ctx, map[string]any{"task": "take your time"})
	if err != nil {
		t.Fatal(err)
	}
	tok := "agentls-task-" + id
	if !s.WaitFor(testWait, func() bool {
		for _, n := range s.Notes(protocol.MethodProgress) {
			if strings.Contains(string(n.Params), tok) {
				return true
			}
		}
		return false
	}) {
		t.Fatal("no progress began")
	}
	if err := s.Server.WorkDoneProgressCancel(s.ctx, &protocol.WorkDoneProgressCancelParams{Token: protocol.String(tok)}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Wait(s.ctx, id, testWait)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "cancelled" {
		t.Errorf("after progress cancel: %+v", r)
	}
}

// $/cancelRequest ends a long agentls.wait at once, with an error reply,
// and the server goes on serving.
func TestCancelRequestEndsAWait(t *testing.T) {
	s := start(t, setup{script: slowAnswer})
	id, err := s.Run(s.ctx, map[string]any{"task": "take your time"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var res map[string]any
		err := s.Command(s.ctx, "agentls.wait", map[string]any{"taskId": id, "timeoutMs": 120000}, &res)
		if err == nil {
			b, _ := json.Marshal(res)
			err = errorString("wait answered " + string(b))
		}
		done <- err
	}()
	// The client numbers its requests from 1; cancel every id it may have
	// used (cancelling a finished request is a no-op).
	var waitErr error
	for got := false; !got; {
		for i := 1; i <= 20; i++ {
			_ = s.Conn.Notify(s.ctx, protocol.MethodCancelRequest, &protocol.CancelParams{ID: protocol.Integer(int32(i))})
		}
		select {
		case waitErr = <-done:
			got = true
		case <-time.After(100 * time.Millisecond):
		case <-s.ctx.Done():
			t.Fatal("the wait never ended")
		}
	}
	if waitErr == nil || strings.Contains(waitErr.Error(), "wait answered") {
		t.Fatalf("cancelled wait: %v", waitErr)
	}
	if err := s.Command(context.WithoutCancel(s.ctx), "agentls.cancel", map[string]any{"taskId": id}, nil); err != nil {
		t.Fatalf("the server stopped serving: %v", err)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// After didClose, the agent reads the file from disk, not the closed
// buffer's unsaved text.
func TestDidCloseDropsTheBuffer(t *testing.T) {
	s := start(t, setup{files: map[string]string{"f.txt": "on disk\n"}, script: `{"turns":[
 {"toolCalls":[{"id":"c1","name":"read_file","arguments":"{\"path\":\"f.txt\"}"}]},
 {"expect":{"lastToolContains":"on disk"},"text":"read it"}]}`})
	if err := s.Open(s.ctx, "f.txt", "unsaved buffer text\n"); err != nil {
		t.Fatal(err)
	}
	if err := s.Server.DidClose(s.ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(s.URI("f.txt"))}}); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "read f.txt"})
	if r.Status != "ok" || r.Summary != "read it" {
		t.Fatalf("the agent read the closed buffer: %+v", r)
	}
}
