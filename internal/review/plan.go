package review

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentls/agentls/internal/edits"
)

// Accept is one file's part of an accept, planned against the text the
// user has (Cur) and the proposal at generation Gen. The front end applies
// CurChanges to Cur (making Next), then commits with Log.CommitAccept.
type Accept struct {
	Rel        string
	Gen        int
	Cur        string
	Existed    bool
	Next       string
	Accepted   []edits.Change // against the review base: what CommitAccept moves past
	CurChanges []edits.Change // the same changes against Cur: what the editor applies
}

// ErrEditedOver is an accept refused because the user edited the region
// of a hunk since it was proposed.
var ErrEditedOver = errors.New("you edited the file where the change was proposed; reject it or edit by hand")

// PlanAccept plans accepting the file's hunks (hunk "": all of them) over
// cur, the file as the user has it (existed: it exists). ok is false when
// nothing in this file is to be accepted.
func PlanAccept(f File, cur string, existed bool, hunk string) (a Accept, ok bool, err error) {
	a = Accept{Rel: f.Rel, Gen: f.Gen, Cur: cur, Existed: existed}
	for _, h := range Hunks(f, cur) {
		if hunk != "" && h.ID != hunk {
			continue
		}
		if h.Conflict {
			return Accept{}, false, fmt.Errorf("%s: %w", f.Rel, ErrEditedOver)
		}
		a.Accepted = append(a.Accepted, h.Change)
		a.CurChanges = append(a.CurChanges, h.Cur)
	}
	if len(a.CurChanges) == 0 {
		return Accept{}, false, nil
	}
	a.Next = edits.ApplyChanges(cur, a.CurChanges)
	return a, true, nil
}

// PlanMerge plans accepting every hunk of the file that the user has not
// edited over since (the merge of a worktree task); the others stay
// proposed, and conflicts counts them. ok is false when no hunk can be
// accepted.
func PlanMerge(f File, cur string, existed bool) (a Accept, ok bool, conflicts []Hunk) {
	a = Accept{Rel: f.Rel, Gen: f.Gen, Cur: cur, Existed: existed}
	for _, h := range Hunks(f, cur) {
		if h.Conflict {
			conflicts = append(conflicts, h)
			continue
		}
		a.Accepted = append(a.Accepted, h.Change)
		a.CurChanges = append(a.CurChanges, h.Cur)
	}
	if len(a.CurChanges) == 0 {
		return Accept{}, false, conflicts
	}
	a.Next = edits.ApplyChanges(cur, a.CurChanges)
	return a, true, conflicts
}

// Undo is one file's part of an undo, planned against the current text.
type Undo struct {
	Rel string
	// Delete: the task created the file and nobody changed it since; undo
	// deletes it.
	Delete bool
	// Restore: the task deleted the file and nobody made it again since;
	// undo creates it again as Next with the permission bits Mode (0:
	// not known).
	Restore bool
	Mode    fs.FileMode
	// Changes revert the task's changes in Cur, making Next; regions the
	// user changed since are left alone and reported in Conflicts.
	Changes   []edits.Change
	Cur       string
	Next      string
	Conflicts []Conflict
}

// Conflict is a region undo leaves alone.
type Conflict struct {
	Line   int // 1-based, in the current text
	Reason string
}

// PlanUndo plans reverting the task's applied changes to f over cur, the
// file as the user has it now (exists: it exists).
func PlanUndo(f File, cur string, exists bool) Undo {
	u := Undo{Rel: f.Rel, Cur: cur}
	if f.Gone {
		switch {
		case !f.Existed:
		case exists:
			u.Conflicts = append(u.Conflicts, Conflict{Line: 1, Reason: "the task deleted this file and it was made again since; kept"})
		default:
			u.Restore, u.Next, u.Mode = true, f.Base, f.Mode
		}
		return u
	}
	if !f.Existed {
		switch {
		case !exists:
		case cur != f.After:
			u.Conflicts = append(u.Conflicts, Conflict{Line: 1, Reason: "the task created this file and it changed since; kept"})
		default:
			u.Delete = true
		}
		return u
	}
	cs, cfs := edits.RevertChanges(f.Base, f.After, cur)
	for _, c := range cfs {
		u.Conflicts = append(u.Conflicts, Conflict{Line: c.Line, Reason: c.Reason})
	}
	if len(cs) > 0 {
		u.Changes, u.Next = cs, edits.ApplyChanges(cur, cs)
	}
	return u
}
