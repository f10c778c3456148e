package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/textcut"
)

const defaultReadLimit = 2000

type readFileArgs struct {
	Path   string `json:"path" jsonschema:"Relative to the workspace root."`
	Offset int    `json:"offset,omitempty" minimum:"1" jsonschema:"First line, 1-based (default 1)."`
	Limit  int    `json:"limit,omitempty" minimum:"1" jsonschema:"Maximum number of lines (default 2000)."`
}

// readFileDecl is built on first use: inferring and resolving a schema costs start-up time every command would pay.
var readFileDecl = sync.OnceValue(func() *args[readFileArgs] { return declare[readFileArgs](nil) })

func newReadFile(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "read_file",
		description: "Read a text file as the user sees it (an open editor buffer wins over the disk), each line prefixed with its number and a tab (not part of the text). Shows up to 2000 lines; use offset/limit for the rest. Secret files (keys, .env) are refused.",
		schema:      readFileDecl().schema(),
		readOnly:    true,
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := readFileDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		abs, rel, err := o.Policy.ResolveRead(a.Path)
		if err != nil {
			return agent.ToolResult{}, err
		}
		data, err := readText(ctx, ws, abs, rel)
		if err != nil {
			return agent.ToolResult{}, err
		}
		if isBinary(data) {
			return agent.ToolResult{}, fmt.Errorf("%s is a binary file (%d bytes); read_file shows text only", rel, len(data))
		}
		o.reads.saw(rel)
		return agent.ToolResult{Output: showLines(rel, string(data), a.Offset, a.Limit, o.MaxReadOutput)}, nil
	}
	return t
}

// readText reads a file through the workspace, turning the usual failures
// into messages the model can act on.
func readText(ctx context.Context, ws agent.Workspace, abs, rel string) ([]byte, error) {
	if err := checkRegular(abs, rel, "; use list_files to see its files"); err != nil {
		return nil, err
	}
	data, err := ws.ReadFile(ctx, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("file %s does not exist (use list_files to find files)", rel)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return data, nil
}

// showLines renders lines offset..offset+limit-1 of text, numbered, within
// maxBytes of output, and says what was left out so the model can page.
func showLines(rel, text string, offset, limit, maxBytes int) string {
	if offset <= 0 {
		offset = 1
	}
	if limit <= 0 {
		limit = defaultReadLimit
	}
	lines := splitLines(text)
	n := len(lines)
	if n == 0 {
		return fmt.Sprintf("(%s is empty)", rel)
	}
	if offset > n {
		return fmt.Sprintf("(%s has %s; offset %d is past the end)", rel, plural(n, "line", "lines"), offset)
	}
	last := min(n, offset+limit-1)
	var sb strings.Builder
	shown := offset - 1
	for i := offset; i <= last; i++ {
		line := fmt.Sprintf("%d\t%s\n", i, lines[i-1])
		if sb.Len()+len(line) > maxBytes {
			if i == offset {
				// A single line longer than the cap (minified code): show its
				// head rather than nothing.
				cut := textcut.Floor(line, maxBytes)
				sb.WriteString(line[:cut])
				fmt.Fprintf(&sb, "\n[line %d is %d bytes; cut at %d]\n", i, len(lines[i-1]), cut)
				shown = i
			}
			break
		}
		sb.WriteString(line)
		shown = i
	}
	if offset > 1 || shown < n {
		fmt.Fprintf(&sb, "[file has %s; showing %d–%d; use offset/limit]\n", plural(n, "line", "lines"), offset, shown)
	}
	return sb.String()
}
