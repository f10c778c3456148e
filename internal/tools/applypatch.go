package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

// apply_patch takes the patch format OpenAI's GPT-5 and Codex models are
// trained to write:
//
//	*** Begin Patch
//	*** Add File: path          then the file's lines, each prefixed with +
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new/path       (optional, right after Update File)
//	@@ optional anchor line     then hunk lines: " " context, "-" removed, "+" added
//	*** End of File             (optional: the hunk ends at the end of the file)
//	*** End Patch
//
// Every change goes through the workspace like edit_file's, so the editor
// applies it and the user can review or undo it.

type applyPatchArgs struct {
	Input string `json:"input" jsonschema:"The whole patch, from *** Begin Patch to *** End Patch."`
}

var applyPatchDecl = sync.OnceValue(func() *args[applyPatchArgs] { return declare[applyPatchArgs](nil) })

const applyPatchDescription = "Add, update, delete or move files with a patch, through the editor (the user sees and can undo each change). Format:\n" +
	"*** Begin Patch\n*** Add File: path\n+each line of the new file\n*** Delete File: path\n*** Update File: path\n*** Move to: new/path (optional)\n@@ a line near the change (optional)\n context line\n-removed line\n+added line\n*** End Patch\n" +
	"Paths are relative to the workspace root. Give about 3 lines of context around each change; the context and removed lines must match the file. After a .go file changes, the result lists its syntax errors."

func newApplyPatch(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "apply_patch",
		description: applyPatchDescription,
		schema:      applyPatchDecl().schema(),
		freeform:    true,
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := applyPatchDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		return applyPatch(ctx, ws, o, a.Input)
	}
	return t
}

// ApplyPatch applies a patch in apply_patch's format to ws, confined by o
// (the eval harness applies recorded solutions with it).
func ApplyPatch(ctx context.Context, ws agent.Workspace, o Options, patch string) (agent.ToolResult, error) {
	return applyPatch(ctx, ws, o.withDefaults(ws), patch)
}

// patchOp is one file's part of a patch.
type patchOp struct {
	kind   string // "add", "delete", "update"
	path   string
	moveTo string
	lines  []string    // add: the new file's lines
	hunks  []patchHunk // update
}

type patchHunk struct {
	anchor   string // the @@ line's text, "" for none
	old, new []string
	// ctx[i] is the index in old of new[i] when it is a context line
	// (kept as the file has it, since matching may be lenient), else -1.
	ctx []int
	eof bool
}

// parsePatch reads a patch. Its errors name the line at fault.
func parsePatch(text string) ([]patchOp, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	// A heredoc wrapper (apply_patch <<'EOF' … EOF), which models
	// sometimes keep, is not part of the patch.
	if len(lines) > 0 && strings.HasPrefix(lines[0], "apply_patch") {
		lines = lines[1:]
		if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) == "EOF" {
			lines = lines[:n-1]
		}
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "*** Begin Patch" {
		return nil, errors.New("the patch must start with the line *** Begin Patch")
	}
	if strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return nil, errors.New("the patch must end with the line *** End Patch")
	}
	lines = lines[1 : len(lines)-1]
	var ops []patchOp
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "*** Add File: "):
			op := patchOp{kind: "add", path: strings.TrimSpace(l[len("*** Add File: "):])}
			i++
			for ; i < len(lines) && !strings.HasPrefix(lines[i], "*** "); i++ {
				if !strings.HasPrefix(lines[i], "+") {
					return nil, fmt.Errorf("patch line %d: every line of an added file starts with +, got %q", i+2, lines[i])
				}
				op.lines = append(op.lines, lines[i][1:])
			}
			ops = append(ops, op)
		case strings.HasPrefix(l, "*** Delete File: "):
			ops = append(ops, patchOp{kind: "delete", path: strings.TrimSpace(l[len("*** Delete File: "):])})
			i++
		case strings.HasPrefix(l, "*** Update File: "):
			op := patchOp{kind: "update", path: strings.TrimSpace(l[len("*** Update File: "):])}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], "*** Move to: ") {
				op.moveTo = strings.TrimSpace(lines[i][len("*** Move to: "):])
				i++
			}
			var h *patchHunk
			for ; i < len(lines); i++ {
				l := lines[i]
				if l == "*** End of File" {
					if h == nil {
						return nil, fmt.Errorf("patch line %d: *** End of File before any hunk line", i+2)
					}
					h.eof = true
					continue
				}
				if strings.HasPrefix(l, "*** ") {
					break
				}
				if strings.HasPrefix(l, "@@") {
					op.hunks = append(op.hunks, patchHunk{anchor: strings.TrimSpace(strings.TrimPrefix(l, "@@"))})
					h = &op.hunks[len(op.hunks)-1]
					continue
				}
				if h == nil { // the first hunk may come without @@
					op.hunks = append(op.hunks, patchHunk{})
					h = &op.hunks[len(op.hunks)-1]
				}
				switch {
				case l == "":
					// An empty line is an empty context line whose space
					// the model (or its editor) dropped.
					h.ctx = append(h.ctx, len(h.old))
					h.old, h.new = append(h.old, ""), append(h.new, "")
				case l[0] == ' ':
					h.ctx = append(h.ctx, len(h.old))
					h.old, h.new = append(h.old, l[1:]), append(h.new, l[1:])
				case l[0] == '-':
					h.old = append(h.old, l[1:])
				case l[0] == '+':
					h.ctx = append(h.ctx, -1)
					h.new = append(h.new, l[1:])
				default:
					return nil, fmt.Errorf("patch line %d: a hunk line starts with a space, - or +, got %q", i+2, l)
				}
			}
			if len(op.hunks) == 0 && op.moveTo == "" {
				return nil, fmt.Errorf("*** Update File: %s has no hunks", op.path)
			}
			ops = append(ops, op)
		case strings.TrimSpace(l) == "":
			i++
		default:
			return nil, fmt.Errorf("patch line %d: expected *** Add File:, *** Update File: or *** Delete File:, got %q", i+2, l)
		}
	}
	if len(ops) == 0 {
		return nil, errors.New("the patch changes no file")
	}
	return ops, nil
}

