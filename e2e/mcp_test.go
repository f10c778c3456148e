package e2e

import (
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
