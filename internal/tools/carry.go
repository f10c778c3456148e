package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// allowed checks that rel may be carried into the tree: beneath the root,
// through no link, not in .git; a protected name only when the user says
// yes (ProtectedWrite's question, ConfirmWrite).
func (c *carrier) allowed(rel string) error {
	asked := false
	if p, why := c.prot.check(rel, ""); p && c.confirm != nil && rel != ".git" && !strings.HasPrefix(rel, ".git/") {
		ok, err := c.confirm(c.ctx, rel, why)
		if err != nil {
			return err
		}
		if !ok {
			return errors.New(why + "; the user did not allow the command's change")
		}
		asked = true
	}
	return carriable(c.r, rel, c.prot, asked)
}

// asked asks a front end that asks about each carried file (CarryAsker);
// a file the user refuses is noted and left.
func (c *carrier) asked(rel string, old []byte, existed bool, next []byte, del bool) bool {
	a, ok := c.v.(CarryAsker)
	if !ok {
		return true
	}
	if err := a.AskCarry(c.ctx, rel, old, existed, next, del); err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s (%v)", rel, err))
		return false
	}
	return true
}

// commit carries the planned files in: the plan is journaled (fsynced)
// first, so that a process killed mid-way leaves what RecoverCarries
// finishes or reports; each file is written atomically, only over the
// text the plan found (compare-and-swap), and recorded; the journal goes
// when all are done. A front end that holds the files as proposals
// (CarryProposer: review, a dry run) gets them through CarryFile, and
// nothing is journaled, written or recorded as applied.
func (c *carrier) commit(root string) error {
	if len(c.plan) == 0 {
		return nil
	}
	if p, ok := c.v.(CarryProposer); ok && p.ProposesCarry() {
		c.propose(p)
		return nil
	}
	var jp string
	if c.journal != "" {
		p, lock, err := writeJournal(c.journal, carryJournal{Root: root, Files: c.plan})
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		defer lock.Close()
		jp = p
	}
	delay := carryDelay()
	for _, e := range c.plan {
		if delay > 0 {
			time.Sleep(delay)
		}
		if !c.current(e) {
			continue
		}
		if err := c.apply(e); err != nil {
			c.notes = append(c.notes, fmt.Sprintf("%s (%v)", e.Rel, err))
			continue
		}
		if c.record != nil {
			// A deletion is recorded too, with the text and mode it
			// took away: undo and rewind put the file back.
			c.record(e)
		}
		if e.Delete {
			c.deleted = append(c.deleted, e.Rel)
		} else {
			c.wrote = append(c.wrote, e.Rel)
		}
	}
	if jp != "" {
		if err := os.Remove(jp); err != nil {
			return err
		}
		return syncDir(c.journal)
	}
	return nil
}

// current checks that a planned file is still as the plan found it, and
// may still be carried; else it notes why not.
func (c *carrier) current(e carryEntry) bool {
	if e.state(c.r) != "old" {
		c.notes = append(c.notes, e.Rel+" (changed by someone else while the command's writes were carried: not written over)")
		return false
	}
	if err := carriable(c.r, e.Rel, protection{}, true); err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s (%v)", e.Rel, err))
		return false
	}
	return true
}

// propose hands the planned files to a front end that holds them as
// proposals: the tree is left as it is.
func (c *carrier) propose(p CarryProposer) {
	for _, e := range c.plan {
		if !c.current(e) {
			continue
		}
		if err := p.CarryFile(c.ctx, e.Rel, e.Old, e.Existed, e.Next, e.Delete); err != nil {
			c.notes = append(c.notes, fmt.Sprintf("%s (%v)", e.Rel, err))
			continue
		}
		c.proposed = append(c.proposed, e.Rel)
	}
}

// apply writes one planned file: through the front end's write path when
// it has one for carried files, else beneath the root, atomically.
func (c *carrier) apply(e carryEntry) error {
	w, ok := c.v.(CarryWriter)
	if !ok {
		return applyEntry(c.r, e)
	}
	if err := w.CarryFile(c.ctx, e.Rel, e.Old, e.Existed, e.Next, e.Delete); err != nil {
		return err
	}
	if !e.Delete && e.Perm&0o111 != 0 {
		// The write path keeps a file's mode or makes it 0644: a script
		// the command made executable stays so.
		_ = c.r.Chmod(filepath.FromSlash(e.Rel), e.Perm)
	}
	return nil
}
