// Package agent is the agent loop: a pure state machine (machine.go) that turns
// inputs into actions, and a driver (driver.go) that performs those actions —
// streaming the model, running tools, verifying — and feeds the results back.
//
// The package knows nothing about LSP: editors, the CLI and tests reach it
// through the Workspace, LLM and Tool interfaces and subscribe to its Events.
// It must never import the lsp package.
package agent
