//go:build unix

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe in the workspace does not hang a task (issue 13, item 3):
// read_file, write_file and edit_file refuse it at once with a message the
// model can act on, and the task ends.
func TestRunWithANamedPipeInTheWorkspace(t *testing.T) {
	e := newEnv(t, map[string]string{".agentls.json": `{"agent": {"toolTimeoutSeconds": 2, "taskTimeoutSeconds": 30}}`})
	if err := syscall.Mkfifo(filepath.Join(e.ws, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	srv := fakeModel(t, `{"turns": [
		{"toolCalls": [{"id": "r", "name": "read_file", "arguments": "{\"path\":\"pipe\"}"}]},
		{"expect": {"lastToolContains": "named pipe"}, "toolCalls": [{"id": "w", "name": "write_file", "arguments": "{\"path\":\"pipe\",\"content\":\"x\"}"}]},
		{"expect": {"lastToolContains": "named pipe"}, "toolCalls": [{"id": "e", "name": "edit_file", "arguments": "{\"path\":\"pipe\",\"old_string\":\"a\",\"new_string\":\"b\"}"}]},
		{"expect": {"lastToolContains": "named pipe"}, "text": "It is a pipe."}
	]}`)
	cmd := e.command("run", "--base-url", srv.URL(), "read the pipe")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the task hung on the named pipe:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "✗ read_file: pipe is a named pipe (FIFO), not a regular file") || srv.Pending() != 0 {
		t.Errorf("pending %d:\n%s", srv.Pending(), stderr.String())
	}
}
