package assemble

import (
	"time"

	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/verify"
	"github.com/agentls/agentls/internal/verify/gate"
)

// NewGate returns the gate for the workspace, or nil when verification is
// off or there is nothing to check: a task then ends with nothing verified.
func NewGate(cfg config.Config, root string) *gate.Gate {
	if !cfg.Verify.Enabled {
		return nil
	}
	timeout := time.Duration(cfg.Verify.TimeoutSeconds) * time.Second
	sb := configured(cfg, root)
	if len(cfg.Verify.Commands) > 0 {
		return &gate.Gate{Root: root, Commands: cfg.Verify.Commands, Timeout: timeout, Sandbox: sb, Secrets: secrets(cfg)}
	}
	// A gate exists when the project files call for checks, even if there
	// is nothing for them to check yet: the task may add it. Which of them
	// apply is decided at each run (Verify), with the task's files; walking
	// the tree for sources here would be thrown away.
	all := verify.DetectAny(root)
	if len(all) == 0 {
		return nil
	}
	return &gate.Gate{Root: root, Commands: all, Timeout: timeout, Sandbox: sb, Secrets: secrets(cfg), Detected: true}
}
