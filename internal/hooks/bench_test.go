package hooks

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
)

func TestMain(m *testing.M) {
	proc.Init() // the sandbox launcher re-executes the test binary
	os.Exit(m.Run())
}

// BenchmarkPreToolUseHook is what a PreToolUse hook adds to each tool call
// it matches (micro-benchmark: one sandboxed process start, the payload
// written and read back, no model): the cost teams pay for a hook that
// checks every command.
func BenchmarkPreToolUseHook(b *testing.B) {
	if ok, why := proc.Available(); !ok {
		b.Fatalf("sandbox unavailable: %s", why)
	}
	root := b.TempDir()
	b.Setenv("XDG_STATE_HOME", b.TempDir()) // the sandbox's cache layers
	r := &Runner{Root: root, Session: "s", Sandbox: proc.Sandbox{Mode: proc.ModeWorkspaceWrite},
		Sources: []Source{{Name: "bench", Hooks: Config{PreToolUse: {{Matcher: "Bash", Hooks: []Handler{{Type: "command", Command: "cat >/dev/null"}}}}}}}}
	call := agent.ToolCall{ID: "c1", Name: "run_command"}
	args := json.RawMessage(`{"command":"go test ./..."}`)
	for b.Loop() {
		if p := r.PreToolUse(context.Background(), call, args); p.Block != "" {
			b.Fatal(p.Block)
		}
	}
}
