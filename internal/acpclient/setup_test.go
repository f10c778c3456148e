package acpclient

import (
	"encoding/json"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/config"
)

// The user's MCP servers in ACP's form, sorted by name: stdio with its
// arguments and environment, HTTP with its URL; arrays never null (ACP
// requires them).
func TestMCPServers(t *testing.T) {
	got := mcpServers(map[string]config.MCPServer{
		"web":  {URL: "http://127.0.0.1:9/mcp"},
		"docs": {Command: "docs-mcp", Env: map[string]string{"B": "2", "A": "1"}},
	})
	b, _ := json.Marshal(got)
	want := `[{"args":[],"command":"docs-mcp","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"name":"docs"},` +
		`{"headers":[],"name":"web","type":"http","url":"http://127.0.0.1:9/mcp"}]`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if b, _ := json.Marshal(mcpServers(nil)); string(b) != "[]" {
		t.Errorf("no servers: %s", b)
	}
}

func TestWorkPlan(t *testing.T) {
	got := workPlan([]sdk.PlanEntry{
		{Content: "read", Status: sdk.PlanEntryStatusCompleted},
		{Content: "edit", Status: sdk.PlanEntryStatusInProgress},
		{Content: "test", Status: sdk.PlanEntryStatusPending},
	})
	b, _ := json.Marshal(got)
	if want := `{"plan":[{"step":"read","status":"completed"},{"step":"edit","status":"in_progress"},{"step":"test","status":"pending"}]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
