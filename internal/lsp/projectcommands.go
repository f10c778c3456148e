package lsp

import (
	"context"

	"github.com/agentls/agentls/internal/assemble"
	projcmd "github.com/agentls/agentls/internal/commands"
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

// cmdCommands lists the workspace's project commands (.agentls/commands)
// and skills (.agents/skills),
// read afresh on each call so a new file shows without a restart.
func (s *Server) cmdCommands(ctx context.Context, _ noArgs) (any, error) {
	cmds, err := assemble.Commands(s.rootDir(), s.config().Tools.SecretFiles)
	res := commandsResult{Commands: []projectCommand{}}
	for _, c := range cmds {
		res.Commands = append(res.Commands, projectCommand{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint, Path: c.Path})
	}
	if err != nil {
		res.Error = err.Error()
	}
	return res, nil
}

// expandProjectCommand turns a task typed as "/name args" into the
// project command's prompt. A task that names no project command is left
// as typed ("/tmp is full" stays a sentence). The expansion is text the
// user asked for; it starts the task like any prompt and changes nothing
// else about it.
func expandProjectCommand(root, task string, secretFiles []string) string {
	name, args, ok := projcmd.Split(task)
	if !ok {
		return task
	}
	cmds, _ := assemble.Commands(root, secretFiles)
	c, ok := projcmd.Find(cmds, name)
	if !ok {
		return task
	}
	return c.Expand(args)
}
