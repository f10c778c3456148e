// Package driver runs the agent machine (internal/agent): it performs the
// machine's actions — streaming the model, running tools, verifying, timers —
// and feeds the outcomes back as inputs, with a panic barrier around every
// goroutine and hook it starts.
//
// It knows no front end: the LSP server, the ACP agent and the CLI reach it
// through internal/assemble. It must never import internal/lsp, internal/acp
// or internal/cli.
package driver
