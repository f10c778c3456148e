// Package prompts loads a project's own prompts: Markdown files in
// .agentls/commands/ become commands ("/name args") that every front end
// offers (the editors' pickers, `agentls run /name`, ACP's
// available_commands_update).
//
// A command file is a workspace file, written by whoever wrote the
// repository: it is text that starts a task exactly as if the user had
// typed it. It grants nothing — no tool, no approval, no setting — and
// the files are read through the one reader of workspace text
// (internal/wsread): beneath the workspace root, without blocking, and
// never a secret file, so a symbolic link cannot make a file outside the
// workspace, or its .env, a command. This package imports nothing of
// agentls's own but textcut and wsread.
package prompts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/wsread"
)

// Dir is where a project keeps its commands, relative to the workspace root.
const Dir = ".agentls/commands"

// Limits keep a hostile or careless repository from making the picker or
// the prompt huge.
const (
	MaxFileBytes = 64 << 10
	MaxCommands  = 200
)

// Command is one project command.
type Command struct {
	Name         string // the file's base name without ".md": "review-pr"
	Description  string // from front matter "description:", or the body's first line
	ArgumentHint string // from front matter "argument-hint:", e.g. "<issue number>"
	Body         string // the prompt, front matter removed
	Path         string // workspace-relative, slash-separated: ".agentls/commands/review-pr.md"
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Load reads the commands of the workspace at root, sorted by name. A
// workspace without the folder has none (nil, nil). Files that cannot be
// used (too large, not UTF-8, a bad name, unreadable) are left out and
// named in the error, while the good ones are still returned: callers show
// the error and offer the rest. secretFiles are the tools.secretFiles
// globs (nil: the defaults): a command file that is, or links to, a
// secret file is left out.
func Load(root string, secretFiles []string) ([]Command, error) {
	reader := wsread.New(root, secretFiles)
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("project commands: %w", err)
	}
	defer r.Close()
	d, err := r.Open(Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("project commands: %w", err)
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("project commands: read %s: %w", Dir, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var cmds []Command
	var errs []error
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() {
			continue
		}
		rel := path.Join(Dir, e.Name())
		if !validName.MatchString(name) {
			errs = append(errs, fmt.Errorf("%s: a command name is letters, digits, '.', '_' and '-' (at most 64)", rel))
			continue
		}
		if len(cmds) == MaxCommands {
			errs = append(errs, fmt.Errorf("%s: more than %d commands; the rest are left out", rel, MaxCommands))
			break
		}
		text, err := readFile(reader, rel)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c := Parse(name, text)
		c.Path = rel
		cmds = append(cmds, c)
	}
	return cmds, errors.Join(errs...)
}

// readFile reads one command file through reader (beneath the root,
// never a secret, never blocking on a named pipe), refusing more than
// MaxFileBytes or bytes that are not UTF-8.
func readFile(reader wsread.Reader, rel string) (string, error) {
	f, err := reader.Read(rel, MaxFileBytes)
	if err != nil {
		return "", err
	}
	if f.More {
		return "", fmt.Errorf("%s: larger than %d KiB", rel, MaxFileBytes>>10)
	}
	if !utf8.Valid(f.Data) {
		return "", fmt.Errorf("%s: not UTF-8 text", rel)
	}
	return string(f.Data), nil
}

// Parse makes a command from a file's text. Front matter is optional: a
// first line "---", "key: value" lines, and a closing "---". Only
// description and argument-hint are read; other keys are ignored (a
// command file sets nothing else).
func Parse(name, text string) Command {
	c := Command{Name: name}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	body := text
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		lines := strings.Split(rest, "\n")
		for i, l := range lines {
			if strings.TrimRight(l, " \t") != "---" {
				continue
			}
			body = strings.Join(lines[i+1:], "\n")
			for _, line := range lines[:i] {
				k, v, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				v = unquote(strings.TrimSpace(v))
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "description":
					c.Description = v
				case "argument-hint", "argument_hint":
					c.ArgumentHint = v
				}
			}
			break
		}
	}
	c.Body = strings.TrimSpace(body)
	if c.Description == "" {
		first, _, _ := strings.Cut(c.Body, "\n")
		c.Description = strings.TrimSpace(strings.TrimLeft(first, "# "))
		if len(c.Description) > 80 {
			c.Description = textcut.Head(c.Description, 79) + "…"
		}
	}
	return c
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// Expand makes the prompt for this command run with args (the text after
// "/name "). "$ARGUMENTS" in the body is replaced by args; a body that
// does not mention it gets non-empty args appended as its last paragraph,
// so nothing the user typed is dropped.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	if strings.Contains(c.Body, "$ARGUMENTS") {
		return strings.ReplaceAll(c.Body, "$ARGUMENTS", args)
	}
	if args == "" {
		return c.Body
	}
	return c.Body + "\n\n" + args
}

// Split parses a typed line "/name args" into the name and its arguments.
// ok is false when the line is not a command invocation (it does not
// start with "/" followed by a valid name), e.g. "/usr/bin is empty".
func Split(line string) (name, args string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimLeft(line, " \t\n"), "/")
	if !found {
		return "", "", false
	}
	name, args, _ = strings.Cut(rest, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		args = name[i+1:] + " " + args
		name = name[:i]
	}
	if !validName.MatchString(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

// Find returns the command called name.
func Find(cmds []Command, name string) (Command, bool) {
	for _, c := range cmds {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Names lists the commands' names, for "unknown command" messages.
func Names(cmds []Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, "/"+c.Name)
	}
	return out
}
