// Package verify runs a workspace's own checks (build, vet, tests, linters)
// and turns their output into located diagnostics and a short feedback text
// for the model.
//
// Checks see the agent's edits before they reach the disk: an Overlay copies
// the workspace to a temporary directory, writes the unsaved buffer texts
// there and maps every path the tools print back to the real workspace, so
// the user's files are never written.
//
// The package is a pure library: it must never import lsp or agent, which
// wire it in.
package verify
