package acp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/tools"
)

// clientFiles is the ACP front end's transport of the write path
// (apply.Transport): the client's fs/read_text_file and
// fs/write_text_file, for one session. The client cannot refuse a write
// made for an older text, so the Applier's turn per file (shared by every
// session of the connection on that workspace) is what keeps two
// sessions from writing over each other; and a write is believed once the
// client's text has it (read back).
type clientFiles struct {
	conn    *sdk.AgentSideConnection
	session sdk.SessionId
	root    string
	disk    *apply.Disk
}

func (f *clientFiles) abs(rel string) string { return filepath.Join(f.root, filepath.FromSlash(rel)) }

// Read implements apply.Transport. The client's read fails alike for a
// missing file and others; the disk tells them apart.
func (f *clientFiles) Read(ctx context.Context, rel string) (apply.Text, error) {
	res, err := f.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: f.session, Path: f.abs(rel)})
	if err != nil {
		if t, derr := f.disk.Read(ctx, rel); derr == nil && !t.Exists {
			return apply.Text{}, nil
		}
		return apply.Text{}, fmt.Errorf("the editor could not read %s: %v", rel, err)
	}
	return apply.Text{Data: res.Content, Exists: true}, nil
}

// Write implements apply.Transport.
func (f *clientFiles) Write(ctx context.Context, b apply.Batch) error {
	for _, c := range b.Changes {
		if c.Delete {
			return errors.New("the editor cannot delete files over ACP, delete it yourself")
		}
		if !c.Cur.Exists && c.Mode != 0 {
			// A file made again with its mode and exact bytes (undo of a
			// command's deletion): only the disk can, and a file that is
			// not there holds no user work.
			if err := f.disk.Write(ctx, apply.Batch{Changes: []apply.Change{c}}); err != nil {
				return err
			}
			continue
		}
		// The client writes the path it is sent: checked now.
		if err := tools.Beneath(f.root, c.Rel); err != nil {
			return fmt.Errorf("%w: %v", apply.ErrMoved, err)
		}
		if _, err := f.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: f.session, Path: f.abs(c.Rel), Content: c.Next}); err != nil {
			return fmt.Errorf("the editor did not write %s: %v", c.Rel, err)
		}
		now, err := f.Read(ctx, c.Rel)
		if err != nil {
			return err
		}
		if !now.Exists || !apply.Landed(c.Cur.Data, now.Data, c.Next) {
			return fmt.Errorf("%w: %s", apply.ErrLost, c.Rel)
		}
	}
	return nil
}

// files is the write path of a session's workspace: through the client
// when it writes files, else the disk; either way taking turns per file
// with the connection's other sessions on the same workspace.
func (a *Agent) files(s *acpSession, write bool) (*apply.Applier, error) {
	disk, err := apply.NewDisk(s.root)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if a.slots == nil {
		a.slots = map[string]*apply.Slots{}
	}
	slots, ok := a.slots[s.root]
	if !ok {
		slots = &apply.Slots{}
		a.slots[s.root] = slots
	}
	a.mu.Unlock()
	if !write {
		return apply.Shared(disk, slots), nil
	}
	return apply.Shared(&clientFiles{conn: a.conn, session: sdk.SessionId(s.id), root: s.root, disk: disk}, slots), nil
}
