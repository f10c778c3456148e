//go:build unix

package tools

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe in the workspace is refused with a clear message by every
// file tool, and never blocks the open (issue 13, item 3). Without a
// writer, an open(2) of a FIFO for reading blocks for good.
func TestToolsRefuseNamedPipes(t *testing.T) {
	ws := newDisk(t, map[string]string{"a.txt": "hello\n"})
	if err := syscall.Mkfifo(filepath.Join(ws.Root(), "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	opts := Options{Policy: Policy{Root: ws.Root()}}
	cases := []struct {
		tool string
		args string
	}{
		{"read_file", `{"path":"pipe"}`},
		{"write_file", `{"path":"pipe","content":"x"}`},
		{"edit_file", `{"path":"pipe","old_string":"a","new_string":"b"}`},
		{"grep", `{"pattern":"x","path":"pipe"}`},
		{"list_files", `{"path":"pipe"}`},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			tl := toolNamed(t, ws, opts, c.tool)
			err := returnsSoon(t, func() error { _, err := call(t, tl, c.args); return err })
			if err == nil || !strings.Contains(err.Error(), "pipe is a named pipe (FIFO), not a regular file") {
				t.Errorf("err = %v", err)
			}
		})
	}
	// The directory listing and search skip it.
	res, err := call(t, toolNamed(t, ws, opts, "list_files"), `{}`)
	if err != nil || strings.Contains(res.Output, "pipe") || !strings.Contains(res.Output, "a.txt") {
		t.Errorf("list_files: %v %q", err, res.Output)
	}
	// The workspace itself never blocks on one either (a FIFO that
	// replaced a file after the tool's check).
	for name, f := range map[string]func() error{
		"ReadFile": func() error { _, err := ws.ReadFile(context.Background(), "pipe"); return err },
		"Edit": func() error {
			return ws.Edit(context.Background(), "pipe", func(old []byte, _ bool) ([]byte, error) { return old, nil })
		},
	} {
		if err := returnsSoon(t, f); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: err = %v, want ErrNotRegular", name, err)
		}
	}
}

// returnsSoon runs f and fails the test if it has not returned after a bound
// far above any honest run: the old code blocked forever here.
func returnsSoon(t *testing.T, f func() error) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on the named pipe")
		return nil
	}
}
