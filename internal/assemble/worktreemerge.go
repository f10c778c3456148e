package assemble

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/worktree"
)

// Editor writes one file through a front end's write path: transform gets
// the current text and returns the next.
type Editor func(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error

// MergeConflict is a hunk of a worktree's change left out of a merge
// because the user changed that region since the task started.
type MergeConflict struct {
	Rel  string
	Line int // 1-based, in the current text
	What string
	// Yours and Task are the conflicting lines as the user has them and
	// as the task wrote them (review.Sides): both sides, never combined.
	Yours, Task string
	// Marked: the conflict was written into the file between conflict
	// markers (asked for), not left out.
	Marked bool
}

// MergeReport says what a worktree merge did.
type MergeReport struct {
	Merged    int      // hunks merged
	Files     []string // files written
	Conflicts []MergeConflict
	Notes     []string // what was not merged and why (a deleted file)
	// LeftOut are protected files (tools.ProtectedWrite: a protected name
	// at any depth, .gitattributes, a file where a protected link leads)
	// the user did not allow the merge to change, or could not be asked
	// about; the merge does not count as done while they wait.
	LeftOut []MergeLeftOut
	// Before and After hold each written file's text before and after the
	// merge, for the front end's change log.
	Before, After map[string]string
	Existed       map[string]bool
}

// PlanWorktreeMerge is each changed file's text after a merge into cur
// (what the front end shows before asking), and the hunks that would be
// left out.
func PlanWorktreeMerge(c worktree.Change, cur string, exists bool) (next string, ok bool, left []review.Hunk) {
	f := review.File{Rel: c.Rel, ReviewBase: c.Base, ReviewExisted: c.Existed, Proposed: c.Proposed, Proposing: true}
	a, ok, left := review.PlanMerge(f, cur, exists)
	if !ok {
		return cur, false, left
	}
	return a.Next, true, left
}

// MergeLeftOut is a protected file a merge did not write, and why it is
// protected.
type MergeLeftOut struct{ Rel, Why string }

// errNoMerge stops an edit with nothing of the worktree's to write.
var errNoMerge = errors.New("nothing to merge")

// MergeWorktree merges a worktree task's changes into the user's files
// under root through edit: each file's hunks placed in its current text
// (the plan the editor's merge makes), judged by line; those on or next
// to the user's own changes since the snapshot are left out and reported
// with both sides, or, with markers, written whole with each conflict
// between git's conflict markers. A file the task deleted is not deleted:
// the report says so. A protected file is asked about first, as any write
// to it is (confirm; nil: nobody can be asked, and it is left out).
func MergeWorktree(ctx context.Context, root string, changes []worktree.Change, edit Editor, confirm func(ctx context.Context, rel, why string) (bool, error), markers bool, label string) (MergeReport, error) {
	rep := MergeReport{Before: map[string]string{}, After: map[string]string{}, Existed: map[string]bool{}}
	for _, c := range changes {
		if c.Deleted {
			rep.Notes = append(rep.Notes, c.Rel+" was deleted in the worktree; delete it yourself if you agree")
			continue
		}
		if protected, why := tools.ProtectedWrite(root, c.Rel, ""); protected {
			ok := false
			if confirm != nil {
				var err error
				if ok, err = confirm(ctx, c.Rel, why); err != nil {
					ok = false
				}
			}
			if !ok {
				rep.LeftOut = append(rep.LeftOut, MergeLeftOut{Rel: c.Rel, Why: why})
				continue
			}
		}
		f := review.File{Rel: c.Rel, ReviewBase: c.Base, ReviewExisted: c.Existed, Proposed: c.Proposed, Proposing: true}
		var left []review.Hunk
		var cur, next string
		var existed, wrote, marked bool
		merged := 0
		err := edit(ctx, c.Rel, func(old []byte, exists bool) ([]byte, error) {
			cur, existed, wrote, marked, merged = string(old), exists, false, false, 0
			a, ok, cs := review.PlanMerge(f, cur, exists)
			left = cs
			switch {
			case markers && len(cs) > 0:
				m := edits.Merge3Markers(c.Base, cur, c.Proposed, edits.Markers{Ours: "yours", Theirs: label})
				next, wrote, marked = m.Text, true, true
				merged = len(edits.Diff(c.Base, c.Proposed)) - len(cs)
			case ok:
				next, wrote = a.Next, true
				merged = len(a.Accepted)
			default:
				return nil, errNoMerge
			}
			return []byte(next), nil
		})
		if err != nil && !errors.Is(err, errNoMerge) {
			return rep, fmt.Errorf("%s: %w", c.Rel, err)
		}
		rep.Merged += merged
		if wrote {
			rep.Files = append(rep.Files, c.Rel)
			rep.Before[c.Rel], rep.After[c.Rel], rep.Existed[c.Rel] = cur, next, existed
		}
		for _, h := range left {
			line := strings.Count(cur[:min(h.Cur.Start, len(cur))], "\n") + 1
			mc := MergeConflict{Rel: c.Rel, Line: line, What: review.Describe(h.Change, c.Base), Marked: marked}
			mc.Yours, mc.Task, _, _ = review.Sides(f, cur, h)
			rep.Conflicts = append(rep.Conflicts, mc)
		}
	}
	return rep, nil
}
