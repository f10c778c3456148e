package lsp

import (
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/agent"
)

// A panic under the review lock, recovered further up, leaves it free.
func TestReviewLockSurvivesAPanic(t *testing.T) {
	var r reviewState
	func() {
		defer func() { _ = recover() }()
		r.locked(func() { panic("in a command") })
	}()
	if !r.mu.TryLock() {
		t.Fatal("review.mu is still held after the panic")
	}
	r.mu.Unlock()
}

// A task waiting for the editor refuses a second command until released.
func TestClaimRefusesASecondCommand(t *testing.T) {
	var r reviewState
	tk := &runningTask{id: "t1"}
	if err := r.claimLocked(tk, "agentls.accept"); err != nil {
		t.Fatal(err)
	}
	err := r.claimLocked(tk, "agentls.undo")
	if err == nil || !strings.Contains(err.Error(), "waiting for the editor to apply agentls.accept") {
		t.Fatalf("second claim: %v", err)
	}
	if err := r.claimLocked(&runningTask{id: "t2"}, "agentls.undo"); err != nil {
		t.Fatalf("another task: %v", err)
	}
	r.locked(func() { r.release(tk) })
	if err := r.claimLocked(tk, "agentls.undo"); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

func TestEndMessage(t *testing.T) {
	for _, c := range []struct {
		res  agent.Result
		typ  protocol.MessageType
		want string
	}{
		{agent.Result{Status: agent.StatusOK, Reason: "done", Summary: "did it"}, protocol.MessageTypeInfo, "did it"},
		{agent.Result{Status: agent.StatusOK, Reason: "verifyFailed", Summary: "tried"}, protocol.MessageTypeWarning, "tried"},
		{agent.Result{Status: agent.StatusCancelled, Cancelled: true}, protocol.MessageTypeInfo, "cancelled"},
		{agent.Result{Status: agent.StatusError, Reason: "untrusted", Error: "trust it"}, protocol.MessageTypeError, "trust it"},
	} {
		typ, msg := endMessage(c.res)
		if typ != c.typ || msg != c.want {
			t.Errorf("%+v: %v %q, want %v %q", c.res, typ, msg, c.typ, c.want)
		}
	}
}

// A command sent while another on the same task waits for the editor runs
// once that one ends, rather than being refused: the Neovim suite's undo,
// sent as soon as the accepted text showed, was refused under load while
// the accept still waited for the editor's didChange.
func TestClaimWaitsForACommandInFlight(t *testing.T) {
	var r reviewState
	tk := &runningTask{id: "t1"}
	if err := r.claimLocked(tk, "agentls.accept"); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		r.locked(func() { r.release(tk) })
	}()
	if err := r.claimLocked(tk, "agentls.undo"); err != nil {
		t.Fatalf("the undo after the accept ended: %v", err)
	}
}
