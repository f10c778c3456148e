package review

import (
	"io/fs"
	"sync"

	"github.com/agentls/agentls/internal/edits"
)

// Log is a task's record of the files it changed: what undo needs
// (applied changes) and, in review mode, its proposals (only a review
// task's workspace proposes).
type Log struct {
	mu    sync.Mutex
	files map[string]*File
	order []string
	// forgotten: the task fell out of the history's undo window and its
	// texts were dropped (the front end bounds its history).
	forgotten bool
}

// File is what a task did to one file, for undo and review.
type File struct {
	Rel string
	// Undo: the text before the task's first applied change, whether the
	// file existed then, and the text after its last applied change.
	Base    string
	Existed bool
	After   string
	Applied bool
	// Gone: the task's last applied change deleted the file (After is
	// empty); Mode is Base's permission bits where known, so undo puts
	// a deleted file back as it was.
	Gone bool
	Mode fs.FileMode
	// Review: proposals are proposed relative to ReviewBase, which moves
	// as the user accepts hunks.
	ReviewBase    string
	ReviewExisted bool
	Proposed      string
	Proposing     bool
	// Gen counts changes to the proposal, so a commit made after a client
	// round trip can check that nothing moved meanwhile.
	Gen int
	// Undone: an undo took the applied changes back; Rejected: the user
	// rejected proposals (for the task's Outcome).
	Undone, Rejected bool
}

// Pending reports whether the file has a proposal left to review.
func (fc *File) Pending() bool {
	return fc.Proposing && (fc.Proposed != fc.ReviewBase || !fc.ReviewExisted)
}

func (c *Log) entry(rel, old string, existed bool) *File {
	if c.files == nil {
		c.files = map[string]*File{}
	}
	fc, ok := c.files[rel]
	if !ok {
		fc = &File{Rel: rel, Base: old, Existed: existed, After: old}
		c.files[rel] = fc
		c.order = append(c.order, rel)
	}
	return fc
}

// RecordApplied notes a change that reached the editor, for undo and
// filesChanged.
func (c *Log) RecordApplied(rel, old string, existed bool, next string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc := c.entry(rel, old, existed)
	if !fc.Applied {
		fc.Base, fc.Existed = old, existed
	} else {
		fc.rebase(old)
	}
	fc.After, fc.Applied, fc.Gone = next, true, false
}

// RecordDeleted notes that the task deleted rel, whose text was old (mode
// its permission bits), for undo and filesChanged.
func (c *Log) RecordDeleted(rel, old string, mode fs.FileMode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc := c.entry(rel, old, true)
	if !fc.Applied {
		fc.Base, fc.Existed, fc.Mode = old, true, mode
	} else {
		fc.rebase(old)
	}
	fc.After, fc.Applied, fc.Gone = "", true, true
}

// Propose records a review-mode change instead of applying it: transform
// runs on what the task proposed so far (or on cur, the file as the user
// has it, for the first proposal), so the model's later reads and edits
// stay coherent.
func (c *Log) Propose(rel, cur string, curExists bool, transform func([]byte, bool) ([]byte, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc := c.entry(rel, cur, curExists)
	base, exists := fc.Proposed, true
	if !fc.Proposing {
		base, exists = cur, curExists
	}
	nb, err := transform([]byte(base), exists)
	if err != nil {
		return err
	}
	if !fc.Proposing {
		fc.ReviewBase, fc.ReviewExisted, fc.Proposing = cur, curExists, true
	}
	fc.Proposed = string(nb)
	fc.Gen++
	return nil
}

// ProposeWhole records a whole change made elsewhere (a task's worktree)
// as a proposal: base is the text it was made from (existed: the file was
// there), proposed what it became. Its hunks are placed in the user's
// text as it is when reviewed, which is the three-way merge: the user's
// changes since base stay, and a hunk over one is a conflict.
func (c *Log) ProposeWhole(rel, base string, existed bool, proposed string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc := c.entry(rel, base, existed)
	fc.ReviewBase, fc.ReviewExisted, fc.Proposing = base, existed, true
	fc.Proposed = proposed
	fc.Gen++
}

// Proposal returns the text review mode proposes for rel, if any.
func (c *Log) Proposal(rel string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc, ok := c.files[rel]
	if !ok || !fc.Proposing {
		return "", false
	}
	return fc.Proposed, true
}

// HasApplied reports whether the task has applied changes not undone.
func (c *Log) HasApplied() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fc := range c.files {
		if fc.Applied {
			return true
		}
	}
	return false
}

