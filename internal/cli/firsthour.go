package cli

import (
	"fmt"
	"os"
	"strings"

	projcmd "github.com/agentls/agentls/internal/commands"
)

// expandCommand turns a task typed as "/name args" into the project
// command's prompt (.agentls/commands/name.md). A task that names none is
// left as typed, unless the project has commands, the name is not a path
// that exists ("/tmp is full" stays a sentence) and so is a mistyped
// command: that is a usage error naming the commands there are.
func expandCommand(root, task string, warn func(string)) (string, error) {
	name, args, ok := projcmd.Split(task)
	if !ok {
		return task, nil
	}
	cmds, err := projcmd.Load(root)
	if err != nil && warn != nil {
		warn(err.Error())
	}
	if c, ok := projcmd.Find(cmds, name); ok {
		return c.Expand(args), nil
	}
	if len(cmds) == 0 {
		return task, nil
	}
	if _, err := os.Lstat("/" + name); err == nil {
		return task, nil
	}
	return "", fmt.Errorf("no project command /%s in %s; there are: %s", name, projcmd.Dir, strings.Join(projcmd.Names(cmds), ", "))
}
