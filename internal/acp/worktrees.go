package acp

import (
	"context"
	"fmt"
	"os"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/worktree"
)

// A worktree task's change (agent.isolation "worktree") reaches the
// client as a tool call with a diff per file, against the client's text
// as it is now, and a permission request to merge it; merged, it is
// written through the session's workspace (the client's fs, else the
// disk) and the task's branch goes. Left, it waits: /merge, /discard and
// /worktrees act on it later.

// Permission options of the merge question.
const (
	optMerge = "merge"
	optKeep  = "keep"
)

// proposeWorktree shows a finished worktree task's change and asks to
// merge it.
func (a *Agent) proposeWorktree(ctx context.Context, s *acpSession, out *stream, ws *clientWorkspace, w *worktree.Tree, changes []worktree.Change, notes []string, err error) {
	if err != nil {
		out.text("\n_agentls: the worktree's change could not be read: " + err.Error() + "_\n")
		return
	}
	for _, n := range notes {
		out.text("\n_agentls: worktree: " + n + "_\n")
	}
	if len(changes) == 0 {
		out.text(fmt.Sprintf("\nThe task changed nothing in its worktree %s.\n", w.ID))
		return
	}
	id := "worktree-" + w.ID
	title := fmt.Sprintf("Merge the change of worktree %s (%d file%s)", w.ID, len(changes), render.Plural(len(changes)))
	var content []sdk.ToolCallContent
	for _, c := range changes {
		cur, exists, rerr := ws.current(ctx, c.Rel)
		if rerr != nil {
			content = append(content, sdk.ToolContent(sdk.TextBlock(c.Rel+": "+rerr.Error())))
			continue
		}
		if c.Deleted {
			content = append(content, sdk.ToolContent(sdk.TextBlock(c.Rel+" was deleted in the worktree; a merge leaves it (delete it yourself if you agree)")))
			continue
		}
		next, _, left := assemble.PlanWorktreeMerge(c, string(cur), exists)
		if exists {
			content = append(content, sdk.ToolDiffContent(ws.abs(c.Rel), out.redact(next), out.redact(string(cur))))
		} else {
			content = append(content, sdk.ToolDiffContent(ws.abs(c.Rel), out.redact(next)))
		}
		if n := len(left); n > 0 {
			content = append(content, sdk.ToolContent(sdk.TextBlock(fmt.Sprintf("%s: %d hunk%s over your own changes since the task started would be left out", c.Rel, n, render.Plural(n)))))
		}
	}
	kind := sdk.ToolKindEdit
	status := sdk.ToolCallStatusPending
	out.endMessage()
	out.send(sdk.StartToolCall(sdk.ToolCallId(id), title, sdk.WithStartKind(kind), sdk.WithStartStatus(status), sdk.WithStartContent(content),
		sdk.WithStartRawInput(map[string]any{"worktree": w.ID, "path": w.Dir()})))
	merge, _ := a.ask(ctx, s, out, question{
		title: title, call: id, kind: kind, content: content,
		message: fmt.Sprintf("Merge the change of worktree %s into your files (%s)? Kept, it waits in the worktree.", w.ID, changedFiles(changes)),
		yes:     choice{optMerge, "Merge into my files"},
		no:      choice{optKeep, "Keep it in the worktree"},
	})
	if !merge {
		out.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted)))
		out.text(fmt.Sprintf("\nThe change waits in worktree %s: /merge %s merges it, /discard %s removes it, /worktrees lists them.\n", w.ID, w.ID, w.ID))
		return
	}
	out.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	rep, merr := a.mergeWorktree(context.WithoutCancel(ctx), s, out, ws, w, changes)
	st := sdk.ToolCallStatusCompleted
	if merr != nil {
		st = sdk.ToolCallStatusFailed
	}
	out.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(st)))
	out.text("\n" + mergeText(w, rep, merr))
}

// mergeWorktree merges changes into the session's files through ws and,
// when nothing was left out, records the merge (the branch goes). What it
// wrote joins ws's change log, so /undo takes it back.
//
// A protected file is asked about on its own, as the tools ask about a
// write to it; one the user does not allow stays in the worktree.
func (a *Agent) mergeWorktree(ctx context.Context, s *acpSession, out *stream, ws *clientWorkspace, w *worktree.Tree, changes []worktree.Change) (assemble.MergeReport, error) {
	rep, err := assemble.MergeWorktree(ctx, s.root, changes, func(ctx context.Context, rel string, transform func([]byte, bool) ([]byte, error)) error {
		return ws.edit(ctx, rel, transform, false)
	}, a.confirmWrite(s, out), false, "task "+w.ID)
	for _, rel := range rep.Files {
		ws.record(rel, []byte(rep.Before[rel]), rep.Existed[rel], []byte(rep.After[rel]))
	}
	if err == nil && len(rep.Conflicts) == 0 && len(rep.LeftOut) == 0 {
		err = w.Merged(ctx)
	}
	return rep, err
}