// applyHunks applies an update's hunks to text, in order, each searched
// from where the previous one ended: exactly, then ignoring trailing
// whitespace, then ignoring all surrounding whitespace.
func applyHunks(rel, text string, hunks []patchHunk) (string, error) {
	crlf := isCRLF(text)
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	trailingNL := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	cursor := 0
	for n, h := range hunks {
		if h.anchor != "" {
			at := seek(lines, []string{h.anchor}, cursor, false)
			if at < 0 {
				return "", fmt.Errorf("hunk %d: the @@ line %q is not in %s after line %d", n+1, h.anchor, rel, cursor)
			}
			cursor = at + 1
		}
		old, nw, ctx := h.old, h.new, h.ctx
		// A trailing empty context line often stands for the file's end.
		at := seek(lines, old, cursor, h.eof)
		if at < 0 && len(old) > 0 && old[len(old)-1] == "" && len(nw) > 0 && ctx[len(nw)-1] == len(old)-1 {
			old, nw, ctx = old[:len(old)-1], nw[:len(nw)-1], ctx[:len(ctx)-1]
			at = seek(lines, old, cursor, h.eof)
		}
		if at < 0 {
			return "", fmt.Errorf("hunk %d: its context and removed lines are not in %s%s:\n%s\nread the file again and give lines exactly as they are", n+1, rel,
				cond(cursor > 0, fmt.Sprintf(" after line %d", cursor), ""), strings.Join(old, "\n"))
		}
		repl := make([]string, len(nw))
		for i, l := range nw {
			if ctx[i] >= 0 {
				l = lines[at+ctx[i]] // context stays as the file has it
			}
			repl[i] = l
		}
		lines = append(lines[:at], append(repl, lines[at+len(old):]...)...)
		cursor = at + len(nw)
	}
	out := strings.Join(lines, "\n")
	if trailingNL || len(lines) > 0 {
		out += "\n"
	}
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out, nil
}

// seek finds want in lines at or after from (at the very end for eof),
// exactly first, then more leniently; -1 if nowhere.
func seek(lines, want []string, from int, eof bool) int {
	if len(want) == 0 {
		if eof {
			return len(lines)
		}
		return from
	}
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
	} {
		start := from
		if eof {
			start = len(lines) - len(want)
		}
		for i := max(start, 0); i+len(want) <= len(lines); i++ {
			ok := true
			for j, w := range want {
				if norm(lines[i+j]) != norm(w) {
					ok = false
					break
				}
			}
			if ok {
				return i
			}
		}
	}
	return -1
}

