package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/worktree"
)

// showWorktreeChange prints a worktree task's change as a unified diff on
// stdout and says where it waits.
func showWorktreeChange(stdout io.Writer, ren renderer, w *worktree.Tree, changes []worktree.Change, notes []string, err error) {
	if err != nil {
		ren.warn("the worktree's change could not be read: " + err.Error())
	}
	for _, c := range changes {
		fmt.Fprint(stdout, edits.FileDiff(c.Rel, c.Base, c.Existed, c.Proposed, c.Deleted, 3))
	}
	for _, n := range notes {
		ren.warn("worktree: " + n)
	}
	if len(changes) > 0 {
		ren.note(fmt.Sprintf("the change waits in the worktree %s (branch %s): agentls worktrees merge %s, or agentls worktrees discard %s", w.Dir(), w.Branch, w.ID, w.ID))
	}
}

// worktreeOutcome is what became of an isolated task's change, for its end
// line: it waits in the worktree, with its size and the command that
// merges it; or the task changed nothing there.
func worktreeOutcome(w *worktree.Tree, changes []worktree.Change) string {
	if len(changes) == 0 {
		return "no change in worktree " + w.ID
	}
	add, del := 0, 0
	for _, c := range changes {
		a, d := diffStat(edits.Unified("a", "b", c.Base, c.Proposed, 0))
		add, del = add+a, del+d
	}
	return fmt.Sprintf("the change waits in worktree %s: %d file%s, +%d -%d lines; merge it with: agentls worktrees merge %s",
		w.ID, len(changes), plural(len(changes)), add, del, w.ID)
}

const worktreesUsage = `usage:
  agentls worktrees [list] [--workspace DIR] [--json]
        the workspace's worktree tasks (agent.isolation "worktree") and their state;
        one a crashed agentls left is "interrupted"
  agentls worktrees merge [--workspace DIR] [--markers] ID
        merge the task's change into the workspace's files, three-way by line against
        what you changed since it started: hunks on or next to lines you edited are
        conflicts, left out and listed with both sides (--markers: written into the
        file between git's conflict markers instead)
  agentls worktrees discard [--workspace DIR] ID
        remove the worktree and its branch

Flags:
`

// Worktrees is the worktrees command.
func Worktrees(args []string, stdout, stderr io.Writer) int {
	c := newSubcommand("worktrees", worktreesUsage, stderr)
	markers := c.fs.Bool("markers", false, "merge: write conflicts into the files between conflict markers")
	sub, pos, code, done := c.parse(args, "list")
	if done {
		return code
	}
	fs, workspace, asJSON := c.fs, c.workspace, c.asJSON
	root, err := workspaceRoot(*workspace)
	if err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
		return exitFailed
	}
	state, err := session.StateDir()
	if err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
		return exitFailed
	}
	list, err := worktree.List(state, root)
	if err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
		return exitFailed
	}
	find := func() *worktree.Tree {
		if len(pos) != 1 {
			fs.Usage()
			return nil
		}
		for _, w := range list {
			if w.ID == pos[0] {
				return w
			}
		}
		fmt.Fprintf(stderr, "agentls worktrees: no worktree %q for %s (agentls worktrees lists them)\n", pos[0], root)
		return nil
	}
	ctx := context.Background()
	switch sub {
	case "list":
		if *asJSON {
			if list == nil {
				list = []*worktree.Tree{}
			}
			b, _ := json.MarshalIndent(list, "", "  ")
			fmt.Fprintln(stdout, string(b))
			return exitOK
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATE\tCREATED\tTASK\tPATH")
		for _, w := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.ID, w.State, w.Created.Local().Format("2006-01-02 15:04"), render.OneLine(w.Task, 50), w.Dir())
		}
		tw.Flush()
		return exitOK
	case "discard":
		w := find()
		if w == nil {
			return exitUsage
		}
		if w.State == worktree.StateElsewhere {
			fmt.Fprintf(stderr, "agentls worktrees: %s is in use by agentls process %d\n", w.ID, w.PID)
			return exitFailed
		}
		if err := w.Discard(ctx); err != nil {
			fmt.Fprintln(stderr, "agentls worktrees:", err)
			return exitFailed
		}
		if w.Branch == "" {
			fmt.Fprintf(stdout, "discarded %s (its branch went with the merge)\n", w.ID)
		} else {
			fmt.Fprintf(stdout, "discarded %s (worktree and branch %s)\n", w.ID, w.Branch)
		}
		return exitOK
	case "merge":
		w := find()
		if w == nil {
			return exitUsage
		}
		if w.State == worktree.StateElsewhere || w.State == worktree.StateRunning {
			fmt.Fprintf(stderr, "agentls worktrees: %s is still running\n", w.ID)
			return exitFailed
		}
		return mergeWorktree(ctx, root, w, *markers, stdout, stderr)
	}
	fs.Usage()
	return exitUsage
}

