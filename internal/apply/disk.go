package apply

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/agentls/agentls/internal/tools"
)

// Disk is the Transport of files on disk (the headless CLI, an ACP client
// without fs/write_text_file, an editor without workspace/applyEdit, the
// files an editor does not hold): every path resolved beneath the root at
// the moment of use (tools.DiskWorkspace, os.Root), each file replaced
// atomically, and only while it is still the text its change was planned
// on. A batch is written file by file.
type Disk struct{ W *tools.DiskWorkspace }

// NewDisk returns the disk transport of the workspace root.
func NewDisk(root string) (*Disk, error) {
	w, err := tools.NewDiskWorkspace(root)
	if err != nil {
		return nil, err
	}
	return &Disk{W: w}, nil
}

// Read implements Transport.
func (d *Disk) Read(ctx context.Context, rel string) (Text, error) {
	b, err := d.W.ReadFile(ctx, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return Text{}, nil
	}
	if err != nil {
		return Text{}, Moved(err)
	}
	return Text{Data: string(b), Exists: true}, nil
}

// Write implements Transport.
func (d *Disk) Write(ctx context.Context, b Batch) error {
	for _, c := range b.Changes {
		if err := d.write(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func (d *Disk) write(ctx context.Context, c Change) error {
	if c.Delete {
		now, err := d.Read(ctx, c.Rel)
		if err != nil {
			return err
		}
		if now.Exists != c.Cur.Exists || now.Data != c.Cur.Data {
			return ErrStale
		}
		if err := d.W.Delete(ctx, c.Rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Moved(err)
		}
		return nil
	}
	err := d.W.EditMode(ctx, c.Rel, c.Mode, func(old []byte, exists bool) ([]byte, error) {
		if exists != c.Cur.Exists || !bytes.Equal(old, []byte(c.Cur.Data)) {
			return nil, ErrStale
		}
		return []byte(c.Next), nil
	})
	return Moved(err)
}

// Moved turns an error of a path that does not resolve beneath the root
// now (a directory on the way swapped for a symlink out) into ErrMoved,
// which the Applier retries for a moment: a swap undone lands the change
// inside, and the change never goes outside.
func Moved(err error) error {
	if err == nil || errors.Is(err, ErrStale) || errors.Is(err, ErrMoved) {
		return err
	}
	msg := err.Error()
	// os.Root's escape error is unexported; tools says "goes through a
	// symlink" when openat2 refuses one on the way.
	if errors.Is(err, tools.ErrOutside) || strings.Contains(msg, "path escapes from parent") ||
		strings.Contains(msg, "goes through a symlink") || strings.Contains(msg, "symlink out of the workspace") {
		return &movedError{err}
	}
	return err
}

type movedError struct{ err error }

func (e *movedError) Error() string { return e.err.Error() }
func (e *movedError) Is(target error) bool {
	return target == ErrMoved
}
func (e *movedError) Unwrap() error { return e.err }
