// Package acpclient is agentls as an ACP client: the bridge that lets the
// language server drive an external ACP agent (agent.backend.acp) instead
// of agentls's own loop. The external agent's file reads and writes go
// through the workspace the language server lends it (the editor's
// buffers, versioned applyEdit, review), confined beneath the workspace
// root with the secret and protected-file rules; its permission requests
// go through the server's way of asking, and the verify gate runs after
// its turn.
//
// It is apart from internal/acp (agentls as an ACP agent), so that the
// language server does not link the ACP agent. It imports the core
// packages and never a front end.
package acpclient
