package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/edits"
)

// editorFixture is an editor-backed workspace of one task on a fake
// editor that answers applyEdit as apply says.
type editorFixture struct {
	s     *Server
	c     *fakeClient
	w     *editorWorkspace
	root  string
	edits []protocol.ApplyWorkspaceEditParams
}

func newEditorFixture(t *testing.T, files map[string]string, caps clientCaps, review bool) *editorFixture {
	t.Helper()
	f := &editorFixture{root: tempRoot(t, files)}
	f.s, f.c = newUnitServer(t, f.root)
	f.s.ed.caps = caps
	w, err := f.s.ed.newWorkspace(&runningTask{id: "t1", prompt: "p", review: review})
	if err != nil {
		t.Fatal(err)
	}
	f.w = w
	return f
}

// answer makes the fake editor answer applyEdit: applied or not, after
// typing into the open document (a didChange) when it applies.
func (f *editorFixture) answer(t *testing.T, applied bool, reason string, apply bool) {
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	f.c.answer = func(method string, params json.RawMessage) any {
		if method != protocol.MethodWorkspaceApplyEdit {
			return nil
		}
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			t.Errorf("applyEdit params: %v", err)
		}
		f.edits = append(f.edits, p)
		if applied && apply {
			// The editor applies the edit to its buffer and says so.
			for _, dc := range p.Edit.DocumentChanges {
				te, ok := dc.(*protocol.TextDocumentEdit)
				if !ok || te.TextDocument.Version == nil {
					continue
				}
				var changes []protocol.TextDocumentContentChangeEvent
				for _, e := range te.Edits {
					e := e.(*protocol.TextEdit)
					changes = append(changes, &protocol.TextDocumentContentChangePartial{Range: e.Range, Text: e.NewText})
				}
				// One didChange with the edits in reverse: each keeps the
				// positions of those before it valid.
				for i, j := 0, len(changes)-1; i < j; i, j = i+1, j-1 {
					changes[i], changes[j] = changes[j], changes[i]
				}
				if _, err := f.s.docs.change(string(te.TextDocument.URI), *te.TextDocument.Version+1, changes, edits.UTF16); err != nil {
					t.Errorf("the editor's didChange: %v", err)
				}
			}
		}
		r := protocol.ApplyWorkspaceEditResult{Applied: applied}
		if reason != "" {
			r.FailureReason = &reason
		}
		return r
	}
}

func upper(old []byte, _ bool) ([]byte, error) { return []byte(strings.ToUpper(string(old))), nil }