// mergeWorktree merges a worktree's change into the files on disk: each
// file's hunks placed in its current text (review.PlanMerge, the same
// plan the editor's merge makes); those over the user's own changes since
// the snapshot are left out and listed with both sides (or, asked for,
// written between conflict markers). The files are written through the
// write path (apply.Disk: beneath the root, over the text planned on only).
func mergeWorktree(ctx context.Context, root string, w *worktree.Tree, markers bool, stdout, stderr io.Writer) int {
	changes, notes, err := w.Finish(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
		return exitFailed
	}
	_ = w.SetState(worktree.StateEnded)
	disk, err := tools.NewDiskWorkspace(root)
	if err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
		return exitFailed
	}
	// A protected file (a protected name at any depth, .gitattributes, a
	// file where a protected symlink leads) is asked about as any write to
	// it is: at a terminal, with a question; without one, it is left out
	// and the merge does not end ok.
	var confirm func(ctx context.Context, rel, why string) (bool, error)
	if isTerminal(os.Stdin) && isTerminal(stderr) {
		yesNo := terminalYesNo(sync.OnceValue(func() *lines { return newLines(os.Stdin) }), stderr, nil)
		confirm = func(ctx context.Context, rel, why string) (bool, error) {
			return yesNo(ctx, fmt.Sprintf("the merge wants to change %s, which %s. Allow this change?", rel, why))
		}
	}
	files := apply.New(&apply.Disk{W: disk})
	edit := func(ctx context.Context, rel string, transform func([]byte, bool) ([]byte, error)) error {
		_, err := files.Edit(ctx, rel, "", func(t apply.Text) (string, error) {
			b, err := transform([]byte(t.Data), t.Exists)
			return string(b), err
		})
		return err
	}
	rep, err := assemble.MergeWorktree(ctx, root, changes, edit, confirm, markers, "task "+w.ID)
	if err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
		return exitFailed
	}
	merged, conflicts, leftOut := rep.Merged, len(rep.Conflicts), len(rep.LeftOut)
	for _, l := range rep.LeftOut {
		fmt.Fprintf(stdout, "left out: %s: %s; only you change it (see it in %s)\n", l.Rel, l.Why, w.Dir())
	}
	for _, c := range rep.Conflicts {
		if c.Marked {
			fmt.Fprintf(stdout, "conflict: %s:%d: you changed this region since the task started; both sides are in the file between conflict markers: %s\n", c.Rel, c.Line, c.What)
			continue
		}
		fmt.Fprintf(stdout, "conflict: %s:%d: you changed this region since the task started; its change there was left out: %s\n", c.Rel, c.Line, c.What)
		if c.Yours != "" || c.Task != "" {
			fmt.Fprintf(stdout, "  yours:\n%s  the task's:\n%s", indent(c.Yours), indent(c.Task))
		}
	}
	notes = append(notes, rep.Notes...)
	for _, n := range notes {
		fmt.Fprintln(stderr, "agentls worktrees:", n)
	}
	fmt.Fprintf(stdout, "merged %d hunk%s of %s; %d conflict%s\n", merged, plural(merged), w.ID, conflicts, plural(conflicts))
	if conflicts > 0 || leftOut > 0 {
		return exitFailed
	}
	if err := w.Merged(ctx); err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
	}
	return exitOK
}

// indent prefixes each line of s with four spaces (s ends with a newline).
func indent(s string) string {
	if s == "" {
		return "    (nothing)\n"
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	return b.String()
}
