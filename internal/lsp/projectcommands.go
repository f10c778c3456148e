package lsp

import (
	"context"

	"github.com/agentls/agentls/internal/assemble"
)

// projectCommand is one entry of agentls.commands: what an editor's picker
// shows. Running one is agentls.run with the task "/name args".
type projectCommand struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argumentHint,omitempty"`
	Path         string `json:"path"`
}

type commandsResult struct {
	Commands []projectCommand `json:"commands"`
	Error    string           `json:"error,omitempty"` // files left out, and why
}

// expandProjectCommand turns a task typed as "/name args" into the
// project command's prompt (assemble.ExpandCommand); a task that names
// none, or a name the project does not have, is left as typed. The
// expansion is text the user asked for; it starts the task like any prompt
// and changes nothing else about it.
func expandProjectCommand(root, task string, secretFiles []string) string {
	expanded, _, _ := assemble.ExpandCommand(root, task, secretFiles)
	return expanded
}

// cmdCommands lists the workspace's project commands (.agentls/commands)
// and skills (.agents/skills),
// read afresh on each call so a new file shows without a restart.
func (ab *about) cmdCommands(ctx context.Context, _ noArgs) (any, error) {
	cmds, err := assemble.Commands(ab.ed.rootDir(), ab.conf.config().Tools.SecretFiles)
	res := commandsResult{Commands: []projectCommand{}}
	for _, c := range cmds {
		res.Commands = append(res.Commands, projectCommand{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint, Path: c.Path})
	}
	if err != nil {
		res.Error = err.Error()
	}
	return res, nil
}
