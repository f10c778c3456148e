// Package acp speaks the Agent Client Protocol (ACP) in both directions.
//
// As an agent (Serve, `agentls acp`), it is a third front end on the same
// core as the language server and the headless CLI: every prompt builds its
// driver through assemble.Driver, with the session store, memory and
// transcripts of the other two; the client's fs methods are the workspace
// when it offers them, and session/request_permission is how the shared
// command policy asks.
//
// As a client (Bridge), it lets the language server drive an external ACP
// agent instead of agentls's own loop: the external agent's file reads and
// writes go through the workspace the language server lends it (the
// editor's buffers, versioned applyEdit, review), its permission requests
// through the server's way of asking, and the verify gate runs after its
// turn.
//
// It imports the core packages (agent, assemble, driver, session, tools,
// config) and never another front end.
package acp
