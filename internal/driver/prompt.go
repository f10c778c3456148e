package driver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/internal/agent"
)

// SystemPrompt is what the model is told about its job. Short on purpose:
// every byte is paid for on every turn.
const SystemPrompt = `You are agentls, a coding agent working inside the user's editor on their workspace.
Do the task with the tools; paths are relative to the workspace root.
- Read before you edit. Prefer edit_file with an exact, unique old_string; use write_file for new files or full rewrites.
- Keep changes minimal and in the style of the surrounding code. Do not reformat unrelated code.
- The user may be typing in the same files: if an edit fails because the text changed, read the file again.
- After your edits the project's checks run; if they fail you will get the errors to fix.
- When done, stop calling tools and answer with a short summary of what you changed.`

// CompactionPrompt asks for a summary of dropped turns.
const CompactionPrompt = `Summarize this earlier part of a coding agent's work for the agent itself, in at most 15 short lines: files read and what was learned, edits made (file and purpose), errors met, and what remains to do. No preamble.`

// ContextFiles are read from the workspace root, in order, into the prompt.
var ContextFiles = []string{"AGENTS.md", ".agentls/instructions.md"}

// maxContextFile caps each project instruction file.
const maxContextFile = 32 << 10

// WorkspacePlanner builds the prefix from the system prompt, the project's
// instruction files and the editor context, plus recalled memory.
type WorkspacePlanner struct {
	Root string
	// Recall returns summaries of earlier tasks worth knowing, newest
	// first; nil for none.
	Recall func(ctx context.Context, task string) []string
	// Secret says whether a workspace-relative, '/'-separated path names a
	// secret file (tools.secretFiles): such a file is never put in the
	// prompt, as a context file or a mention. nil: no file is secret.
	Secret func(rel string) bool
}

// Plan implements Planner.
func (p WorkspacePlanner) Plan(ctx context.Context, t Assignment) (agent.Planned, error) {
	var b strings.Builder
	b.WriteString(SystemPrompt)
	// The workspace is untrusted: its instruction files are read as
	// mentions are, confined to it (a symlink to ~/.ssh stays out of the
	// prompt), regular (a named pipe would hang the task for good) and
	// not secret (AGENTS.md -> .env).
	if r, err := os.OpenRoot(p.Root); err == nil {
		for _, name := range ContextFiles {
			text, more, ok := readConfined(r, filepath.FromSlash(name), maxContextFile, p.Secret)
			if !ok {
				continue
			}
			if more {
				text += "…"
			}
			fmt.Fprintf(&b, "\n\n## Project instructions (%s)\n%s", name, text)
		}
		r.Close()
	}
	if p.Recall != nil {
		if mem := p.Recall(ctx, t.Prompt); len(mem) > 0 {
			b.WriteString("\n\n## Earlier tasks in this workspace\n")
			for _, m := range mem {
				fmt.Fprintf(&b, "- %s\n", m)
			}
		}
	}
	prefix := []agent.Message{{Role: agent.RoleSystem, Content: b.String()}}
	if t.Editor != "" {
		prefix = append(prefix, agent.Message{Role: agent.RoleUser, Content: "Editor context:\n" + t.Editor})
	}
	if m := MentionsMessage(Mentions(p.Root, t.Prompt, p.Secret)); m != "" {
		prefix = append(prefix, agent.Message{Role: agent.RoleUser, Content: m})
	}
	return agent.Planned{Prefix: prefix, History: t.History}, nil
}
