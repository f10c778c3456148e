package tools

import (
	"context"
	"encoding/json"
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
	"Paths are relative to the workspace root. Give about 3 lines of context around each change; the context and removed lines must match the file. " +
	"A hunk of only + lines goes at the end of the file. *** Add File over an existing file, or *** Move to onto one, replaces it. " +
	"All or nothing: if any part of the patch does not apply (a hunk that does not match, a missing file), no file is changed, and the error says which part failed. " +
	"After a .go file changes, the result lists its syntax errors."

// readFirst is said in the description when edits need a read first.
const readFirst = " Update or replace only files you have read in this task (read_file); others are refused."

func newApplyPatch(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "apply_patch",
		description: applyPatchDescription + cond(o.ReadBeforeEdit, readFirst, ""),
		schema:      applyPatchDecl().schema(),
		freeform:    true,
		grammar:     patchGrammar,
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

// applyPatch parses the patch, checks every path and computes every new
// text before it changes anything, then applies the changes in order: a
// patch of which a part cannot apply changes nothing.
func applyPatch(ctx context.Context, ws agent.Workspace, o Options, patch string) (agent.ToolResult, error) {
	ops, err := parsePatch(patch)
	if err != nil {
		return agent.ToolResult{}, fmt.Errorf("%v; nothing was changed", err)
	}
	type planned struct {
		op       patchOp
		rel, to  string
		text     string
		existing bool // add: the file exists and is replaced
		onto     bool // move: the destination exists and is replaced
	}
	var plan []planned
	unchanged := func(err error) (agent.ToolResult, error) {
		return agent.ToolResult{}, fmt.Errorf("%w; nothing was changed", err)
	}
	for _, op := range ops {
		abs, rel, err := writable(ctx, o, op.path)
		if err != nil {
			return unchanged(fmt.Errorf("%s: %w", op.path, err))
		}
		if err := checkRegular(abs, rel, ""); err != nil {
			return unchanged(err)
		}
		p := planned{op: op, rel: rel}
		cur, rerr := ws.ReadFile(ctx, rel)
		p.existing = rerr == nil
		switch op.kind {
		case "add":
			if p.existing {
				// Add over a file replaces it, as the models expect; its
				// text must have been seen, as for an update.
				if err := o.reads.check(rel); err != nil {
					return unchanged(err)
				}
			}
			p.text = strings.Join(op.lines, "\n")
			if len(op.lines) > 0 {
				p.text += "\n"
			}
		case "delete", "update":
			if !p.existing {
				return unchanged(fmt.Errorf("%s: %v", rel, rerr))
			}
			if op.kind == "delete" {
				break
			}
			if err := o.reads.check(rel); err != nil {
				return unchanged(err)
			}
			if isBinary(cur) {
				return unchanged(fmt.Errorf("%s is a binary file; apply_patch changes text only", rel))
			}
			if p.text, err = applyHunks(rel, string(cur), op.hunks); err != nil {
				return unchanged(err)
			}
			if op.moveTo != "" {
				absT, to, err := writable(ctx, o, op.moveTo)
				if err != nil {
					return unchanged(fmt.Errorf("*** Move to: %s: %w", op.moveTo, err))
				}
				if err := checkRegular(absT, to, ""); err != nil {
					return unchanged(err)
				}
				if to != rel && exists(ctx, ws, to) {
					// Moving onto a file replaces it, as the models expect.
					if err := o.reads.check(to); err != nil {
						return unchanged(err)
					}
					p.onto = true
				}
				if to != rel {
					p.to = to
				}
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
			if p.to != "" && !p.onto {
				ops, err := fileOps(ws)
				if err != nil {
					return fail(err)
				}
				if err := ops.Move(ctx, p.rel, p.to); err != nil {
					return fail(fmt.Errorf("move %s to %s: %w", p.rel, p.to, err))
				}
				changed = append(changed, p.rel)
				target = p.to
			} else if p.onto {
				target = p.to
			}
			// The transform runs again on newer text if the user typed
			// meanwhile (the Workspace contract): the hunks are applied
			// to that text, so what they typed stays.
			text, op, onto := p.text, p.op, p.onto
			err := ws.Edit(ctx, target, func(old []byte, exists bool) ([]byte, error) {
				if op.kind == "add" || onto || !exists {
					return []byte(text), nil
				}
				t, err := applyHunks(target, string(old), op.hunks)
				text = t
				return []byte(t), err
			})
			if err != nil {
				return fail(fmt.Errorf("write %s: %w", target, err))
			}
			if p.onto {
				// The moved file's text is in its new place: the old
				// one goes.
				ops, err := fileOps(ws)
				if err == nil {
					err = ops.Delete(ctx, p.rel)
				}
				if err != nil {
					return fail(fmt.Errorf("moved %s onto %s, but removing %s failed: %w", p.rel, p.to, p.rel, err))
				}
				changed = append(changed, p.rel)
			}
			changed = append(changed, target)
			o.reads.saw(target)
			switch {
			case p.op.kind == "add" && p.existing:
				what = "replaced " + target + " (*** Add File over an existing file)"
			case p.op.kind == "add":
				what = "added " + target
			case p.onto:
				what = fmt.Sprintf("moved %s onto %s (replacing it) and updated it", p.rel, p.to)
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
