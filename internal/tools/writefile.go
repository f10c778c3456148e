package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

type writeFileArgs struct {
	Path    string `json:"path" jsonschema:"Relative to the workspace root; missing directories are created."`
	Content string `json:"content" jsonschema:"The complete new text."`
}

// writeFileDecl is built on first use: inferring and resolving a schema costs start-up time every command would pay.
var writeFileDecl = sync.OnceValue(func() *args[writeFileArgs] { return declare[writeFileArgs](nil) })

func newWriteFile(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "write_file",
		description: "Create a file or replace all of its text, through the editor (the user sees and can undo it). To change part of a file use edit_file. Files that configure agentls or the editor need the user's approval.",
		schema:      writeFileDecl().schema(),
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := writeFileDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		abs, rel, err := writable(ctx, o, a.Path)
		if err != nil {
			return agent.ToolResult{}, err
		}
		if err := checkRegular(abs, rel, ""); err != nil {
			return agent.ToolResult{}, err
		}
		if len(a.Content) > maxWriteSize {
			return agent.ToolResult{}, fmt.Errorf("content is %d bytes; write_file takes at most %d (2 MiB): write a large file in parts with edit_file, or generate it with run_command", len(a.Content), maxWriteSize)
		}
		var (
			created, changed bool
			planned          bool
			final            []byte
			terr             error
		)
		err = ws.Edit(ctx, rel, func(old []byte, exists bool) ([]byte, error) {
			// A retry plans on a later text (the editor's, after a change
			// it reported late), which may hold this very write: whether
			// the call created the file is what the first plan saw.
			if !planned {
				created, planned = !exists, true
			}
			changed, terr = true, nil
			content := a.Content
			if exists {
				if isBinary(old) {
					terr = fmt.Errorf("%s is a binary file; write_file does not replace binary files", rel)
					return nil, terr
				}
				// Keep a CRLF file CRLF when the model wrote plain LF, as
				// models do.
				if isCRLF(string(old)) && !strings.Contains(content, "\r\n") {
					content = strings.ReplaceAll(content, "\n", "\r\n")
				}
				if bytes.Equal(old, []byte(content)) {
					changed = false
					return old, nil
				}
			}
			final = []byte(content)
			return final, nil
		})
		if terr != nil {
			return agent.ToolResult{}, terr
		}
		if err != nil {
			return agent.ToolResult{}, fmt.Errorf("write %s: %w", rel, err)
		}
		o.reads.saw(rel) // the model knows the text it wrote
		if !changed {
			return agent.ToolResult{Output: fmt.Sprintf("%s already has this content; nothing changed", rel)}, nil
		}
		verb := "wrote"
		if created {
			verb = "created"
		}
		n := len(splitLines(string(final)))
		return agent.ToolResult{
			Output:  fmt.Sprintf("%s %s (%s, %s)", verb, rel, plural(n, "line", "lines"), plural(len(final), "byte", "bytes")) + syntaxNote(rel, final),
			Changed: []string{rel},
		}, nil
	}
	return t
}
