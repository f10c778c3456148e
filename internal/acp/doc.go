// Package acp is agentls as an Agent Client Protocol (ACP) agent (Serve,
// `agentls acp`): a third front end on the same core as the language
// server and the headless CLI. Every prompt builds its driver through
// assemble.Driver, with the session store, memory and transcripts of the
// other two; the client's fs methods are the workspace when it offers
// them, and session/request_permission is how the shared command policy
// asks. What the Go SDK lacks (session/delete and its capability) is
// answered on the connection (wire.go, sessions.go).
//
// The other direction, agentls as an ACP client of an external agent (the
// bridge), is internal/acpclient.
//
// It imports the core packages (agent, assemble, driver, session, tools,
// config) and never another front end.
package acp
