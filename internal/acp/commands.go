package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/textcut"
)

// Slash commands: agentls's own, answered here without the model, and the
// project's prompts (.agentls/commands/*.md), which start a task with the
// file's text. They are announced with available_commands_update.

// builtinCommands are agentls's own commands.
var builtinCommands = []sdk.AvailableCommand{
	{Name: "verify", Description: "Run the project's checks on the files this session changed"},
	{Name: "undo", Description: "Undo the last task's edits (files changed since are left alone)"},
	{Name: "review", Description: "Review mode: on asks before every edit, off applies them", Input: hint("on | off")},
	{Name: "model", Description: "Show the models the endpoint serves, or pick one", Input: hint("model name")},
}

func hint(h string) *sdk.AvailableCommandInput {
	return &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: h}}
}

// projectCommand is one of the project's prompts.
type projectCommand struct{ name, description, body string }

// projectCommandsDir is where a project keeps its prompts.
const projectCommandsDir = ".agentls/commands"

// maxCommandFile bounds one command file.
const maxCommandFile = 64 << 10

// loadProjectCommands reads .agentls/commands/*.md beneath root: a link
// out of the workspace, a file that is not regular, too large or not
// UTF-8 is left out. (A small reader of its own: the shared loader of
// project commands, internal/commands, is not on this branch yet; when it
// is, this should call it.)
func loadProjectCommands(root string) []projectCommand {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	d, err := r.Open(projectCommandsDir)
	if err != nil {
		return nil
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil
	}
	var out []projectCommand
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !validCommandName(name) || isBuiltin(name) || len(out) == 200 {
			continue
		}
		body, err := readBeneath(r, path.Join(projectCommandsDir, e.Name()), maxCommandFile)
		if err != nil || !utf8.Valid(body) {
			continue
		}
		text := strings.TrimSpace(stripFrontMatter(string(body)))
		desc, _, _ := strings.Cut(text, "\n")
		desc = strings.TrimSpace(strings.TrimLeft(desc, "# "))
		if len(desc) > 80 {
			desc = textcut.Head(desc, 79) + "…"
		}
		out = append(out, projectCommand{name: name, description: desc, body: text})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// readBeneath reads a regular file beneath r, at most max bytes.
func readBeneath(r *os.Root, rel string, max int64) ([]byte, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is larger than %d KiB", rel, max>>10)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s is larger than %d KiB", rel, max>>10)
	}
	return b, err
}

func stripFrontMatter(text string) string {
	rest, ok := strings.CutPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "---\n")
	if !ok {
		return text
	}
	if _, body, ok := strings.Cut(rest, "\n---\n"); ok {
		return body
	}
	return text
}

func validCommandName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for i, c := range n {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '-' || c == '_' || c == '.')
		if !ok {
			return false
		}
	}
	return true
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
// project's.
func availableCommands(root string) []sdk.AvailableCommand {
	out := append([]sdk.AvailableCommand(nil), builtinCommands...)
	for _, c := range loadProjectCommands(root) {
		out = append(out, sdk.AvailableCommand{Name: c.name, Description: c.description + " (" + projectCommandsDir + "/" + c.name + ".md)",
			Input: hint("arguments")})
	}
	return out
}

// splitCommand parses "/name args"; ok is false for text that is no
// command ("/usr/bin is empty" is one only if a command of that name exists:
// the caller checks).
func splitCommand(text string) (name, args string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimLeft(text, " \t\n"), "/")
	if !found {
		return "", "", false
	}
	name, args, _ = strings.Cut(rest, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		args, name = name[i+1:]+" "+args, name[:i]
	}
	if !validCommandName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

// expand is a project command's prompt run with args: $ARGUMENTS in its
// text is replaced, else non-empty args are appended.
func (c projectCommand) expand(args string) string {
	if strings.Contains(c.body, "$ARGUMENTS") {
		return strings.ReplaceAll(c.body, "$ARGUMENTS", args)
	}
	if args == "" {
		return c.body
	}
	return c.body + "\n\n" + args
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
	case "verify":
		a.verifyCommand(ctx, s, out)
	case "undo":
		a.undoCommand(ctx, s, out)
	default:
		return false
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
	g.Overlay = last.overlay
	g.OnStart = out.verifyStarted
	rep, err := g.Verify(ctx, changed)
	if err != nil {
		out.text("The checks could not run: " + err.Error() + "\n")
		return
	}
	out.verified(&rep)
	if rep.Passed {
		out.text("✓ " + rep.Summary + "\n")
	} else {
		out.text("✗ " + rep.Summary + "\n")
	}
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
	w.mu.Lock()
	fc := w.files[rel]
	w.mu.Unlock()
	if fc == nil {
		return nil
	}
	if !fc.existed {
		// A file the task created: removed from the disk when it is still
		// what the task wrote; the client's fs has no delete.
		cur, exists, err := w.current(ctx, rel)
		if err != nil {
			return err
		}
		if !exists {
			return nil
		}
		if string(cur) != fc.after {
			return errChangedSince
		}
		if w.write {
			return errors.New("created by the task; the editor cannot delete files over ACP, delete it yourself")
		}
		r, err := os.OpenRoot(w.disk.Root())
		if err != nil {
			return err
		}
		defer r.Close()
		if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return w.edit(ctx, rel, func(old []byte, exists bool) ([]byte, error) {
		if !exists || string(old) != fc.after {
			return nil, errChangedSince
		}
		return []byte(fc.base), nil
	}, false)
}
