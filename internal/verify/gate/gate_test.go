package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
)

// A detected gate with nothing to check skips instead of passing.
func TestDetectedGateWithNoSourcesSkips(t *testing.T) {
	root := t.TempDir()
	g := &Gate{Root: root, Commands: []string{"go build ./..."}, Detected: true, Sandbox: proc.Sandbox{Mode: proc.ModeOff}}
	rep, err := g.Verify(context.Background(), []string{"notes.txt"})
	if err != nil || !rep.Skipped || !rep.Passed || !strings.HasPrefix(rep.Summary, "nothing to check") {
		t.Fatalf("%+v %v", rep, err)
	}
}
