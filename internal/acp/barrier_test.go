package acp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
)

// A panic in a prompt is the prompt's internal error, and the session's
// turn is free again for the next prompt.
func TestPromptPanicIsAnswered(t *testing.T) {
	s := &acpSession{id: "s1", root: t.TempDir(), turn: make(chan struct{}, 1), mode: modeApply}
	a := &Agent{log: zap.NewNop(), sessions: map[string]*acpSession{"s1": s},
		opts: Options{NewLLM: func(config.Config) agent.LLM { panic("llm") }}}
	_, err := a.Prompt(context.Background(), sdk.PromptRequest{SessionId: "s1", Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
	if err == nil || !strings.Contains(err.Error(), "internal error in session/prompt") {
		t.Errorf("error %v, want an internal error", err)
	}
	if len(s.turn) != 0 {
		t.Error("the panicked prompt kept the session's turn")
	}
}
