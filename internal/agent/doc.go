// Package agent is the core of agentls: the vocabulary every other package
// speaks (messages, tool calls, events, results, the LLM, Tool and Workspace
// interfaces) and the pure state machine that turns inputs into actions
// (Machine.Step).
//
// The package is pure by construction: it does no I/O, reads no clock and
// starts no goroutines; purity_test.go fails the build's tests if it imports
// anything that could. The driver (internal/driver) performs the actions.
// It must never import another agentls package.
package agent
