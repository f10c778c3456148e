package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/prompts"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/review"
)

// Slash commands: agentls's own, answered here without the model, and the
// project's prompts (.agentls/commands/*.md), which start a task with the
// file's text. They are announced with available_commands_update.

// builtinCommands are agentls's own commands.
var builtinCommands = []sdk.AvailableCommand{
	{Name: "verify", Description: "Run the project's checks on the files this session changed"},
	{Name: "undo", Description: "Undo the last task's edits (files changed since are left alone)"},
	{Name: "review", Description: "Review mode: on asks before every edit, off applies them", Input: inputHint("on | off")},
	{Name: "model", Description: "Show the models the endpoint serves, or pick one", Input: inputHint("model name")},
	{Name: "worktrees", Description: "List this workspace's worktree tasks and their state"},
	{Name: "merge", Description: "Merge a worktree task's change into your files", Input: inputHint("worktree ID")},
	{Name: "discard", Description: "Remove a worktree task's worktree and branch", Input: inputHint("worktree ID")},
	{Name: "until", Description: "Keep this session's tasks going until a command succeeds in the sandbox (or the budget ends); `/until off` stops it", Input: inputHint("command | off")},
}

func inputHint(h string) *sdk.AvailableCommandInput {
	return &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: h}}
}

func isBuiltin(name string) bool {
	for _, c := range builtinCommands {
		if c.Name == name {
			return true
		}
	}
	return false
}

// availableCommands are the session's commands: agentls's and the
// project's (internal/prompts: .agentls/commands/*.md, read beneath the
// root; a file it cannot use is left out and logged).
func (a *Agent) availableCommands(root string) []sdk.AvailableCommand {
	out := append([]sdk.AvailableCommand(nil), builtinCommands...)
	for _, c := range a.projectCommands(root, nil) { // the default secret files
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description + " (" + c.Path + ")"}
		h := c.ArgumentHint
		if h == "" {
			h = "arguments"
		}
		ac.Input = inputHint(h)
		out = append(out, ac)
	}
	return out
}

