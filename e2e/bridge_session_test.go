package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// taskText is a task's text events, and its thought events.
func taskText(s *session, taskID string) (text, thoughts string) {
	var t, th strings.Builder
	for _, ev := range s.Events(taskID) {
		txt, _ := ev["text"].(string)
		switch ev["kind"] {
		case "text":
			t.WriteString(txt)
		case "thought":
			th.WriteString(txt)
		}
	}
	return t.String(), th.String()
}

var fakeSessionLine = regexp.MustCompile(`session: (fake-\d+) \((new|resumed)\), model: (\S+), mode: (\S+), mcp: (\S*)`)

// The bridge signs in with the env_var method the agent offers when its
// environment has the variable (no question), passes the user's MCP
// servers, picks the model and mode agent.backend.acp names, forwards
// the agent's thinking and plan as thought events, and a follow-up
// (agentls.continue) resumes the agent's own session instead of starting a
// new one. The old bridge never authenticated, so session/new failed.
func TestBridgeSessionAuthModelMode(t *testing.T) {
	fake := buildFakeACP(t)
	s := start(t, setup{workspace: "hello", settings: map[string]any{
		"agent": map[string]any{"backend": map[string]any{"acp": map[string]any{"command": fake,
			"env":   map[string]any{"FAKEACP_AUTH_VAR": "FAKE_KEY", "FAKE_KEY": "k-123"},
			"model": "fake-large", "mode": "code"}}},
		"mcpServers": map[string]any{"docs": map[string]any{"url": "http://127.0.0.1:9/mcp"}},
	}})
	s.OnShowMessageRequest = func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		return &protocol.MessageActionItem{Title: "Allow once"}
	}
	r := s.run(t, map[string]any{"task": "make it"})
	text, thoughts := taskText(s, r.TaskID)
	m := fakeSessionLine.FindStringSubmatch(text)
	if r.Status != "ok" || m == nil {
		t.Fatalf("first task %+v; text:\n%s", r, text)
	}
	if m[2] != "new" || m[3] != "fake-large" || m[4] != "code" || m[5] != "docs" {
		t.Errorf("first task ran as %q; want a new session, model fake-large, mode code, MCP server docs", m[0])
	}
	if !strings.Contains(thoughts, "thinking about it") {
		t.Errorf("thought events %q", thoughts)
	}
	var plan []any
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "plan" {
			p, _ := ev["plan"].(map[string]any)
			plan, _ = p["plan"].([]any)
		}
	}
	if len(plan) != 2 || plan[0].(map[string]any)["step"] != "read the file" || plan[0].(map[string]any)["status"] != "completed" ||
		plan[1].(map[string]any)["status"] != "in_progress" {
		t.Errorf("plan event %v, want the agent's two steps", plan)
	}
	if strings.Contains(text, "thinking about it") {
		t.Errorf("the agent's thinking was sent as its answer")
	}
	var cont struct {
		TaskID string `json:"taskId"`
	}
	if err := s.Command(s.ctx, "agentls.continue", map[string]any{"session": r.Session, "task": "and again"}, &cont); err != nil {
		t.Fatal(err)
	}
	r2, err := s.Wait(s.ctx, cont.TaskID, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	text2, _ := taskText(s, r2.TaskID)
	m2 := fakeSessionLine.FindStringSubmatch(text2)
	if m2 == nil || m2[1] != m[1] || m2[2] != "resumed" {
		t.Errorf("the follow-up ran as %q, want session %s resumed; text:\n%s", m2, m[1], text2)
	}
}

// Without the key the agent's sign-in needs, the task fails saying which
// variable to set.
func TestBridgeSignInNeedsTheKey(t *testing.T) {
	fake := buildFakeACP(t)
	s := start(t, setup{workspace: "hello", settings: map[string]any{
		"agent": map[string]any{"backend": map[string]any{"acp": map[string]any{"command": fake,
			"env": map[string]any{"FAKEACP_AUTH_VAR": "FAKE_KEY"}}}},
	}})
	r := s.run(t, map[string]any{"task": "make it"})
	if r.Status != "error" || !strings.Contains(r.Error, "set FAKE_KEY in agent.backend.acp.env") {
		t.Errorf("result %+v", r)
	}
}

// The external agent's slash commands and session settings reach the editor
// as agentls's commands and options events: its model and modes (with what
// agent.backend.acp picked) when the session opens, its effort when a
// config_option_update turns it up mid-turn, and its commands when it
// announces them. The old bridge only logged them.
func TestBridgeForwardsCommandsAndOptions(t *testing.T) {
	fake := buildFakeACP(t)
	s := start(t, setup{workspace: "hello", settings: map[string]any{
		"agent": map[string]any{"backend": map[string]any{"acp": map[string]any{"command": fake, "model": "fake-large", "mode": "code"}}},
	}})
	s.OnShowMessageRequest = func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		return &protocol.MessageActionItem{Title: "Allow once"}
	}
	r := s.run(t, map[string]any{"task": "make it"})
	if r.Status != "ok" {
		t.Fatalf("task %+v", r)
	}
	type option struct {
		ID, Category, Current string
		Values                []string
	}
	var options [][]option
	var commands []map[string]any
	for _, ev := range s.Events(r.TaskID) {
		switch ev["kind"] {
		case "options":
			var os []option
			for _, o := range ev["options"].([]any) {
				m := o.(map[string]any)
				opt := option{ID: m["id"].(string), Current: m["current"].(string)}
				opt.Category, _ = m["category"].(string)
				vs, _ := m["values"].([]any)
				for _, v := range vs {
					opt.Values = append(opt.Values, v.(string))
				}
				os = append(os, opt)
			}
			options = append(options, os)
		case "commands":
			for _, c := range ev["commands"].([]any) {
				commands = append(commands, c.(map[string]any))
			}
		}
	}
	if len(options) != 2 {
		t.Fatalf("%d options events %+v, want one when the session opened and one for the mid-turn update", len(options), options)
	}
	want0 := []option{
		{ID: "model", Category: "model", Current: "fake-large", Values: []string{"fake-small", "fake-large"}},
		{ID: "effort", Category: "thought_level", Current: "low", Values: []string{"low", "high"}},
		{ID: "mode", Category: "mode", Current: "code", Values: []string{"ask", "code"}},
	}
	if fmt.Sprint(options[0]) != fmt.Sprint(want0) {
		t.Errorf("options when the session opened:\n%+v\nwant\n%+v", options[0], want0)
	}
	if len(options[1]) != 3 || options[1][1].ID != "effort" || options[1][1].Current != "high" || options[1][0].Current != "fake-large" {
		t.Errorf("options after the update %+v, want effort high, model still fake-large", options[1])
	}
	if len(commands) != 2 || commands[0]["name"] != "init" || commands[0]["description"] != "Write AGENTS.md" ||
		commands[1]["name"] != "compress" || commands[1]["hint"] != "what to keep" {
		t.Errorf("commands events %v, want init and compress", commands)
	}
}
