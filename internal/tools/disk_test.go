package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestDiskWorkspace(t *testing.T) {
	ws := newDisk(t, map[string]string{"a.txt": "one\n"})
	ctx := context.Background()

	// Another program writes the file while the first transform runs: Edit
	// must start over on the new text instead of overwriting it.
	calls := 0
	err := ws.Edit(ctx, "a.txt", func(old []byte, exists bool) ([]byte, error) {
		calls++
		if calls == 1 {
			if err := os.WriteFile(filepath.Join(ws.Root(), "a.txt"), []byte("one\ntyped\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return append(old, "two\n"...), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readDisk(t, ws, "a.txt"); got != "one\ntyped\ntwo\n" || calls != 2 {
		t.Errorf("file = %q after %d transforms; want the concurrent write kept", got, calls)
	}

	// A transform error is returned and nothing is written.
	boom := errors.New("boom")
	if err := ws.Edit(ctx, "a.txt", func([]byte, bool) ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	if got, _ := readDisk(t, ws, "a.txt"); got != "one\ntyped\ntwo\n" {
		t.Errorf("file changed to %q", got)
	}

	// New files: exists=false, parents created.
	err = ws.Edit(ctx, "x/y/new.txt", func(old []byte, exists bool) ([]byte, error) {
		if exists || old != nil {
			t.Errorf("new file: exists=%v old=%q", exists, old)
		}
		return []byte("new\n"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := ws.ReadFile(ctx, "x/y/new.txt"); string(got) != "new\n" {
		t.Errorf("ReadFile = %q", got)
	}

	// Paths that leave the root are refused even without a Policy.
	for _, rel := range []string{"../x", "/etc/passwd"} {
		if _, err := ws.ReadFile(ctx, rel); !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%q) = %v", rel, err)
		}
		if err := ws.Edit(ctx, rel, func([]byte, bool) ([]byte, error) { return nil, nil }); !errors.Is(err, ErrOutside) {
			t.Errorf("Edit(%q) = %v", rel, err)
		}
	}
	if _, err := NewDiskWorkspace(filepath.Join(ws.Root(), "a.txt")); err == nil {
		t.Error("a file accepted as a workspace root")
	}
}
