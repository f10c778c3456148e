package e2e

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

const echoTwice = `{"turns":[
 {"toolCalls":[{"id":"c1","name":"run_command","arguments":"{\"command\":\"echo first > out.txt && cat out.txt\"}"}]},
 {"toolCalls":[{"id":"c2","name":"run_command","arguments":"{\"command\":\"echo first > out.txt && cat out.txt\"}"}]},
 {"text":"ran"}]}`

// alwaysAsk is tools.approval "always-ask", today's strict policy: every
// command tools.allow does not cover is asked about, sandbox or not.
func alwaysAsk() map[string]any {
	return map[string]any{"tools": map[string]any{"approval": "always-ask"}}
}

// The user is asked before a command runs; "Always allow" is remembered.
func TestRunCommandAsksUser(t *testing.T) {
	s := start(t, setup{script: echoTwice, settings: alwaysAsk()})
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		for _, a := range p.Actions {
			if a.Title == "Always allow this command" {
				return &a
			}
		}
		return nil
	}
	r := s.run(t, map[string]any{"task": "run it"})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "echo first > out.txt") {
		t.Errorf("asked %q, want once", asked)
	}
	msgs := s.LLM.Requests()[2].Body.Messages
	for _, m := range msgs {
		if m.Role == "tool" && !strings.Contains(m.Content, "first") {
			t.Errorf("tool result %q", m.Content)
		}
	}
}

// A denial reaches the model; nothing runs.
func TestRunCommandDenied(t *testing.T) {
	s := start(t, setup{script: `{"turns":[
 {"toolCalls":[{"id":"c1","name":"run_command","arguments":"{\"command\":\"touch made.txt\"}"}]},
 {"expect":{"lastToolContains":"denied"},"text":"ok"}]}`, settings: alwaysAsk()})
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		return &protocol.MessageActionItem{Title: "Deny"}
	}
	if r := s.run(t, map[string]any{"task": "touch"}); r.Status != "ok" {
		t.Fatal(r.Error)
	}
	if fileExists(s.Root + "/made.txt") {
		t.Error("denied command ran")
	}
}

// Helix cannot ask: the policy decides, and the refusal says how to allow.
func TestRunCommandPolicyWithoutShowMessageRequest(t *testing.T) {
	caps := lspclient.HelixCaps()
	s := start(t, setup{caps: &caps, script: `{"turns":[
 {"toolCalls":[{"id":"c1","name":"run_command","arguments":"{\"command\":\"touch made.txt\"}"}]},
 {"expect":{"lastToolContains":"tools.allow"},"toolCalls":[{"id":"c2","name":"run_command","arguments":"{\"command\":\"echo allowed\"}"}]},
 {"expect":{"lastToolContains":"allowed"},"text":"ok"}]}`,
		settings: map[string]any{"tools": map[string]any{"allow": []string{"echo"}, "approval": "always-ask"}}})
	if r := s.run(t, map[string]any{"task": "x"}); r.Status != "ok" {
		t.Fatal(r.Error)
	}
	if n := len(s.Notes(protocol.MethodWindowShowMessageRequest)); n != 0 {
		t.Errorf("showMessageRequest sent to a client without it")
	}
	if fileExists(s.Root + "/made.txt") {
		t.Error("command outside the policy ran")
	}
}
