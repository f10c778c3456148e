package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/worktree"
)

// showWorktreeChange prints a worktree task's change as a unified diff on
// stdout and says where it waits.
func showWorktreeChange(stdout io.Writer, ren renderer, w *worktree.Tree, changes []worktree.Change, notes []string, err error) {
	if err != nil {
		ren.warn("the worktree's change could not be read: " + err.Error())
	}
	for _, c := range changes {
		a := "a/" + c.Rel
		if !c.Existed {
			a = "/dev/null"
		}
		b := "b/" + c.Rel
		if c.Deleted {
			b = "/dev/null"
		}
		fmt.Fprint(stdout, edits.Unified(a, b, c.Base, c.Proposed, 3))
	}
	for _, n := range notes {
		ren.warn("worktree: " + n)
	}
	ren.note(fmt.Sprintf("the change waits in the worktree %s (branch %s): agentls worktrees merge %s, or agentls worktrees discard %s", w.Dir(), w.Branch, w.ID, w.ID))
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
		fmt.Fprintf(stdout, "discarded %s (worktree and branch %s)\n", w.ID, w.Branch)
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
// the snapshot are left out and listed. The files are written beneath the
// root (tools.DiskWorkspace).
func mergeWorktree(ctx context.Context, root string, w *worktree.Tree, markers bool, stdout, stderr io.Writer) int {
	changes, notes, err := w.Finish(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
		return exitFailed
	}
	_ = w.SetState(worktree.StateEnded)
	disk, err := apply.NewDisk(root)
	if err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
		return exitFailed
	}
	files := apply.New(disk)
	merged, conflicts := 0, 0
	for _, c := range changes {
		if c.Deleted {
			notes = append(notes, c.Rel+" was deleted in the worktree; delete it yourself if you agree")
			continue
		}
		f := review.File{Rel: c.Rel, ReviewBase: c.Base, ReviewExisted: c.Existed, Proposed: c.Proposed, Proposing: true}
		var left []review.Hunk
		var cur string
		n := 0
		_, err := files.Apply(ctx, []string{c.Rel}, apply.Batch{}, func(now map[string]apply.Text) ([]apply.Change, error) {
			t := now[c.Rel]
			cur = t.Data
			a, ok, cs := review.PlanMerge(f, cur, t.Exists)
			left, n = cs, 0
			if markers && len(cs) > 0 {
				// Asked for: the whole merge, conflicts between markers.
				m := edits.Merge3Markers(c.Base, cur, c.Proposed, edits.Markers{Ours: "yours", Theirs: "task " + w.ID})
				n = len(edits.Diff(c.Base, c.Proposed)) - len(cs)
				return []apply.Change{{Rel: c.Rel, Cur: t, Next: m.Text}}, nil
			}
			if !ok {
				return nil, nil
			}
			n = len(a.Accepted)
			return []apply.Change{{Rel: c.Rel, Cur: t, Next: a.Next}}, nil
		})
		merged += n
		if err != nil {
			fmt.Fprintf(stderr, "agentls worktrees: %s: %v\n", c.Rel, err)
			return exitFailed
		}
		if markers && len(left) > 0 {
			conflicts += len(left)
			fmt.Fprintf(stdout, "conflict: %s: %d hunk%s written between conflict markers (<<<<<<< yours … >>>>>>> task %s)\n", c.Rel, len(left), plural(len(left)), w.ID)
			continue
		}
		for _, h := range left {
			conflicts++
			line := strings.Count(cur[:min(h.Cur.Start, len(cur))], "\n") + 1
			fmt.Fprintf(stdout, "conflict: %s:%d: you changed this region since the task started; its change there was left out: %s\n", c.Rel, line, review.Describe(h.Change, c.Base))
			if yours, task, _, ok := review.Sides(f, cur, h); ok {
				fmt.Fprintf(stdout, "  yours:\n%s  the task's:\n%s", indent(yours), indent(task))
			}
		}
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, "agentls worktrees:", n)
	}
	fmt.Fprintf(stdout, "merged %d hunk%s of %s; %d conflict%s\n", merged, plural(merged), w.ID, conflicts, plural(conflicts))
	if conflicts > 0 {
		return exitFailed
	}
	if err := w.Merged(); err != nil {
		fmt.Fprintln(stderr, "agentls worktrees:", err)
	}
	return exitOK
}

// indent prefixes each line of s with four spaces (s ends with a newline).
func indent(s string) string {
	if s == "" {
		return "    (nothing)\n"
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("    " + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	return b.String()
}
