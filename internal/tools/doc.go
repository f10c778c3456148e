// Package tools holds the tools the agent offers the model (read_file,
// list_files, grep, write_file, edit_file, run_command), the confinement
// policy every one of them goes through, and DiskWorkspace, the Workspace of
// the headless CLI and of tests.
//
// Names, arguments and results are part of the public contract
// (docs/commands.md, "Tools offered to the model"): recorded conversations replay against them. Reads go
// through agent.Workspace so open editor buffers win over the disk, and
// writes go through Workspace.Edit so the editor applies them. The package
// must never import lsp.
package tools
