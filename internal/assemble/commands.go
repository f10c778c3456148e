package assemble

import (
	"github.com/agentls/agentls/internal/commands"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/tools"
)

// Commands are what every front end lists and runs as "/name args": the
// project's commands (.agentls/commands) and then its skills
// (.agents/skills, driver.Skills), a skill named like a command left out.
// A skill runs as a prompt that points the model at its SKILL.md, which it
// reads with read_file, under the same rules as every workspace file.
func Commands(cfg config.Config, root string) ([]commands.Command, error) {
	cmds, err := commands.Load(root)
	secret := tools.Policy{Root: root, SecretFiles: cfg.Tools.SecretFiles}.IsSecret
	for _, s := range driver.Skills(root, secret) {
		if _, taken := commands.Find(cmds, s.Name); taken {
			continue
		}
		desc := "skill"
		if s.Description != "" {
			desc = "skill: " + s.Description
		}
		cmds = append(cmds, commands.Command{
			Name:         s.Name,
			Description:  desc,
			ArgumentHint: "what to use it for",
			Path:         s.Path,
			Body:         "Use the workspace's skill " + s.Name + ": read its instructions in " + s.Path + " with read_file first, then follow them.\n\n$ARGUMENTS",
		})
	}
	return cmds, err
}
