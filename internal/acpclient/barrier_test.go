package acpclient

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/approval"
)

// panickyWorkspace stands for a language server's workspace that panics.
type panickyWorkspace struct{ root string }

func (w panickyWorkspace) Root() string { return w.root }
func (panickyWorkspace) ReadFile(context.Context, string) ([]byte, error) {
	panic("read")
}
func (panickyWorkspace) Edit(context.Context, string, func([]byte, bool) ([]byte, error)) error {
	panic("edit")
}

// The SDK runs each request, and the notifications, on goroutines of its
// own with no recover: a panic in what the bridge calls (the language
// server's workspace, its way of asking, its event sink) would end
// agentls serve. Each answers an internal error instead.
func TestBridgeClientPanicsAreAnswered(t *testing.T) {
	root := t.TempDir()
	r := &bridgeRun{b: Bridge{Root: root, Workspace: panickyWorkspace{root}, Log: zap.NewNop(),
		Ask: func(context.Context, string, string) (approval.Answer, error) { panic("ask") },
	}, changed: map[string]bool{}}
	r.onText = func(string) { panic("text") }
	r.onEvent = func(agent.Event) { panic("event") }
	c := &bridgeClient{r: r}
	ctx := context.Background()
	check := func(method string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "internal error in "+method) {
			t.Errorf("%s: error %v, want an internal error naming it", method, err)
		}
	}
	_, err := c.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: "s", Path: "a.txt"})
	check("fs/read_text_file", err)
	_, err = c.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: "s", Path: "a.txt", Content: "x"})
	check("fs/write_text_file", err)
	_, err = c.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: "s"})
	check("session/request_permission", err)
	err = c.SessionUpdate(ctx, sdk.SessionNotification{SessionId: "s", Update: sdk.UpdateAgentMessageText("hi")})
	check("session/update", err)
}
