package proc_test

import (
	"github.com/agentls/agentls/internal/policy"
	"github.com/agentls/agentls/internal/proc"
)

// setupSandbox is the sandbox assemble configures by default.
func setupSandbox() proc.Sandbox {
	return proc.Sandbox{Protect: policy.ProtectedNames(), SecretFiles: policy.DefaultSecretFiles(), DenyRead: policy.DefaultDenyRead()}
}
