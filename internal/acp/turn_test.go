package acp

import (
	"context"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// A prompt waiting for the session's running turn gives up when it is
// cancelled, instead of waiting for that turn to end.
func TestPromptWaitingForTurnHonoursCancel(t *testing.T) {
	s := &acpSession{id: "s1", turn: make(chan struct{}, 1)}
	a := &Agent{sessions: map[string]*acpSession{"s1": s}}
	s.turn <- struct{}{} // a turn is running, and stays

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		resp, err := a.Prompt(ctx, sdk.PromptRequest{SessionId: "s1", Prompt: []sdk.ContentBlock{sdk.TextBlock("next")}})
		if err != nil {
			t.Errorf("Prompt: %v", err)
		}
		done <- resp
	}()
	select {
	case <-done:
		t.Fatal("the prompt did not wait for the running turn")
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	select {
	case resp := <-done:
		if resp.StopReason != sdk.StopReasonCancelled {
			t.Errorf("stop reason %q, want cancelled", resp.StopReason)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled prompt kept waiting for the running turn")
	}
	if len(s.turn) != 1 {
		t.Error("the running turn lost its slot")
	}
}
