package e2e

import (
	"github.com/agentls/agentls/internal/testkit/lspclient"
	"go.lsp.dev/protocol"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tools of an MCP server from mcpServers are offered to the model with
// their schemas and called through the same approval as run_command.
func TestMCPTool(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/mcpserver").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, allowed := range []bool{true, false} {
		name := map[bool]string{true: "allowed", false: "asks"}[allowed]
		t.Run(name, func(t *testing.T) {
			server := map[string]any{"command": bin}
			if allowed {
				server["allow"] = []string{"shout"}
			}
			s := start(t, setup{settings: map[string]any{"mcpServers": map[string]any{"loud": server}}, script: `{"turns":[
				{"toolCalls":[{"id":"c1","name":"mcp__loud__shout","arguments":"{\"text\":\"hello mcp\"}"}]},
				{"expect":{"lastToolContains":"HELLO MCP"},"text":"it shouted"}]}`})
			r := s.run(t, map[string]any{"task": "shout"})
			if r.Status != "ok" {
				t.Fatalf("%+v", r)
			}
			var offered []string
			for _, tool := range s.LLM.Requests()[0].Body.Tools {
				offered = append(offered, tool.Name)
			}
			if !strings.Contains(strings.Join(offered, ","), "mcp__loud__shout") {
				t.Errorf("tools offered: %v", offered)
			}
			asked := len(s.Notes("window/showMessageRequest"))
			if allowed && asked != 0 || !allowed && asked != 1 {
				t.Errorf("asked %d times (allowed %v)", asked, allowed)
			}
		})
	}
}

// Changing mcpServers while a task runs does not close the MCP servers
// under it: the task keeps the manager it started with until it ends, and
// the next task gets the new one. (The change closed the manager at the
// next task's start, and the running task's MCP tool then failed with
// "manager is closed".)
func TestMCPSettingChangeKeepsARunningTasksTools(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/mcpserver").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	server := map[string]any{"command": bin, "allow": []string{"shout"}}
	s := start(t, setup{files: map[string]string{"f.txt": "alpha\n"},
		settings: map[string]any{"mcpServers": map[string]any{"loud": server}}, script: `{"turns":[
		{"toolCalls":[{"id":"w","name":"write_file","arguments":"{\"path\":\"f.txt\",\"content\":\"beta\\n\"}"}]},
		{"text":"B done"},
		{"toolCalls":[{"id":"c1","name":"mcp__loud__shout","arguments":"{\"text\":\"hello mcp\"}"}]},
		{"expect":{"lastToolContains":"HELLO MCP"},"text":"it shouted"}]}`})
	// Task A stops at its first edit until the editor answers.
	s.Configure(func(e *lspclient.Editor) {
		e.HoldApplyEdit = func(*protocol.ApplyWorkspaceEditParams) bool { return true }
	})
	id, err := s.Run(s.ctx, map[string]any{"task": "task A"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.WaitFor(testWait, func() bool { return len(s.Edits()) == 1 }) {
		t.Fatal("task A's edit never reached the editor")
	}
	// The user changes the MCP servers; task B starts and ends meanwhile.
	_ = s.Server.DidChangeConfiguration(s.ctx, &protocol.DidChangeConfigurationParams{
		Settings: protocol.LSPAny(`{"agentls":{"verify":{"enabled":false},"mcpServers":{"quiet":{"command":"` + bin + `"}}}}`)})
	if b := s.run(t, map[string]any{"task": "task B", "session": "other"}); b.Status != "ok" {
		t.Fatalf("B: %+v", b)
	}
	s.ReleaseHeld()
	a, err := s.Wait(s.ctx, id, testWait)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != "ok" || a.Summary != "it shouted" {
		t.Fatalf("task A ended %+v; its MCP tool failed after the setting changed", a)
	}
}

// A tools.deny rule refuses an MCP tool that its server's allow list names:
// the list spares the question, it does not lift a deny rule.
func TestMCPDenyBeatsServerAllow(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/mcpserver").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	s := start(t, setup{settings: map[string]any{
		"mcpServers": map[string]any{"loud": map[string]any{"command": bin, "allow": []string{"*"}}},
		"tools":      map[string]any{"deny": []string{"mcp loud.shout"}},
	}, script: `{"turns":[
		{"toolCalls":[{"id":"c1","name":"mcp__loud__shout","arguments":"{\"text\":\"hello mcp\"}"}]},
		{"expect":{"lastToolContains":"tools.deny rule \"mcp loud.shout\""},"text":"refused"}]}`})
	r := s.run(t, map[string]any{"task": "shout"})
	if r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	for _, req := range s.LLM.Requests() {
		for _, m := range req.Body.Messages {
			if strings.Contains(m.Content, "HELLO MCP") {
				t.Fatalf("the denied tool ran: %q", m.Content)
			}
		}
	}
	if asked := len(s.Notes("window/showMessageRequest")); asked != 0 {
		t.Errorf("asked %d times about a denied tool", asked)
	}
}
