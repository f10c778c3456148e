package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
)

// clientWorkspace is the agent's view of the files in ACP mode: the
// client's fs/read_text_file and fs/write_text_file when it offers them
// (unsaved buffers are read, edits land in the editor), else the disk,
// confined to the same root either way (the tools resolve paths before
// they get here). In "ask" mode every edit is asked about first.
type clientWorkspace struct {
	a           *Agent
	s           *acpSession
	out         *stream
	disk        *tools.DiskWorkspace
	files       *apply.Applier // the write path (files.go)
	read, write bool

	// log: each file as the task found it and as it left it (the
	// change log the other front ends keep too).
	log review.Log
}

var _ agent.Workspace = (*clientWorkspace)(nil)

// errRejected: the user rejected an edit in "ask" mode.
var errRejected = errors.New("the user rejected this edit")

func (a *Agent) newWorkspace(s *acpSession, out *stream) (*clientWorkspace, error) {
	disk, err := tools.NewDiskWorkspace(s.root)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	r, w := a.fsRead, a.fsWrite
	a.mu.Unlock()
	files, err := a.files(s, w)
	if err != nil {
		return nil, err
	}
	return &clientWorkspace{a: a, s: s, out: out, disk: disk, files: files, read: r, write: w}, nil
}

func (w *clientWorkspace) Root() string { return w.disk.Root() }

func (w *clientWorkspace) abs(rel string) string {
	return filepath.Join(w.disk.Root(), filepath.FromSlash(rel))
}

// ReadFile implements agent.Workspace.
func (w *clientWorkspace) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	b, exists, err := w.current(ctx, rel)
	if err == nil && !exists {
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	return b, err
}

// current returns the text the client has (nil when the file does not
// exist). The client's read fails alike for a missing file and others;
// the disk tells them apart.
func (w *clientWorkspace) current(ctx context.Context, rel string) ([]byte, bool, error) {
	if !w.read {
		b, err := w.disk.ReadFile(ctx, rel)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return b, err == nil, err
	}
	res, err := w.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(w.s.id), Path: w.abs(rel)})
	if err != nil {
		if _, derr := w.disk.ReadFile(ctx, rel); errors.Is(derr, fs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("the editor could not read %s: %v", rel, err)
	}
	return []byte(res.Content), true, nil
}

// Edit implements agent.Workspace.
func (w *clientWorkspace) Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error {
	return w.edit(ctx, rel, transform, true)
}

// edit writes rel through the write path (the client or the disk), over
// the text the transform ran on only; task: an edit of the task, asked
// about in "ask" mode and recorded (undo's is neither).
func (w *clientWorkspace) edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error), task bool) error {
	c, err := w.files.Edit(ctx, rel, "agentls: "+rel, func(cur apply.Text) (string, error) {
		nb, err := transform([]byte(cur.Data), cur.Exists)
		if err != nil {
			return "", err
		}
		if task && (!cur.Exists || string(nb) != cur.Data) {
			if err := w.confirm(ctx, rel, []byte(cur.Data), cur.Exists, nb); err != nil {
				return "", err
			}
		}
		return string(nb), nil
	})
	if err != nil {
		return err
	}
	if task && !c.Noop() {
		w.record(rel, []byte(c.Cur.Data), c.Cur.Exists, []byte(c.Next))
	}
	return nil
}

// changedFiles are the files the task changed, in order.
func (w *clientWorkspace) changedFiles() []string {
	var out []string
	for _, f := range w.log.Applied() {
		out = append(out, f.Rel)
	}
	return out
}

// undoOrder is changedFiles, last first.
func (w *clientWorkspace) undoOrder() []string {
	out := w.changedFiles()
	slices.Reverse(out)
	return out
}

// confirm asks the user about an edit in "ask" mode, showing its diff.
func (w *clientWorkspace) confirm(ctx context.Context, rel string, old []byte, existed bool, next []byte) error {
	w.s.mu.Lock()
	ask := w.s.mode == modeAsk
	w.s.mu.Unlock()
	if !ask {
		return nil
	}
	diff := sdk.ToolDiffContent(w.abs(rel), string(next))
	if existed {
		diff = sdk.ToolDiffContent(w.abs(rel), string(next), string(old))
	}
	title := "Edit " + rel
	kind := sdk.ToolKindEdit
	ans, err := w.a.requestPermission(ctx, w.s,
		sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId("edit-" + rel), Title: &title, Kind: &kind, Content: []sdk.ToolCallContent{diff}},
		sdk.PermissionOption{OptionId: optAllowOnce, Name: "Apply", Kind: sdk.PermissionOptionKindAllowOnce},
		sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
	)
	if err != nil {
		return fmt.Errorf("asking about the edit failed: %v", err)
	}
	if ans != approval.AllowOnce {
		return errRejected
	}
	return nil
}

