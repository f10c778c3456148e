package worktree

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Change is one file the task changed, relative to the user's workspace
// root: the snapshot's text (Base; Existed: the file was in the snapshot)
// and the task's (Proposed; Deleted: the task removed the file).
type Change struct {
	Rel      string
	Base     string
	Existed  bool
	Proposed string
	Deleted  bool
}

// Verb says what the change did to the file: created, deleted or changed.
func (c Change) Verb() string {
	switch {
	case !c.Existed:
		return "created"
	case c.Deleted:
		return "deleted"
	}
	return "changed"
}

// ErrUnreadable is a worktree change that cannot be read as texts to
// propose: the task then ends failed, with the reason, rather than "ok"
// with a change nobody can merge.
var ErrUnreadable = errors.New("the task's change cannot be read")

// maxText is the largest file proposed as text.
const maxText = 8 << 20

// Finish records what the task left in the worktree as a commit on its
// branch and returns its change against the snapshot, with notes on the
// files it cannot propose as text (binary, symlinks, outside the
// workspace root, too large).
func (t *Tree) Finish(ctx context.Context) ([]Change, []string, error) {
	head, err := t.commit(ctx, "agentls: task "+t.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: recording it in the worktree failed (a repository the task made inside it, sub/.git, stops git add): %w", ErrUnreadable, err)
	}
	t.Head = head
	if err := t.save(); err != nil {
		return nil, nil, err
	}
	return t.Changes(ctx)
}

// Changes is the change of the task's last commit (Finish) against the
// snapshot.
func (t *Tree) Changes(ctx context.Context) ([]Change, []string, error) {
	head := t.Head
	if head == "" {
		head = t.Base
	}
	out, err := t.git(ctx, true, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", "--no-textconv", t.Base, head)
	if err != nil {
		return nil, nil, err
	}
	var changes []Change
	var notes []string
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		meta, p := fields[i], fields[i+1]
		// ":100644 100644 <old> <new> M"
		f := strings.Fields(strings.TrimPrefix(meta, ":"))
		if len(f) != 5 {
			continue
		}
		oldMode, newMode, oldHash, newHash, status := f[0], f[1], f[2], f[3], f[4]
		rel, ok := t.rel(p)
		if !ok {
			notes = append(notes, p+" is outside the workspace root; see it in the worktree")
			continue
		}
		c := Change{Rel: rel, Existed: status != "A", Deleted: status == "D"}
		if oldMode == "160000" || newMode == "160000" {
			// A repository inside the worktree (sub/.git, which the
			// task's commands can make): git records it as a commit id,
			// and nothing of what the task wrote below it can be read.
			return nil, nil, fmt.Errorf("%w: %s is a git repository inside the worktree (%s/.git), whose files git records only as a commit; the task's change there cannot be read or merged (see it in %s)",
				ErrUnreadable, rel, rel, t.Dir())
		}
		if !textMode(oldMode) || !textMode(newMode) {
			notes = append(notes, rel+" is a symlink or submodule; see it in the worktree")
			continue
		}
		var bad string
		if c.Existed {
			c.Base, bad = t.blobText(ctx, oldHash)
		}
		if !c.Deleted && bad == "" {
			c.Proposed, bad = t.blobText(ctx, newHash)
		}
		if bad != "" {
			notes = append(notes, rel+" "+bad+"; see it in the worktree")
			continue
		}
		changes = append(changes, c)
	}
	return changes, notes, nil
}

func textMode(m string) bool { return m == "000000" || m == "100644" || m == "100755" }

// rel maps a path of the repository to the workspace root.
func (t *Tree) rel(p string) (string, bool) {
	if t.Prefix == "" {
		return p, true
	}
	r, ok := strings.CutPrefix(p, t.Prefix+"/")
	return r, ok && r != ""
}

// blobText reads a blob as text; bad says why it cannot be proposed.
func (t *Tree) blobText(ctx context.Context, hash string) (text, bad string) {
	if len(hash) < 40 || strings.Trim(hash, "0123456789abcdef") != "" {
		return "", "could not be read (bad object name)"
	}
	data, err := t.git(ctx, true, "cat-file", "blob", hash)
	if err != nil {
		return "", "could not be read (" + err.Error() + ")"
	}
	if len(data) > maxText {
		return "", "is too large to propose as text"
	}
	if strings.IndexByte(data, 0) >= 0 || !utf8.ValidString(data) {
		return "", "is binary"
	}
	return data, ""
}