// applyPatch parses the patch, checks every path and computes every new
// text before it changes anything, then applies the changes in order.
func applyPatch(ctx context.Context, ws agent.Workspace, o Options, patch string) (agent.ToolResult, error) {
	ops, err := parsePatch(patch)
	if err != nil {
		return agent.ToolResult{}, fmt.Errorf("%v; nothing was changed", err)
	}
	type planned struct {
		op       patchOp
		rel, to  string
		text     string
		existing bool
	}
	var plan []planned
	for _, op := range ops {
		abs, rel, err := writable(ctx, o, op.path)
		if err != nil {
			return agent.ToolResult{}, fmt.Errorf("%s: %w; nothing was changed", op.path, err)
		}
		if err := checkRegular(abs, rel, ""); err != nil {
			return agent.ToolResult{}, fmt.Errorf("%w; nothing was changed", err)
		}
		p := planned{op: op, rel: rel}
		cur, rerr := ws.ReadFile(ctx, rel)
		p.existing = rerr == nil
		switch op.kind {
		case "add":
			if p.existing {
				return agent.ToolResult{}, fmt.Errorf("*** Add File: %s already exists; use *** Update File to change it; nothing was changed", rel)
			}
			p.text = strings.Join(op.lines, "\n")
			if len(op.lines) > 0 {
				p.text += "\n"
			}
		case "delete", "update":
			if !p.existing {
				return agent.ToolResult{}, fmt.Errorf("%s: %v; nothing was changed", rel, rerr)
			}
			if op.kind == "delete" {
				break
			}
			if isBinary(cur) {
				return agent.ToolResult{}, fmt.Errorf("%s is a binary file; apply_patch changes text only; nothing was changed", rel)
			}
			if p.text, err = applyHunks(rel, string(cur), op.hunks); err != nil {
				return agent.ToolResult{}, fmt.Errorf("%v; nothing was changed", err)
			}
			if op.moveTo != "" {
				absT, to, err := writable(ctx, o, op.moveTo)
				if err != nil {
					return agent.ToolResult{}, fmt.Errorf("*** Move to: %s: %w; nothing was changed", op.moveTo, err)
				}
				if err := checkRegular(absT, to, ""); err != nil {
					return agent.ToolResult{}, fmt.Errorf("%w; nothing was changed", err)
				}
				if exists(ctx, ws, to) {
					return agent.ToolResult{}, fmt.Errorf("*** Move to: %s already exists; nothing was changed", to)
				}
				p.to = to
			}
		}
		plan = append(plan, p)
	}
	var done []string
	var out strings.Builder
	var changed []string
	fail := func(err error) (agent.ToolResult, error) {
		if len(done) > 0 {
			err = fmt.Errorf("%w (already applied: %s)", err, strings.Join(done, "; "))
		}
		return agent.ToolResult{Output: out.String(), Changed: changed}, err
	}
	for _, p := range plan {
		var what string
		switch p.op.kind {
		case "delete":
			ops, err := fileOps(ws)
			if err != nil {
				return fail(err)
			}
			if err := ops.Delete(ctx, p.rel); err != nil {
				return fail(fmt.Errorf("delete %s: %w", p.rel, err))
			}
			what = "deleted " + p.rel
			changed = append(changed, p.rel)
		case "add", "update":
			target := p.rel
			if p.to != "" {
				ops, err := fileOps(ws)
				if err != nil {
					return fail(err)
				}
				if err := ops.Move(ctx, p.rel, p.to); err != nil {
					return fail(fmt.Errorf("move %s to %s: %w", p.rel, p.to, err))
				}
				changed = append(changed, p.rel)
				target = p.to
			}
			// The transform runs again on newer text if the user typed
			// meanwhile (the Workspace contract): the hunks are applied
			// to that text, so what they typed stays.
			text, op := p.text, p.op
			err := ws.Edit(ctx, target, func(old []byte, exists bool) ([]byte, error) {
				if op.kind == "add" || !exists {
					return []byte(text), nil
				}
				t, err := applyHunks(target, string(old), op.hunks)
				text = t
				return []byte(t), err
			})
			if err != nil {
				return fail(fmt.Errorf("write %s: %w", target, err))
			}
			changed = append(changed, target)
			switch {
			case p.op.kind == "add":
				what = "added " + target
			case p.to != "":
				what = fmt.Sprintf("moved %s to %s and updated it", p.rel, p.to)
			default:
				what = "updated " + target
			}
			what += syntaxNote(target, []byte(text))
		}
		done = append(done, what)
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(what)
	}
	return agent.ToolResult{Output: out.String(), Changed: changed}, nil
}