// An open buffer is edited by a versioned applyEdit; the didChange that
// follows is the edit; the disk is the editor's business.
func TestEditorEditOpenBuffer(t *testing.T) {
	f := newEditorFixture(t, map[string]string{"a.txt": "on disk\n"}, clientCaps{applyEdit: true, documentChanges: true}, false)
	u := string(uri.File(filepath.Join(f.root, "a.txt")))
	f.s.docs.open(u, 4, "héllo 😀 world\n")
	f.answer(t, true, "", true)
	if err := f.w.Edit(context.Background(), "a.txt", func(old []byte, exists bool) ([]byte, error) {
		if string(old) != "héllo 😀 world\n" || !exists {
			t.Errorf("the transform saw %q, %v, not the buffer", old, exists)
		}
		return []byte("héllo 😀 WORLD\n"), nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(f.edits) != 1 {
		t.Fatalf("%d applyEdits", len(f.edits))
	}
	te, _ := f.edits[0].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if te == nil || *te.TextDocument.Version != 4 || string(te.TextDocument.URI) != u || !strings.Contains(*f.edits[0].Label, "a.txt (p)") {
		t.Errorf("the edit: %+v", f.edits[0])
	}
	if d, _ := f.s.docs.getURI(u); d.text != "héllo 😀 WORLD\n" || d.version != 5 || d.assumed {
		t.Errorf("the buffer: %+v", d)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "a.txt")); string(b) != "on disk\n" {
		t.Errorf("the disk was written: %q", b)
	}
	if fc, ok := f.w.t.changes.File("a.txt"); !ok || fc.Base != "héllo 😀 world\n" || fc.After != "héllo 😀 WORLD\n" {
		t.Errorf("the change log: %+v", fc)
	}
	if got := f.w.OpenFiles(); len(got) != 1 || got[0] != "a.txt" {
		t.Errorf("OpenFiles = %q", got)
	}
}

// A closed file is edited by URI; until the editor saves it, the agent
// reads back the text it sent.
func TestEditorEditClosedFile(t *testing.T) {
	f := newEditorFixture(t, map[string]string{"a.txt": "abc\n"}, clientCaps{applyEdit: true}, false)
	f.answer(t, true, "", false)
	ctx := context.Background()
	if err := f.w.Edit(ctx, "a.txt", upper); err != nil {
		t.Fatal(err)
	}
	ch := f.edits[0].Edit.Changes[uri.File(filepath.Join(f.root, "a.txt"))]
	if len(ch) != 1 || ch[0].NewText == "" {
		t.Fatalf("the edit: %+v", f.edits[0].Edit)
	}
	if b, err := f.w.ReadFile(ctx, "a.txt"); err != nil || string(b) != "ABC\n" {
		t.Errorf("read back: %q, %v", b, err)
	}
	// An edit that changes nothing sends nothing.
	if err := f.w.Edit(ctx, "a.txt", upper); err != nil || len(f.edits) != 1 {
		t.Errorf("a no-op edit: %v, %d applyEdits", err, len(f.edits))
	}
}

// A refused edit of a file the user did not type in is reported at once
// with the editor's reason, and nothing is logged as changed (an edit
// refused because the user typed is planned again: TestEditReplannedAfterTyping).
func TestEditorRejectsTheEdit(t *testing.T) {
	f := newEditorFixture(t, map[string]string{"a.txt": "abc\n"}, clientCaps{applyEdit: true}, false)
	f.answer(t, false, "the user typed", false)
	err := f.w.Edit(context.Background(), "a.txt", upper)
	if err == nil || !strings.Contains(err.Error(), "the editor rejected the edit to a.txt (the user typed)") || len(f.edits) != 1 {
		t.Fatalf("err %v after %d applyEdits", err, len(f.edits))
	}
	if f.w.t.changes.HasApplied() {
		t.Error("a rejected edit was logged as applied")
	}
}

// New files: created through the editor when it can, else on disk, said
// once.
func TestEditorNewFiles(t *testing.T) {
	f := newEditorFixture(t, nil, clientCaps{applyEdit: true, documentChanges: true, createFiles: true}, false)
	f.answer(t, true, "", false)
	ctx := context.Background()
	if err := f.w.Edit(ctx, "dir/new.txt", func([]byte, bool) ([]byte, error) { return []byte("new\n"), nil }); err != nil {
		t.Fatal(err)
	}
	dc := f.edits[0].Edit.DocumentChanges
	if len(dc) != 2 {
		t.Fatalf("document changes %+v", dc)
	}
	if cf, ok := dc[0].(*protocol.CreateFile); !ok || !strings.HasSuffix(string(cf.URI), "/dir/new.txt") {
		t.Errorf("first change %#v", dc[0])
	}
	if _, err := os.Stat(filepath.Join(f.root, "dir", "new.txt")); err == nil {
		t.Error("agentls wrote the file the editor creates")
	}

	g := newEditorFixture(t, nil, clientCaps{applyEdit: true}, false) // no createFiles
	g.answer(t, true, "", false)
	for _, name := range []string{"one.txt", "two.txt"} {
		if err := g.w.Edit(ctx, name, func([]byte, bool) ([]byte, error) { return []byte(name), nil }); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(g.root, name)); string(b) != name {
			t.Errorf("%s on disk: %q", name, b)
		}
	}
	if len(g.edits) != 0 {
		t.Errorf("%d applyEdits to a client that cannot create files", len(g.edits))
	}
	g.s.ed.showMessage(ctx, protocol.MessageTypeInfo, "marker")
	g.c.waitFor(t, "the marker", func(m sent) bool { return strings.Contains(string(m.params), "marker") })
	said := 0
	for _, m := range g.c.messages() {
		if strings.Contains(m, "writes these files to disk itself") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("said %d times that agentls writes to disk", said)
	}
}