// Applied returns copies of the files with applied changes not undone, in
// order.
func (c *Log) Applied() []File {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []File
	for _, rel := range c.order {
		if fc := c.files[rel]; fc.Applied {
			out = append(out, *fc)
		}
	}
	return out
}

// File returns a copy of what the log holds for rel.
func (c *Log) File(rel string) (File, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc, ok := c.files[rel]
	if !ok {
		return File{}, false
	}
	return *fc, true
}

// Changed returns copies of the files whose applied text differs from
// what the task found (a file it created or deleted counts), in order.
func (c *Log) Changed() []File {
	var out []File
	for _, fc := range c.Applied() {
		if fc.Existed == fc.Gone || fc.Base != fc.After {
			out = append(out, fc)
		}
	}
	return out
}

// Pending returns copies of the files with proposals left, in order.
func (c *Log) Pending() []File {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []File
	for _, rel := range c.order {
		if fc := c.files[rel]; fc.Pending() {
			out = append(out, *fc)
		}
	}
	return out
}

// CommitAccept records accepted hunks once the editor applied them: the
// review base moves past them and the change becomes undoable. It is
// refused (false) when the proposal changed since it was planned at gen.
func (c *Log) CommitAccept(rel string, gen int, accepted []edits.Change, cur string, existed bool, next string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc, ok := c.files[rel]
	if !ok || fc.Gen != gen {
		return false
	}
	fc.ReviewBase = edits.ApplyChanges(fc.ReviewBase, accepted)
	fc.ReviewExisted = true
	if fc.ReviewBase == fc.Proposed {
		fc.Proposing = false
	}
	if !fc.Applied {
		fc.Base, fc.Existed = cur, existed
	} else {
		fc.rebase(cur)
	}
	fc.After, fc.Applied = next, true
	fc.Gen++
	return true
}

// rebase carries what the user typed since the task last changed the file
// (cur is the text just before this change; the task left fc.After) into
// the task's base, so that undo reverts the task's changes only and keeps
// the user's work in between: the base becomes the current text with the
// task's earlier changes taken out.
func (fc *File) rebase(cur string) {
	if cur == fc.After {
		return
	}
	fc.Base, _ = edits.Revert(fc.Base, fc.After, cur)
}

// Reject takes hunks out of a file's proposal (hunk "": all of them) and
// returns how many it took.
func (c *Log) Reject(rel, hunk string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	fc, ok := c.files[rel]
	if !ok || !fc.Pending() {
		return 0
	}
	n := 0
	keep := []edits.Change{}
	for _, ch := range edits.Diff(fc.ReviewBase, fc.Proposed) {
		if hunk != "" && HunkID(ch) != hunk {
			keep = append(keep, ch)
		} else {
			n++
		}
	}
	fc.Proposed = edits.ApplyChanges(fc.ReviewBase, keep)
	fc.Rejected = fc.Rejected || n > 0
	if len(keep) == 0 {
		fc.Proposing = false
	}
	fc.Gen++
	return n
}

// CommitUndo marks a file's applied changes undone.
func (c *Log) CommitUndo(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if fc, ok := c.files[rel]; ok {
		fc.Applied = false
		fc.Undone = true
		fc.Gen++
	}
}

// Outcome is what became of a finished task's changes where its status
// alone would mislead ("ok" for a task whose changes are gone):
// "awaiting review" while proposals are left, "undone" once an undo took
// every applied change back, "rejected" for a review task whose proposals
// were all rejected; "" otherwise.
func (c *Log) Outcome(review bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgotten {
		return ""
	}
	var applied, pending, undone, rejected bool
	for _, fc := range c.files {
		applied = applied || fc.Applied
		pending = pending || fc.Pending()
		undone = undone || fc.Undone
		rejected = rejected || fc.Rejected
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

// Forget drops every text the log holds (the task left the history's undo
// window). What is left says only which files the task touched.
func (c *Log) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgotten {
		return
	}
	c.forgotten = true
	for _, fc := range c.files {
		*fc = File{Rel: fc.Rel}
	}
}

// Forgotten reports whether Forget dropped the texts.
func (c *Log) Forgotten() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.forgotten
}
