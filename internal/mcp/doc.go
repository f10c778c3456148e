// Package mcp offers the model the tools of Model Context Protocol servers
// named in the mcpServers setting, through the official Go SDK.
//
// A Manager owns the servers of one agentls process: it starts them on the
// first Tools call, turns each server tool into an agent.Tool named
// mcp__<server>__<tool>, asks the Approver before every call the server's
// allow list does not cover, restarts a crashed server once and disables it
// after a second crash, and kills every process group it started on Close.
//
// Like the rest of agent/, it must never import lsp.
package mcp
