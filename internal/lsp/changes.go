package lsp

import (
	"sync"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/session"
)

// changeLog is a task's record of the files it changed: what undo needs
// (applied changes) and, in review mode, its proposals (only a review
// task's workspace proposes).
type changeLog struct {
	mu    sync.Mutex
	files map[string]*fileChange
	order []string
	// forgotten: the task fell out of the history's undo window and its
	// texts were dropped (see taskManager.trim).
	forgotten bool
}

// fileChange is what a task did to one file, for undo and review.
type fileChange struct {
	rel string
	// Undo: the text before the task's first applied change, whether the
	// file existed then, and the text after its last applied change.
	base    string
	existed bool
	after   string
	applied bool
	// Review: proposals are proposed relative to reviewBase, which moves
	// as the user accepts hunks.
	reviewBase    string
	reviewExisted bool
	proposed      string
	proposing     bool
	// gen counts changes to the proposal, so a commit made after a client
	// round trip can check that nothing moved meanwhile.
	gen int
	// undone: an undo took the applied changes back; rejected: the user
	// rejected proposals (for the task's outcome).
	undone, rejected bool
}

// pending reports whether the file has a proposal left to review.
func (fc *fileChange) pending() bool {
	return fc.proposing && (fc.proposed != fc.reviewBase || !fc.reviewExisted)
}

func (c *changeLog) entry(rel, old string, existed bool) *fileChange {
	if c.files == nil {
		c.files = map[string]*fileChange{}
	}
	fc, ok := c.files[rel]
	if !ok {
		fc = &fileChange{rel: rel, base: old, existed: existed, after: old}
		c.files[rel] = fc
		c.order = append(c.order, rel)
	}
	return fc
}

// recordApplied notes a change that reached the editor, for undo and
// filesChanged.
func (c *changeLog) recordApplied(rel, old string, existed bool, next string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc := c.entry(rel, old, existed)
	if !fc.applied {
		fc.base, fc.existed = old, existed
	} else {
		fc.rebase(old)
	}
	fc.after, fc.applied = next, true
}

// propose records a review-mode change instead of applying it: transform
// runs on what the task proposed so far (or on cur, the file as the user
// has it, for the first proposal), so the model's later reads and edits
// stay coherent.
func (c *changeLog) propose(rel, cur string, curExists bool, transform func([]byte, bool) ([]byte, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc := c.entry(rel, cur, curExists)
	base, exists := fc.proposed, true
	if !fc.proposing {
		base, exists = cur, curExists
	}
	nb, err := transform([]byte(base), exists)
	if err != nil {
		return err
	}
	if !fc.proposing {
		fc.reviewBase, fc.reviewExisted, fc.proposing = cur, curExists, true
	}
	fc.proposed = string(nb)
	fc.gen++
	return nil
}

// proposal returns the text review mode proposes for rel, if any.
func (c *changeLog) proposal(rel string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc, ok := c.files[rel]
	if !ok || !fc.proposing {
		return "", false
	}
	return fc.proposed, true
}

// hasApplied reports whether the task has applied changes not undone.
func (c *changeLog) hasApplied() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fc := range c.files {
		if fc.applied {
			return true
		}
	}
	return false
}

// applied returns copies of the files with applied changes not undone, in
// order.
func (c *changeLog) applied() []fileChange {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []fileChange
	for _, rel := range c.order {
		if fc := c.files[rel]; fc.applied {
			out = append(out, *fc)
		}
	}
	return out
}

// pendingFiles returns copies of the files with proposals left, in order.
func (c *changeLog) pendingFiles() []fileChange {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []fileChange
	for _, rel := range c.order {
		if fc := c.files[rel]; fc.pending() {
			out = append(out, *fc)
		}
	}
	return out
}

// sessionChanges are the applied changes as the session file keeps them.
func (c *changeLog) sessionChanges() []session.Change {
	var out []session.Change
	for _, fc := range c.applied() {
		out = append(out, session.NewChange(fc.rel, []byte(fc.base), fc.existed, []byte(fc.after)))
	}
	return out
}

// commitAccept records accepted hunks once the editor applied them: the
// review base moves past them and the change becomes undoable. It is
// refused (false) when the proposal changed since it was planned at gen.
func (c *changeLog) commitAccept(rel string, gen int, accepted []edits.Change, cur string, existed bool, next string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc, ok := c.files[rel]
	if !ok || fc.gen != gen {
		return false
	}
	fc.reviewBase = edits.ApplyChanges(fc.reviewBase, accepted)
	fc.reviewExisted = true
	if fc.reviewBase == fc.proposed {
		fc.proposing = false
	}
	if !fc.applied {
		fc.base, fc.existed = cur, existed
	} else {
		fc.rebase(cur)
	}
	fc.after, fc.applied = next, true
	fc.gen++
	return true
}

// rebase carries what the user typed since the task last changed the file
// (cur is the text just before this change; the task left fc.after) into
// the task's base, so that undo reverts the task's changes only and keeps
// the user's work in between: the base becomes the current text with the
// task's earlier changes taken out.
func (fc *fileChange) rebase(cur string) {
	if cur == fc.after {
		return
	}
	fc.base, _ = edits.Revert(fc.base, fc.after, cur)
}

// reject takes hunks out of a file's proposal (hunk "": all of them) and
// returns how many it took.
func (c *changeLog) reject(rel, hunk string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc, ok := c.files[rel]
	if !ok || !fc.pending() {
		return 0
	}
	n := 0
	keep := []edits.Change{}
	for _, ch := range edits.Diff(fc.reviewBase, fc.proposed) {
		if hunk != "" && hunkID(ch) != hunk {
			keep = append(keep, ch)
		} else {
			n++
		}
	}
	fc.proposed = edits.ApplyChanges(fc.reviewBase, keep)
	fc.rejected = fc.rejected || n > 0
	if len(keep) == 0 {
		fc.proposing = false
	}
	fc.gen++
	return n
}

// commitUndo marks a file's applied changes undone.
func (c *changeLog) commitUndo(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if fc, ok := c.files[rel]; ok {
		fc.applied = false
		fc.undone = true
		fc.gen++
	}
}

// outcome is what became of a finished task's changes where its status
// alone would mislead ("ok" for a task whose changes are gone):
// "awaiting review" while proposals are left, "undone" once an undo took
// every applied change back, "rejected" for a review task whose proposals
// were all rejected; "" otherwise.
func (c *changeLog) outcome(review bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgotten {
		return ""
	}
	var applied, pending, undone, rejected bool
	for _, fc := range c.files {
		applied = applied || fc.applied
		pending = pending || fc.pending()
		undone = undone || fc.undone
		rejected = rejected || fc.rejected
	}
	switch {
	case pending:
		return "awaiting review"
	case applied:
		return ""
	case undone:
		return "undone"
	case review && rejected:
		return "rejected"
	}
	return ""
}

// forget drops every text the log holds (the task left the history's undo
// window). What is left says only which files the task touched.
func (c *changeLog) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgotten {
		return
	}
	c.forgotten = true
	for _, fc := range c.files {
		*fc = fileChange{rel: fc.rel}
	}
}

func (c *changeLog) isForgotten() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.forgotten
}