// projectCommands are the project's prompts, without those named like
// agentls's own commands (which win); a file that is or links to one of
// secretFiles (tools.secretFiles; nil: the defaults) is left out.
func (a *Agent) projectCommands(root string, secretFiles []string) []prompts.Command {
	cmds, err := assemble.Commands(root, secretFiles) // the project commands, then the skills
	if err != nil {
		a.log.Warn("project commands", zap.Error(err))
	}
	var out []prompts.Command
	for _, c := range cmds {
		if !isBuiltin(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// runBuiltin runs one of agentls's own commands; handled is false for any
// other text.
func (a *Agent) runBuiltin(ctx context.Context, s *acpSession, out *stream, name, args string) (handled bool) {
	switch name {
	case "model":
		if args == "" {
			s.mu.Lock()
			cur, list := s.model, append([]string(nil), s.modelList...)
			s.mu.Unlock()
			out.text(fmt.Sprintf("Model: %s\nThe endpoint serves: %s\n", cur, strings.Join(list, ", ")))
			return true
		}
		if _, err := s.setOption(optModel, args); err != nil {
			out.text(fmt.Sprintf("No model %q: %s\n", args, errText(err)))
			return true
		}
		a.optionsChanged(s, false)
		out.text("Model: " + args + "\n")
	case "review":
		mode := map[string]string{"on": modeAsk, "off": modeApply, "": modeAsk}[strings.ToLower(args)]
		if mode == "" {
			out.text("/review on or /review off\n")
			return true
		}
		changed, _ := s.setOption(optMode, mode)
		a.optionsChanged(s, changed)
		out.text(map[string]string{modeAsk: "Review on: each edit is asked about first.\n", modeApply: "Review off: edits are applied as they are made.\n"}[mode])
	case "until":
		s.mu.Lock()
		switch {
		case args == "":
		case strings.EqualFold(args, "off"):
			s.until = ""
		default:
			s.until = args
		}
		cur := s.until
		s.mu.Unlock()
		if cur == "" {
			out.text("No stop condition: a task ends when the model stops.\n")
		} else {
			out.text("Stop condition: each task goes on after the model stops until `" + cur + "` succeeds in the sandbox, or the budget ends.\n")
		}
	case "verify":
		a.verifyCommand(ctx, s, out)
	case "undo":
		a.undoCommand(ctx, s, out)
	case "worktrees", "merge", "discard":
		a.worktreesCommand(ctx, s, out, name, args)
	default:
		f, ok := moreBuiltins[name]
		if !ok {
			return false
		}
		f(a, ctx, s, out, args)
	}
	return true
}

func errText(err error) string {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		if m, ok := re.Data.(map[string]any); ok {
			if e, ok := m["error"].(string); ok {
				return e
			}
		}
		return re.Message
	}
	return err.Error()
}

// verifyCommand runs the checks on the files this session changed.
func (a *Agent) verifyCommand(ctx context.Context, s *acpSession, out *stream) {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	var changed []string
	if last != nil {
		changed = last.changedFiles()
	}
	if len(changed) == 0 {
		out.text("No task in this session changed files; nothing to check.\n")
		return
	}
	cfg := s.taskConfig()
	cfg.Verify.Enabled = true
	g := assemble.NewGate(cfg, s.root)
	if g == nil {
		out.text("This project has no checks agentls knows (set verify.commands).\n")
		return
	}
	g.Unsaved = last.unsaved
	g.OnStart = out.verifyStarted
	rep, err := g.Verify(ctx, changed)
	if err != nil {
		out.text("The checks could not run: " + err.Error() + "\n")
		return
	}
	out.verified(&rep)
	out.text(render.Checks(rep) + "\n")
}

// undoCommand puts back what the session's last task changed, file by
// file, where the file is still as the task left it.
func (a *Agent) undoCommand(ctx context.Context, s *acpSession, out *stream) {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last == nil || len(last.changedFiles()) == 0 {
		out.text("Nothing to undo: no task in this session changed files.\n")
		return
	}
	var done, left []string
	for _, rel := range last.undoOrder() {
		if err := last.undo(ctx, rel); err != nil {
			left = append(left, rel+": "+err.Error())
			continue
		}
		done = append(done, rel)
	}
	var b strings.Builder
	if len(done) > 0 {
		fmt.Fprintf(&b, "Undone: %s\n", strings.Join(done, ", "))
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "Left as they are:\n- %s\n", strings.Join(left, "\n- "))
	}
	out.text(b.String())
	s.mu.Lock()
	if s.last == last {
		s.last = nil // undone once
	}
	s.mu.Unlock()
}

// errChangedSince: the file changed after the task; undo leaves it.
var errChangedSince = errors.New("changed since the task; left alone")

// undo puts back one file's text from before the task.
func (w *clientWorkspace) undo(ctx context.Context, rel string) error {
	fc, ok := w.log.File(rel)
	if !ok {
		return nil
	}
	if fc.Gone {
		return w.restore(ctx, fc)
	}
	if !fc.Existed {
		// A file the task created: removed when it is still what the task
		// wrote (from the disk; the client's fs has no delete).
		_, err := w.files.Apply(ctx, []string{rel}, apply.Batch{Label: "agentls: undo " + rel}, func(cur map[string]apply.Text) ([]apply.Change, error) {
			c := cur[rel]
			switch {
			case !c.Exists:
				return nil, nil
			case c.Data != fc.After:
				return nil, errChangedSince
			}
			return []apply.Change{{Rel: rel, Cur: c, Delete: true}}, nil
		})
		if err != nil && w.write && !errors.Is(err, errChangedSince) {
			return errors.New("created by the task; the editor cannot delete files over ACP, delete it yourself")
		}
		return err
	}
	return w.edit(ctx, rel, func(old []byte, exists bool) ([]byte, error) {
		if !exists || string(old) != fc.After {
			return nil, errChangedSince
		}
		return []byte(fc.Base), nil
	}, false)
}

// restore makes a file the task's command deleted again, with its text
// and mode, where nobody made it since.
func (w *clientWorkspace) restore(ctx context.Context, fc review.File) error {
	if !fc.Existed {
		return nil // made and deleted by the task: nothing to put back
	}
	_, err := w.files.Apply(ctx, []string{fc.Rel}, apply.Batch{Label: "agentls: undo " + fc.Rel}, func(cur map[string]apply.Text) ([]apply.Change, error) {
		p := review.PlanUndo(fc, cur[fc.Rel].Data, cur[fc.Rel].Exists)
		if !p.Restore {
			return nil, errChangedSince
		}
		return []apply.Change{{Rel: fc.Rel, Cur: cur[fc.Rel], Next: p.Next, Mode: p.Mode}}, nil
	})
	return err
}
