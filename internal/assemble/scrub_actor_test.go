package assemble

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/policy"
)

// recordingActor keeps what it was handed.
type recordingActor struct{ got []agent.Message }

func (a *recordingActor) Stream(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	a.got = req.Messages
	return agent.Response{}, nil
}

func (a *recordingActor) Act(ctx context.Context, req agent.Request, onText func(string), onEvent func(agent.Event)) (agent.Response, error) {
	a.got = req.Messages
	return agent.Response{}, nil
}

// An external agent (agent.backend.acp) is handed what a model is, and
// through the same scrubber: a project command or a check's output that
// holds the key reaches it redacted. Before, ActorDriver handed it the
// text as it was.
func TestActorIsHandedScrubbedText(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	a := &recordingActor{}
	wrapped := ScrubbedActor(a, policy.NewScrubber(key, nil, nil))
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "deploy with " + key}}}
	if _, err := wrapped.Act(context.Background(), req, nil, nil); err != nil {
		t.Fatal(err)
	}
	if len(a.got) != 1 || strings.Contains(a.got[0].Content, key) || !strings.Contains(a.got[0].Content, policy.Redacted) {
		t.Fatalf("the actor got %+v", a.got)
	}
	if strings.Contains(req.Messages[0].Content, policy.Redacted) {
		t.Fatal("the caller's request was changed")
	}
}
