// Package cli is the headless front end: `agentls run` (the agent with the
// terminal as its editor) and `agentls sessions`. It wires the agent through
// internal/assemble, as the LSP and ACP front ends do.
package cli
