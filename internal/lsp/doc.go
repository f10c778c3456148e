// Package lsp is the agentls language server: it speaks LSP over a
// jsonrpc2 stream, keeps the editor's open documents (openDocs), runs
// agent tasks in the background for workspace/executeCommand, and sends
// their edits (workspace/applyEdit), progress ($/progress), live stream
// (agentls/event) and verification failures (publishDiagnostics) back.
//
// One file per LSP area, as in gopls: lifecycle.go, config.go,
// text_sync.go, commands.go, progress.go, diagnostics.go, code_action.go;
// then tasks.go (the task manager and its bounded history), run.go (the
// editor's part of assemble.Run: progress, events), workspace.go (the
// agent's view of files), review.go, accept.go, undo.go (the round trips
// of the plans internal/review makes), and guard.go (panic barriers and
// the test-only hooks).
//
// Server is protocol glue: it decodes a message, calls a feature and
// encodes the answer. Each feature is a type holding exactly its
// collaborators, never the *Server (internal/layers holds this): editor
// (editor.go: the client, what it can do, the write path's
// applyEdit-or-disk transport), configState and trust, asker (approve.go),
// diagnostics, taskManager, runner (run.go), reviewer (review.go: review,
// accept, reject, undo, rewind, diff), worktrees, jobs (delegate.go) and
// about (models.go: the models, agentls.info, the project commands).
// The command table maps a command id to a feature's method.
//
// The state is split by concern, each part with its own lock (the
// editor's, documents, configuration, trust, tasks, diagnostics, review,
// MCP), and no lock is held across a request to the client.
package lsp
