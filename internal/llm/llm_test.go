package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
)

func TestListModels(t *testing.T) {
	const key = "sk-models-secret"
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/ok/models":
			json.NewEncoder(w).Encode(map[string]any{"data": []map[string]string{{"id": "zeta"}, {"id": ""}, {"id": "alpha"}}})
		case "/bad/models":
			w.Write([]byte("not json"))
		default:
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(strings.Repeat("ü", 150) + " tail"))
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	got, err := ListModels(ctx, srv.URL+"/ok/", key)
	if err != nil || strings.Join(got, ",") != "alpha,zeta" || auth != "Bearer "+key {
		t.Errorf("ok: %q, %v, auth %q", got, err, auth)
	}
	if _, err := ListModels(ctx, srv.URL+"/ok", ""); err != nil || auth != "" {
		t.Errorf("no key: %v, auth %q", err, auth)
	}
	if _, err := ListModels(ctx, srv.URL+"/bad", key); err == nil || !strings.Contains(err.Error(), "not a model list") {
		t.Errorf("bad: %v", err)
	}
	_, err = ListModels(ctx, srv.URL+"/denied", key)
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "tail") || !utf8.ValidString(err.Error()) || strings.Contains(err.Error(), key) {
		t.Errorf("denied: %v", err)
	}
	if _, err := ListModels(ctx, "", key); err == nil || !strings.Contains(err.Error(), "llm.baseURL is not set") {
		t.Errorf("no URL: %v", err)
	}
	srv.Close()
	if _, err := ListModels(ctx, srv.URL, key); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("closed: %v", err)
	}
}

// capture is a model that keeps the request it was sent.
type capture struct{ req agent.Request }

func (c *capture) Stream(_ context.Context, req agent.Request, _ func(string)) (agent.Response, error) {
	c.req = req
	return agent.Response{Content: "ok"}, nil
}

// No request leaves with the API key in it, wherever it hides; the
// caller's request is not changed.
func TestScrubbedModel(t *testing.T) {
	const key = "sk-scrub-0123456789"
	inner := &capture{}
	llm := Scrubbed(inner, policy.NewScrubber(key, nil, proc.IsSecretEnv))
	if Scrubbed(llm, policy.NewScrubber(key, nil, proc.IsSecretEnv)) != llm {
		t.Error("wrapped twice")
	}
	if Scrubbed(inner, policy.NewScrubber("", nil, proc.IsSecretEnv)) != agent.LLM(inner) {
		t.Error("nothing to scrub, yet wrapped")
	}
	req := agent.Request{
		Messages: []agent.Message{
			{Role: agent.RoleUser, Content: "my key is " + key},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "1", Name: "run_command", Arguments: `{"command":"echo ` + key + `"}`}}},
			{Role: agent.RoleTool, ToolCallID: "1", Content: key + "\n"},
		},
		Tools: []agent.ToolSpec{
			{Name: "t", Description: "uses " + key, Parameters: json.RawMessage(`{"type":"object","description":"` + key + `"}`)},
			{Name: "u", Parameters: json.RawMessage(`{"type":"object","properties":{"` + key + `":{}}}`)},
		},
	}
	orig, _ := json.Marshal(req)
	if _, err := llm.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	sent, _ := json.Marshal(inner.req)
	if strings.Contains(string(sent), key) {
		t.Errorf("the key was sent: %s", sent)
	}
	if after, _ := json.Marshal(req); string(after) != string(orig) {
		t.Error("the caller's request changed")
	}
	for _, sp := range inner.req.Tools {
		if !json.Valid(sp.Parameters) {
			t.Errorf("tool %s: parameters no longer JSON: %s", sp.Name, sp.Parameters)
		}
	}
	if len(inner.req.Messages) != 3 || inner.req.Messages[1].ToolCalls[0].Name != "run_command" {
		t.Errorf("the conversation's shape changed: %+v", inner.req.Messages)
	}

	// A secret that is a number in a schema leaves no JSON when scrubbed:
	// the schema becomes a bare object rather than a broken request.
	const digits = "987654321987654321"
	llm = Scrubbed(inner, policy.NewScrubber(digits, nil, proc.IsSecretEnv))
	if _, err := llm.Stream(context.Background(), agent.Request{Tools: []agent.ToolSpec{{Name: "n", Parameters: json.RawMessage(`{"type":"object","maxLength":` + digits + `}`)}}}, nil); err != nil {
		t.Fatal(err)
	}
	if p := string(inner.req.Tools[0].Parameters); p != `{"type":"object"}` {
		t.Errorf("parameters = %s", p)
	}
}
