// Package session keeps what agentls tasks did, per workspace, under the
// user's state directory ($XDG_STATE_HOME/agentls, by default
// ~/.local/state/agentls):
//
//   - sessions: every task belongs to one. Its conversation, result and
//     file changes are appended as JSON lines and fsynced at each turn, so
//     a session survives a crash or kill -9 and can be continued with its
//     history (a torn last line is skipped with a warning).
//   - memory: a one-paragraph summary of each finished task, recalled into
//     the prompt of later tasks in the same workspace.
//   - transcripts: one Markdown file per task, written as the task streams.
//
// The LSP server and the headless CLI use the same Store. A store that
// cannot be written never fails a task: the problem is reported through
// Options.Warn and the task goes on in memory.
//
// The package imports agent and edits; it must never import lsp.
package session