// changedFiles names the files a change touches.
func changedFiles(changes []worktree.Change) string {
	names := make([]string, 0, len(changes))
	for _, c := range changes {
		names = append(names, c.Rel)
	}
	return strings.Join(names, ", ")
}

// mergeText says what a merge did.
func mergeText(w *worktree.Tree, rep assemble.MergeReport, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Merged %d hunk%s of worktree %s into %s.\n", rep.Merged, render.Plural(rep.Merged), w.ID, strings.Join(rep.Files, ", "))
	for _, c := range rep.Conflicts {
		fmt.Fprintf(&b, "- conflict: %s:%d: you changed this region since the task started; its change there was left out: %s\n", c.Rel, c.Line, c.What)
	}
	for _, l := range rep.LeftOut {
		fmt.Fprintf(&b, "- left out: %s: %s; it waits in the worktree\n", l.Rel, l.Why)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	if err != nil {
		fmt.Fprintf(&b, "The merge failed: %v\n", err)
	}
	return b.String()
}

// sessionWorktree is the worktree a session's earlier task left, for its
// next task to go on in (one worktree per session, as its ID says); nil
// when isolation is off or the session has none (never made, discarded).
func sessionWorktree(cfg config.Config, root, id string) *worktree.Tree {
	if cfg.Agent.Isolation != assemble.IsolationWorktree {
		return nil
	}
	state, err := session.StateDir()
	if err != nil {
		return nil
	}
	w, err := worktree.Load(state, id)
	if err != nil || w.Root != root {
		return nil
	}
	if _, err := os.Stat(w.Path); err != nil {
		return nil
	}
	return w
}

// worktreesOf lists the session workspace's worktrees, newest first.
func worktreesOf(root string) ([]*worktree.Tree, error) {
	state, err := session.StateDir()
	if err != nil {
		return nil, err
	}
	list, err := worktree.List(state, root)
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list, err
}

// worktreesCommand answers /worktrees, /merge ID and /discard ID.
func (a *Agent) worktreesCommand(ctx context.Context, s *acpSession, out *stream, name, args string) {
	list, err := worktreesOf(s.root)
	if err != nil {
		out.text("The worktrees cannot be listed: " + err.Error() + "\n")
		return
	}
	if name == "worktrees" {
		if len(list) == 0 {
			out.text("No worktree tasks in this workspace.\n")
			return
		}
		var b strings.Builder
		for _, w := range list {
			fmt.Fprintf(&b, "- %s · %s · %s · %s\n", w.ID, w.State, w.Created.Local().Format("2006-01-02 15:04"), firstLine(w.Task))
		}
		out.text(b.String())
		return
	}
	var w *worktree.Tree
	for _, t := range list {
		if t.ID == strings.TrimSpace(args) {
			w = t
		}
	}
	if w == nil {
		out.text(fmt.Sprintf("/%s needs the ID of a worktree of this workspace (/worktrees lists them); no worktree %q.\n", name, args))
		return
	}
	if w.State == worktree.StateRunning || w.State == worktree.StateElsewhere {
		out.text(fmt.Sprintf("Worktree %s is still running.\n", w.ID))
		return
	}
	switch name {
	case "discard":
		if err := w.Discard(ctx); err != nil {
			out.text(fmt.Sprintf("Discarding %s failed: %v\n", w.ID, err))
			return
		}
		out.text(fmt.Sprintf("Discarded worktree %s and its branch.\n", w.ID))
	case "merge":
		changes, notes, err := w.Finish(ctx)
		if err != nil {
			out.text(fmt.Sprintf("The change of %s cannot be read: %v\n", w.ID, err))
			return
		}
		_ = w.SetState(worktree.StateEnded)
		ws, err := a.newWorkspace(s, out)
		if err != nil {
			out.text(err.Error() + "\n")
			return
		}
		rep, err := a.mergeWorktree(ctx, s, out, ws, w, changes)
		rep.Notes = append(notes, rep.Notes...)
		out.text(mergeText(w, rep, err))
		if len(rep.Files) > 0 {
			s.mu.Lock()
			s.last = ws
			s.mu.Unlock()
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return s
}
