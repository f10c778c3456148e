package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// A task reads an open, unsaved buffer and edits it: the edit arrives
// versioned, the buffer ends exact, and the disk is untouched.
func TestEditOpenUnsavedBuffer(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: "read-edit.json"})
	// The user has unsaved changes: the buffer differs from the disk.
	unsaved := "hello from the buffer\nsecond line\n"
	if err := s.Open(s.ctx, "hello.txt", unsaved); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "say goodbye", "uri": s.URI("hello.txt")})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	got, _ := s.Text("hello.txt")
	if want := "goodbye from the buffer\nsecond line\n"; got != want {
		t.Errorf("buffer = %q, want %q", got, want)
	}
	disk, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt"))
	if string(disk) != "hello world\nsecond line\n" {
		t.Errorf("disk changed: %q", disk)
	}
	// The model saw the buffer, not the disk.
	reqs := s.LLM.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	last := reqs[1].Body.Messages[len(reqs[1].Body.Messages)-1]
	if !strings.Contains(last.Content, "hello from the buffer") {
		t.Errorf("read_file result %q does not show the buffer", last.Content)
	}
	// One versioned edit for the open document.
	es := s.Edits()
	if len(es) != 1 {
		t.Fatalf("%d applyEdit, want 1", len(es))
	}
	dc := es[0].Edit.DocumentChanges
	if len(dc) != 1 {
		t.Fatalf("documentChanges %#v", dc)
	}
	tde, ok := dc[0].(*protocol.TextDocumentEdit)
	if !ok || tde.TextDocument.Version == nil || *tde.TextDocument.Version != 1 {
		t.Fatalf("edit is not versioned for v1: %#v", dc[0])
	}
	if len(r.FilesChanged) != 1 || r.FilesChanged[0] != s.URI("hello.txt") {
		t.Errorf("filesChanged = %v", r.FilesChanged)
	}
	if r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
		t.Errorf("usage not recorded: %+v", r.Usage)
	}
}
