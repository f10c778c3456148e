package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
)

// cliWorkspace is the workspace of `agentls run`. It writes through to
// disk (atomically, by tools.DiskWorkspace) or (--dry-run,
// --review), keeps the writes in memory where later reads see them. Either
// way its change log (the one internal/review keeps for the language
// server too) notes each file's text before the task's first edit and
// after its last, for the diff, the review and the session.
type cliWorkspace struct {
	disk     *tools.DiskWorkspace
	files    *apply.Applier // the write path to the disk
	inMemory bool

	mu  sync.Mutex // held across in-memory edits, so a transform sees the last one
	log review.Log
}

func newCLIWorkspace(disk *tools.DiskWorkspace, inMemory bool) *cliWorkspace {
	return &cliWorkspace{disk: disk, files: apply.New(&apply.Disk{W: disk}), inMemory: inMemory}
}

func (w *cliWorkspace) Root() string { return w.disk.Root() }

func (w *cliWorkspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	if w.inMemory {
		if fc, ok := w.log.File(rel); ok {
			if fc.Gone {
				return nil, fmt.Errorf("%s: %w (deleted by the task's command; proposed)", rel, fs.ErrNotExist)
			}
			return []byte(fc.After), nil
		}
	}
	return w.disk.ReadFile(ctx, rel)
}

// OpenFiles implements tools.BufferLister in memory, so list_files
// and grep see the files the task created and the text it proposed.
func (w *cliWorkspace) OpenFiles() []string {
	if !w.inMemory {
		return nil
	}
	var out []string
	for _, fc := range w.log.Applied() {
		if !fc.Gone {
			out = append(out, fc.Rel)
		}
	}
	return out
}

// Edit applies transform. An edit that has started finishes even when the
// task is cancelled meanwhile (the write is one atomic rename); one that
// has not started never does.
func (w *cliWorkspace) Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.inMemory {
		w.mu.Lock()
		defer w.mu.Unlock()
		var old []byte
		exists := true
		if fc, ok := w.log.File(rel); ok {
			old, exists = []byte(fc.After), !fc.Gone
		} else {
			b, err := w.disk.ReadFile(ctx, rel)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				exists = false
			case err != nil:
				return err
			}
			old = b
		}
		text, err := transform(bytes.Clone(old), exists)
		if err != nil {
			return err
		}
		if exists && bytes.Equal(old, text) {
			return nil
		}
		w.log.RecordApplied(rel, string(old), exists, string(text))
		return nil
	}
	c, err := w.files.Edit(ctx, rel, "", func(cur apply.Text) (string, error) {
		t, err := transform([]byte(cur.Data), cur.Exists)
		return string(t), err
	})
	if err != nil || c.Noop() {
		return err
	}
	w.log.RecordApplied(rel, c.Cur.Data, c.Cur.Exists, c.Next)
	return nil
}

// changed lists the files whose text differs from before the task, in
// order of first change.
func (w *cliWorkspace) changed() []string {
	var out []string
	for _, fc := range w.log.Changed() {
		out = append(out, fc.Rel)
	}
	return out
}

func (w *cliWorkspace) change(rel string) review.File {
	fc, _ := w.log.File(rel)
	return fc
}

// proposed maps the changed files to their new text, for checks that must
// see edits not on disk.
func (w *cliWorkspace) proposed() map[string][]byte {
	if !w.inMemory {
		return nil
	}
	out := map[string][]byte{}
	for _, fc := range w.log.Changed() {
		if !fc.Gone {
			out[fc.Rel] = []byte(fc.After)
		}
	}
	return out
}

// diff is the unified diff of one file, as git shows it.
func (w *cliWorkspace) diff(rel string) string {
	fc := w.change(rel)
	return edits.FileDiff(rel, fc.Base, fc.Existed, fc.After, fc.Gone, -1)
}

// sessionChanges describes the given files for the session.
func (w *cliWorkspace) sessionChanges(rels []string) []session.Change {
	out := make([]session.Change, 0, len(rels))
	for _, rel := range rels {
		fc := w.change(rel)
		out = append(out, session.NewChange(rel, []byte(fc.Base), fc.Existed, []byte(fc.After)))
	}
	return out
}

