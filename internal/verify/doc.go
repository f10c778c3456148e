// Package verify runs a workspace's own checks (build, vet, tests, linters)
// and turns their output into located diagnostics and a short feedback text
// for the model.
//
// Checks see the agent's edits before they reach the disk. Where the
// sandbox is available, each check runs confined by internal/proc in a
// view of the workspace mounted on its own path (proc.Sandbox.View): the
// buffers' texts over the disk, every write discarded. Elsewhere a
// CheckDir copies the workspace to a temporary directory (never sharing a
// file with it), writes the buffer texts there and maps every path the
// tools print back to the real workspace, or go commands get go's -overlay.
//
// The package is a pure library: it must never import lsp or agent, which
// wire it in.
package verify
