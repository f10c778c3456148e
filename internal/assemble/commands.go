package assemble

import (
	"github.com/agentls/agentls/internal/commands"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/wsread"
)

// Commands are what every front end lists and runs as "/name args": the
// project's commands (.agentls/commands) and then its skills
// (.agents/skills, driver.Skills), a skill named like a command left out.
// Both are read through the one reader (internal/wsread) under
// secretFiles (tools.secretFiles; nil: the defaults). A skill runs as a
// prompt that points the model at its SKILL.md, which it reads with
// read_file, under the same rules as every workspace file.
func Commands(root string, secretFiles []string) ([]commands.Command, error) {
	cmds, err := commands.Load(root, secretFiles)
	for _, s := range driver.Skills(root, wsread.New(root, secretFiles).Secret) {
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
