// Package lsp is the agentls language server: it speaks LSP over a
// jsonrpc2 stream, keeps an overlay of the editor's open documents, runs
// agent tasks in the background for workspace/executeCommand, and sends
// their edits (workspace/applyEdit), progress ($/progress), live stream
// (agentls/event) and verification failures (publishDiagnostics) back.
//
// One file per LSP area, as in gopls: lifecycle.go, text_sync.go,
// commands.go, progress.go, workspace.go (the agent's view of files),
// diagnostics.go, code_action.go.
package lsp
