package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/render"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
)

// rewindSession is `agentls sessions rewind ID STEP`: the files the
// session's tasks changed go back on disk to their text at the step,
// three-way (what changed on disk since the task stays; regions both
// changed are left alone and reported), and the session's conversation is
// cut there, so `agentls run --session ID` goes on from that step.
func rewindSession(store *session.Store, id, stepArg string, asJSON bool, stdout, stderr io.Writer) int {
	step, err := strconv.Atoi(stepArg)
	if err != nil || step < 0 {
		fmt.Fprintf(stderr, "agentls sessions rewind: STEP must be a step number (0: before the first), not %q\n", stepArg)
		return exitUsage
	}
	sess, err := store.Load(id)
	if code, bad := sessionErr(store, id, err, stderr); bad {
		return code
	}
	plan, err := sess.PlanRewind(step)
	if err != nil {
		fmt.Fprintln(stderr, "agentls sessions rewind:", err)
		return exitUsage
	}
	disk, err := apply.NewDisk(store.Root())
	if err != nil {
		fmt.Fprintln(stderr, "agentls sessions rewind:", err)
		return exitFailed
	}
	type conflict struct {
		Path   string `json:"path"`
		Line   int    `json:"line"`
		Reason string `json:"reason"`
	}
	res := struct {
		Session   string     `json:"session"`
		Step      int        `json:"step"`
		Files     []string   `json:"files"`
		Conflicts []conflict `json:"conflicts"`
	}{Session: id, Step: step, Files: []string{}, Conflicts: []conflict{}}
	ctx := context.Background()
	// Each file through the write path: planned on the text read, written
	// over it only.
	files := apply.New(disk)
	for _, f := range plan.Files {
		var p review.Undo
		cs, err := files.Apply(ctx, []string{f.Path}, apply.Batch{}, func(cur map[string]apply.Text) ([]apply.Change, error) {
			c := cur[f.Path]
			p = review.PlanRewind(f.Path, f.From.Exists, f.From.Text, f.To.Exists, f.To.Text, c.Data, c.Exists)
			switch {
			case p.Delete:
				return []apply.Change{{Rel: f.Path, Cur: c, Delete: true}}, nil
			case p.Restore:
				return []apply.Change{{Rel: f.Path, Cur: c, Next: p.Next, Mode: f.To.Mode}}, nil
			case len(p.Changes) > 0:
				return []apply.Change{{Rel: f.Path, Cur: c, Next: p.Next}}, nil
			}
			return nil, nil
		})
		if err != nil {
			fmt.Fprintf(stderr, "agentls sessions rewind: %s: %v (files before it in the list were rewound; the session was not)\n", f.Path, err)
			return exitFailed
		}
		if len(cs) > 0 {
			res.Files = append(res.Files, f.Path)
		}
		for _, c := range p.Conflicts {
			res.Conflicts = append(res.Conflicts, conflict{Path: f.Path, Line: c.Line, Reason: c.Reason})
		}
	}
	if err := store.Rewound(plan); err != nil {
		fmt.Fprintln(stderr, "agentls sessions rewind:", err)
		return exitFailed
	}
	if asJSON {
		return writeJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "session %s rewound to step %d: %d file%s changed back", id, step, len(res.Files), plural(len(res.Files)))
	if len(res.Files) > 0 {
		fmt.Fprintf(stdout, " (%s)", strings.Join(res.Files, ", "))
	}
	fmt.Fprintln(stdout)
	for _, c := range res.Conflicts {
		fmt.Fprintf(stdout, "  kept %s:%d: %s\n", c.Path, c.Line, c.Reason)
	}
	fmt.Fprintf(stdout, "continue from there: agentls run --session %s TASK\n", id)
	return exitOK
}

// showSteps prints a session's steps under `agentls sessions show`.
func showSteps(sess *session.Session, stdout io.Writer) {
	steps := sess.Steps()
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(stdout, "\nsteps (agentls sessions rewind %s STEP):\n", sess.ID)
	for _, cp := range steps {
		var files []string
		for _, f := range cp.Files {
			files = append(files, f.Path)
		}
		mark := ""
		if cp.Step == sess.Rewound {
			mark = "  ← rewound here"
		}
		fmt.Fprintf(stdout, "  %d  %s · %s · %s%s\n", cp.Step, cp.Task, render.OneLine(cp.Summary, 80), strings.Join(files, ", "), mark)
	}
}