// apply writes a proposed file to disk atomically. The disk text must
// still be what the task started from: a file changed meanwhile (by the
// user, by another program) is not overwritten.
func (w *cliWorkspace) apply(ctx context.Context, rel string) error {
	fc := w.change(rel)
	// A command the task ran may have swapped a directory for a symlink
	// out of the workspace since the change was proposed: checked now.
	if err := tools.Beneath(w.disk.Root(), rel); err != nil {
		return err
	}
	_, err := w.files.Apply(ctx, []string{rel}, apply.Batch{}, func(cur map[string]apply.Text) ([]apply.Change, error) {
		c := cur[rel]
		if c.Exists != fc.Existed || c.Data != fc.Base {
			return nil, errChangedOnDisk
		}
		return []apply.Change{{Rel: rel, Cur: c, Next: fc.After, Delete: fc.Gone}}, nil
	})
	return err
}

var errChangedOnDisk = errors.New("the file changed on disk while the task ran; not overwritten")

// Delete implements tools.FileOps on disk; a dry run or a review proposes
// text only.
func (w *cliWorkspace) Delete(ctx context.Context, rel string) error {
	if w.inMemory {
		return fmt.Errorf("this run proposes text changes only (--dry-run or review); deleting %s is left to the user: say so in your summary", rel)
	}
	return w.disk.Delete(ctx, rel)
}

// Move implements tools.FileOps on disk, like Delete.
func (w *cliWorkspace) Move(ctx context.Context, from, to string) error {
	if w.inMemory {
		return fmt.Errorf("this run proposes text changes only (--dry-run or review); moving %s is left to the user: say so in your summary", from)
	}
	return w.disk.Move(ctx, from, to)
}

// View is what run_command sees instead of the disk (tools.Viewer): on
// disk nothing (the disk is the truth), in memory the task's proposed
// texts. Being a Viewer, the command runs in a view whose writes land in a
// private layer, carried into the tree when it ends (tools.carry: through
// no link, only over unchanged text, journaled) and recorded in the
// task's change log (Carried): its writes show in the task's diff and the
// session's rewind restores them.
func (w *cliWorkspace) View(ctx context.Context) map[string][]byte {
	view := map[string][]byte{}
	for rel, text := range w.proposed() {
		view[rel] = text
	}
	return view
}

// Wrote applies what a command wrote to a file of the view (one the task
// proposed in memory) onto that file's text now (tools.Viewer).
func (w *cliWorkspace) Wrote(ctx context.Context, rel string, seen, next []byte) (string, error) {
	var note string
	err := w.Edit(ctx, rel, func(cur []byte, exists bool) ([]byte, error) {
		var text []byte
		text, note = apply.Onto(cur, exists, seen, next)
		return text, nil
	})
	return note, err
}

// Carried records a file a command's view wrote into the tree in the
// task's change log (tools.Carrier).
func (w *cliWorkspace) Carried(rel string, old []byte, existed bool, next []byte) {
	w.log.RecordApplied(rel, string(old), existed, string(next))
}

// CarriedDelete records a file a command's view deleted in the task's
// change log (tools.Carrier): the diff shows it, and the session's rewind
// makes it again.
func (w *cliWorkspace) CarriedDelete(rel string, old []byte, mode fs.FileMode) {
	w.log.RecordDeleted(rel, string(old), mode)
}

// CarryFile writes a file a command's view carried in through the write
// path (tools.CarryWriter): the Applier over the disk, over old only.
// Under --dry-run or --review (in memory) the change is held in the
// change log with the task's other proposals instead (tools.CarryProposer):
// the dry run's diff shows it, the review asks about it.
func (w *cliWorkspace) CarryFile(ctx context.Context, rel string, old []byte, existed bool, next []byte, del bool) error {
	if !w.inMemory {
		return apply.Carry(ctx, w.files, rel, old, existed, next, del)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if del {
		w.log.RecordDeleted(rel, string(old), 0)
	} else {
		w.log.RecordApplied(rel, string(old), existed, string(next))
	}
	return nil
}

// ProposesCarry: in memory, what commands write is proposed, not written
// (tools.CarryProposer).
func (w *cliWorkspace) ProposesCarry() bool { return w.inMemory }

// CommandsOnly: hooks and stop conditions run on the disk
// (tools.CommandViewer).
func (w *cliWorkspace) CommandsOnly() {}

var (
	_ tools.CommandViewer = (*cliWorkspace)(nil)
	_ tools.Viewer        = (*cliWorkspace)(nil)
	_ tools.Carrier       = (*cliWorkspace)(nil)
	_ tools.CarryProposer = (*cliWorkspace)(nil)
)
