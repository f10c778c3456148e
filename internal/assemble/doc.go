// Package assemble is the one wiring path from configuration to a ready
// driver: the model backend, the tools with their confinement and command
// approval, MCP tools, the verify gate, prices, limits and the session
// hooks. The LSP server, the ACP agent and the headless CLI all build their
// drivers here, so they cannot drift apart; each lends only what is its own
// (the workspace view, how to ask the user, where events and diagnostics go).
//
// It imports the core packages and never a front end.
package assemble