func (w *clientWorkspace) record(rel string, old []byte, existed bool, next []byte) {
	w.log.RecordApplied(rel, string(old), existed, string(next))
	w.out.edited(rel, w.abs(rel), string(old), string(next), existed)
}

// unsaved is what the verify gate must see for the changed files: the
// texts written through the client, which may not be saved yet.
func (w *clientWorkspace) unsaved(changed []string) map[string][]byte {
	if !w.write {
		return nil
	}
	out := map[string][]byte{}
	for _, rel := range changed {
		if f, ok := w.log.File(rel); ok && !f.Gone {
			out[rel] = []byte(f.After)
		}
	}
	return out
}

// changes are the task's changes for the session store.
func (w *clientWorkspace) changes() []session.Change {
	var out []session.Change
	for _, f := range w.log.Applied() {
		out = append(out, session.NewChange(f.Rel, []byte(f.Base), f.Existed, []byte(f.After)))
	}
	return out
}

// View is what run_command sees instead of the disk (tools.Viewer): the
// texts the task wrote through the client, which may not be saved yet.
// Being a Viewer, the command runs in a view whose writes land in a
// private layer, carried into the tree when it ends (tools.carry: through
// no link, only over unchanged text, journaled) and recorded in the
// task's change log (Carried), so /undo covers what commands wrote.
func (w *clientWorkspace) View(ctx context.Context) map[string][]byte {
	view := w.unsaved(w.changedFiles())
	if view == nil {
		view = map[string][]byte{}
	}
	return view
}

// Wrote applies what a command wrote to a file of the view onto the
// client's text now, through the write path (tools.Viewer); the command
// was approved already, so nothing more is asked.
func (w *clientWorkspace) Wrote(ctx context.Context, rel string, seen, next []byte) (string, error) {
	var note string
	c, err := w.files.Edit(ctx, rel, "agentls: "+rel, func(cur apply.Text) (string, error) {
		var text []byte
		text, note = apply.Onto([]byte(cur.Data), cur.Exists, seen, next)
		return string(text), nil
	})
	if err == nil && !c.Noop() {
		w.record(rel, []byte(c.Cur.Data), c.Cur.Exists, []byte(c.Next))
	}
	return note, err
}

// Carried records a file a command's view wrote into the tree in the
// task's change log and shows it to the client as the task's edit
// (tools.Carrier).
func (w *clientWorkspace) Carried(rel string, old []byte, existed bool, next []byte) {
	w.record(rel, old, existed, next)
}

// CarriedDelete records a file a command's view deleted in the task's
// change log (tools.Carrier), so /undo makes it again.
func (w *clientWorkspace) CarriedDelete(rel string, old []byte, mode fs.FileMode) {
	w.log.RecordDeleted(rel, string(old), mode)
}

// CarryFile writes a file a command's view carried in through the write
// path (tools.CarryWriter): the client's fs when it offers it, else the
// disk, over old only.
func (w *clientWorkspace) CarryFile(ctx context.Context, rel string, old []byte, existed bool, next []byte, del bool) error {
	a := w.files
	if del && w.write {
		// The client cannot delete over ACP: the disk's file goes, as the
		// command left it, taking its turn with the client's writes.
		w.a.mu.Lock()
		slots := w.a.slots[w.s.root]
		w.a.mu.Unlock()
		if slots == nil {
			slots = &apply.Slots{}
		}
		a = apply.Shared(&apply.Disk{W: w.disk}, slots)
	}
	return apply.Carry(ctx, a, rel, old, existed, next, del)
}

// AskCarry asks about a file a command's view would carry in, as about
// an edit, when review is on (tools.CarryAsker): a command's writes are
// held to the user's answer like the edit tools' changes.
func (w *clientWorkspace) AskCarry(ctx context.Context, rel string, old []byte, existed bool, next []byte, del bool) error {
	return w.confirm(ctx, rel, old, existed, next)
}

// CommandsOnly: hooks and stop conditions run on the disk
// (tools.CommandViewer).
func (w *clientWorkspace) CommandsOnly() {}

var (
	_ tools.CommandViewer = (*clientWorkspace)(nil)
	_ tools.Viewer        = (*clientWorkspace)(nil)
	_ tools.Carrier       = (*clientWorkspace)(nil)
	_ tools.CarryAsker    = (*clientWorkspace)(nil)
)