// A review task proposes: nothing reaches the editor or the disk, and
// later reads see the proposal; deleting and moving are refused.
func TestEditorReviewProposes(t *testing.T) {
	f := newEditorFixture(t, map[string]string{"a.txt": "abc\n"}, clientCaps{applyEdit: true, documentChanges: true, deleteFiles: true, renameFiles: true}, true)
	f.answer(t, true, "", false)
	ctx := context.Background()
	if err := f.w.Edit(ctx, "a.txt", upper); err != nil {
		t.Fatal(err)
	}
	if b, _ := f.w.ReadFile(ctx, "a.txt"); string(b) != "ABC\n" {
		t.Errorf("read back %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "a.txt")); string(b) != "abc\n" || len(f.edits) != 0 {
		t.Errorf("disk %q, %d applyEdits", b, len(f.edits))
	}
	if v := f.w.View(ctx); string(v["a.txt"]) != "ABC\n" {
		t.Errorf("the commands' view: %q", v)
	}
	if err := f.w.Delete(ctx, "a.txt"); err == nil || !strings.Contains(err.Error(), "review mode proposes text changes only") {
		t.Errorf("Delete: %v", err)
	}
	if err := f.w.Move(ctx, "a.txt", "b.txt"); err == nil || !strings.Contains(err.Error(), "review mode proposes text changes only") {
		t.Errorf("Move: %v", err)
	}
}

// Delete and Move go through the editor as resource operations when it
// has them, else on disk; a shadow follows the file.
func TestEditorDeleteAndMove(t *testing.T) {
	ctx := context.Background()
	f := newEditorFixture(t, map[string]string{"a.txt": "a", "b.txt": "b"}, clientCaps{applyEdit: true, documentChanges: true, deleteFiles: true, renameFiles: true}, false)
	f.answer(t, true, "", false)
	f.s.docs.setShadow(filepath.Join(f.root, "a.txt"), "sent")
	if err := f.w.Move(ctx, "a.txt", "c.txt"); err != nil {
		t.Fatal(err)
	}
	if rf, ok := f.edits[0].Edit.DocumentChanges[0].(*protocol.RenameFile); !ok || !strings.HasSuffix(string(rf.NewURI), "/c.txt") {
		t.Errorf("move: %#v", f.edits[0].Edit.DocumentChanges[0])
	}
	if s, ok := f.s.docs.shadow(filepath.Join(f.root, "c.txt")); !ok || s != "sent" {
		t.Errorf("the shadow did not follow the move: %q %v", s, ok)
	}
	if err := f.w.Delete(ctx, "b.txt"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.edits[1].Edit.DocumentChanges[0].(*protocol.DeleteFile); !ok {
		t.Errorf("delete: %#v", f.edits[1].Edit.DocumentChanges[0])
	}
	f.answer(t, false, "read-only", false)
	if err := f.w.Delete(ctx, "b.txt"); err == nil || !strings.Contains(err.Error(), "did not delete b.txt (read-only)") {
		t.Errorf("a refused delete: %v", err)
	}

	// An editor with document changes but no delete operation: on disk.
	h := newEditorFixture(t, map[string]string{"b.txt": "b"}, clientCaps{applyEdit: true, documentChanges: true, renameFiles: true}, false)
	h.answer(t, true, "", false)
	if err := h.w.Delete(ctx, "b.txt"); err != nil || len(h.edits) != 0 {
		t.Errorf("delete without deleteFiles: %v, %d applyEdits", err, len(h.edits))
	}

	g := newEditorFixture(t, map[string]string{"a.txt": "a", "b.txt": "b"}, clientCaps{}, false)
	if err := g.w.Move(ctx, "a.txt", "c.txt"); err != nil {
		t.Fatal(err)
	}
	if err := g.w.Delete(ctx, "b.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(g.root, "c.txt")); err != nil {
		t.Errorf("moved on disk: %v", err)
	}
	if _, err := os.Stat(filepath.Join(g.root, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deleted on disk: %v", err)
	}
}

// The agent's paths stay beneath the root: a path out, or through a
// symlink out, is refused before anything is sent or written.
func TestEditorConfinement(t *testing.T) {
	outside := tempRoot(t, map[string]string{"f.txt": "outside\n"})
	for _, caps := range []clientCaps{{applyEdit: true, documentChanges: true, createFiles: true}, {}} {
		f := newEditorFixture(t, nil, caps, false)
		f.answer(t, true, "", false)
		if err := os.Symlink(outside, filepath.Join(f.root, "out")); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for _, rel := range []string{"../x.txt", "out/f.txt", "out/new.txt"} {
			if err := f.w.Edit(ctx, rel, upper); err == nil {
				t.Errorf("caps %+v: an edit of %s was taken", caps, rel)
			}
			if b, err := f.w.ReadFile(ctx, rel); err == nil {
				t.Errorf("caps %+v: read %s: %q", caps, rel, b)
			}
		}
		if len(f.edits) != 0 {
			t.Errorf("caps %+v: %d applyEdits sent for paths outside", caps, len(f.edits))
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside\n" {
			t.Fatalf("the file outside became %q", b)
		}
		if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
			t.Fatal("a file was created outside")
		}
	}
}

// A move the editor makes is checked beneath the root when it goes out,
// as every edit is: from or to through a symlink out is refused, and no
// rename is sent.
func TestEditorMoveConfinement(t *testing.T) {
	outside := tempRoot(t, map[string]string{"f.txt": "outside\n"})
	f := newEditorFixture(t, map[string]string{"a.txt": "a"}, clientCaps{applyEdit: true, documentChanges: true, renameFiles: true}, false)
	f.answer(t, true, "", false)
	if err := os.Symlink(outside, filepath.Join(f.root, "out")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, m := range [][2]string{{"a.txt", "out/moved.txt"}, {"out/f.txt", "b.txt"}} {
		if err := f.w.Move(ctx, m[0], m[1]); err == nil {
			t.Errorf("a move of %s to %s was taken", m[0], m[1])
		}
	}
	if len(f.edits) != 0 {
		t.Errorf("%d renames sent for paths outside", len(f.edits))
	}
}

// A batch over several open buffers that the editor refuses waits one
// grace for a late didChange, not one per file, before it says refused.
func TestRefusedBatchWaitsOneGrace(t *testing.T) {
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "d\n"}
	f := newEditorFixture(t, files, clientCaps{applyEdit: true, documentChanges: true}, false)
	rels := []string{"a.txt", "b.txt", "c.txt", "d.txt"}
	for _, rel := range rels {
		f.s.docs.open(string(uri.File(filepath.Join(f.root, rel))), 1, files[rel])
	}
	f.answer(t, false, "declined", false)
	ap, err := f.s.ed.files()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = ap.Apply(context.Background(), rels, apply.Batch{Label: "l"}, func(cur map[string]apply.Text) ([]apply.Change, error) {
		var cs []apply.Change
		for _, rel := range rels {
			cs = append(cs, apply.Change{Rel: rel, Cur: cur[rel], Next: strings.ToUpper(cur[rel].Data)})
		}
		return cs, nil
	})
	took := time.Since(start)
	if reason, ok := refusedReason(err); !ok || reason != "declined" {
		t.Fatalf("err %v; want refused (declined)", err)
	}
	if took >= 2*confirmGrace {
		t.Errorf("a refused batch of %d open files took %v; want one grace (%v)", len(rels), took, confirmGrace)
	}
}
