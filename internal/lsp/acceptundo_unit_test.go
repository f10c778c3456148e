package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const fourLines = "one\ntwo\nthree\nfour\n"

// proposeShout is a review task proposing TWO and FOUR in f.txt.
func proposeShout(t *testing.T, s *Server) *runningTask {
	return finished(t, s, "shout", true, func(tk *runningTask) {
		if err := tk.changes.Propose("f.txt", fourLines, true, func(b []byte, _ bool) ([]byte, error) {
			return []byte(strings.NewReplacer("two", "TWO", "four", "FOUR").Replace(string(b))), nil
		}); err != nil {
			t.Error(err)
		}
	})
}

func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Accepting one hunk writes it and leaves the other proposed; accepting
// the rest finishes the file; the task's files changed follow.
func TestAcceptOnDisk(t *testing.T) {
	root := tempRoot(t, map[string]string{"f.txt": fourLines})
	s, _ := newUnitServer(t, root) // no applyEdit: agentls writes the disk
	ctx := context.Background()
	tk := proposeShout(t, s)
	u := string(uri.File(filepath.Join(root, "f.txt")))
	hunk, _ := actionsAt(t, s, u, rng(1, 0, 1, 0))[0].args["hunk"].(string)
	res, err := s.reviewer.cmdAccept(ctx, reviewArgs{TaskID: tk.id, URI: u, Hunk: hunk})
	if m, _ := res.(map[string]any); err != nil || m["accepted"] != 1 {
		t.Fatalf("accept a hunk: %+v, %v", res, err)
	}
	if got := readFile(t, root, "f.txt"); got != "one\nTWO\nthree\nfour\n" {
		t.Errorf("after one hunk: %q", got)
	}
	if got := titles(actionsAt(t, s, u, rng(1, 0, 1, 0))); len(got) != 0 {
		t.Errorf("the accepted hunk is still offered: %q", got)
	}
	if _, err := s.reviewer.cmdAccept(ctx, reviewArgs{TaskID: tk.id, URI: u, Hunk: hunk}); err == nil || !strings.Contains(err.Error(), "nothing to accept") && !strings.Contains(err.Error(), "hunk") {
		t.Errorf("accepting it again: %v", err)
	}
	if _, err := s.reviewer.cmdAccept(ctx, reviewArgs{}); err != nil {
		t.Fatalf("accept the rest: %v", err)
	}
	if got := readFile(t, root, "f.txt"); got != "one\nTWO\nthree\nFOUR\n" {
		t.Errorf("after all: %q", got)
	}
	if j := tk.snapshot(root); !slices.Equal(j.FilesChanged, []string{u}) || !j.Undoable || j.Outcome != "" {
		t.Errorf("the task after the accept: files %q, undoable %v, outcome %q", j.FilesChanged, j.Undoable, j.Outcome)
	}
}

// Through the editor: one applyEdit, with change annotations when the
// editor has them; an editor that refuses leaves the proposals; a
// directory swapped for a symlink out since the proposal stops the
// accept before anything is sent.
func TestAcceptThroughTheEditor(t *testing.T) {
	root := tempRoot(t, map[string]string{"f.txt": fourLines})
	s, c := newUnitServer(t, root)
	s.ed.caps = clientCaps{applyEdit: true, documentChanges: true, changeAnnotations: true}
	ctx := context.Background()
	tk := proposeShout(t, s)
	var got []protocol.ApplyWorkspaceEditParams
	applied := false
	c.mu.Lock()
	c.answer = func(method string, params json.RawMessage) any {
		if method != protocol.MethodWorkspaceApplyEdit {
			return nil
		}
		var p protocol.ApplyWorkspaceEditParams
		protocol.Unmarshal(params, &p)
		got = append(got, p)
		return protocol.ApplyWorkspaceEditResult{Applied: applied}
	}
	c.mu.Unlock()

	res, err := s.reviewer.cmdAccept(ctx, reviewArgs{TaskID: tk.id})
	if m, _ := res.(map[string]any); err != nil || m["applied"] != false {
		t.Fatalf("a refused accept: %+v, %v", res, err)
	}
	if len(got) != 1 || got[0].Edit.ChangeAnnotations == nil {
		t.Fatalf("the edit: %+v", got)
	}
	te, _ := got[0].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if te == nil || len(te.Edits) != 2 {
		t.Fatalf("the text edits: %+v", got[0].Edit.DocumentChanges)
	}
	if _, ok := te.Edits[0].(*protocol.AnnotatedTextEdit); !ok {
		t.Errorf("an editor with change annotations gets plain edits: %#v", te.Edits[0])
	}
	if p, _ := s.reviewer.cmdProposal(ctx, proposalArgs{TaskID: tk.id, URI: string(uri.File(filepath.Join(root, "f.txt")))}); p.(proposalResult).Hunks != 2 {
		t.Errorf("a refused accept lost proposals: %+v", p)
	}

	applied = true
	res, err = s.reviewer.cmdAccept(ctx, reviewArgs{TaskID: tk.id})
	if m, _ := res.(map[string]any); err != nil || m["accepted"] != 2 {
		t.Fatalf("accept: %+v, %v", res, err)
	}
	if readFile(t, root, "f.txt") != fourLines {
		t.Error("the editor owns the write; agentls wrote the disk")
	}

	// A second task proposes in sub/, which then becomes a symlink out.
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "g.txt"), []byte("g\n"), 0o644)
	tk2 := finished(t, s, "g", true, func(tk *runningTask) {
		tk.changes.Propose("sub/g.txt", "g\n", true, func([]byte, bool) ([]byte, error) { return []byte("G\n"), nil })
	})
	// The editor holds the file open, so the plan is made on its buffer:
	// only the check at the write can see the swap.
	s.docs.open(string(uri.File(filepath.Join(root, "sub", "g.txt"))), 1, "g\n")
	outside := tempRoot(t, map[string]string{"g.txt": "g\n"})
	os.RemoveAll(filepath.Join(root, "sub"))
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	n := len(got)
	_, err = s.reviewer.cmdAccept(ctx, reviewArgs{TaskID: tk2.id})
	if err == nil || !strings.Contains(err.Error(), "nothing was applied") || len(got) != n {
		t.Errorf("accept through a symlink out: %v, %d edits sent", err, len(got)-n)
	}
	if readFile(t, outside, "g.txt") != "g\n" {
		t.Error("the file outside changed")
	}
}

// Undo reverts what the task applied except where the user edited since,
// which is reported; the reasons it cannot are answers, not errors.
func TestUndoOnDisk(t *testing.T) {
	root := tempRoot(t, map[string]string{"f.txt": "one\nTWO\nthree\nfour\nFIVE\n"})
	s, c := newUnitServer(t, root)
	ctx := context.Background()
	res, _ := s.reviewer.cmdUndo(ctx, taskIDArgs{})
	if r := res.(undoResult); r.Applied || r.Reason != "no task has changes to undo" {
		t.Errorf("nothing to undo: %+v", r)
	}
	tk := finished(t, s, "shout", false, func(tk *runningTask) {
		tk.changes.RecordApplied("f.txt", "one\ntwo\nthree\nfour\nfive\n", true, "one\nTWO\nthree\nfour\nFIVE\n")
		tk.changes.RecordApplied("new.txt", "", false, "new\n")
	})
	os.WriteFile(filepath.Join(root, "new.txt"), []byte("new\n"), 0o644)
	// The user changed line 5 since.
	os.WriteFile(filepath.Join(root, "f.txt"), []byte("one\nTWO\nthree\nfour\nFive!\n"), 0o644)

	res, err := s.reviewer.cmdUndo(ctx, taskIDArgs{TaskID: tk.id})
	r, _ := res.(undoResult)
	if err != nil || !r.Applied || len(r.Conflicts) != 1 || r.Conflicts[0].Line != 5 {
		t.Fatalf("undo: %+v, %v", res, err)
	}
	if got := readFile(t, root, "f.txt"); got != "one\ntwo\nthree\nfour\nFive!\n" {
		t.Errorf("f.txt after the undo: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("the created file stayed: %v", err)
	}
	c.waitFor(t, "the conflict warning", func(m sent) bool {
		return strings.Contains(string(m.params), "undid task "+tk.id+" except where you edited since: f.txt:5")
	})
	res, _ = s.reviewer.cmdUndo(ctx, taskIDArgs{TaskID: tk.id})
	if r := res.(undoResult); r.Applied || !strings.Contains(r.Reason, "changed no files (or was undone already)") {
		t.Errorf("undo twice: %+v", r)
	}
	res, _ = s.reviewer.cmdUndo(ctx, taskIDArgs{TaskID: "t99"})
	if r := res.(undoResult); r.Applied || !strings.Contains(r.Reason, `no task "t99"`) {
		t.Errorf("an unknown task: %+v", r)
	}
}

// An editor that cannot delete files through LSP: the created file is a
// conflict to delete by hand, and the rest is undone through the editor.
func TestUndoThroughAnEditorThatCannotDelete(t *testing.T) {
	root := tempRoot(t, map[string]string{"f.txt": "A\n", "new.txt": "new\n"})
	s, c := newUnitServer(t, root)
	s.ed.caps = clientCaps{applyEdit: true}
	var edit protocol.WorkspaceEdit
	c.mu.Lock()
	c.answer = func(method string, params json.RawMessage) any {
		var p protocol.ApplyWorkspaceEditParams
		protocol.Unmarshal(params, &p)
		edit = p.Edit
		return protocol.ApplyWorkspaceEditResult{Applied: true}
	}
	c.mu.Unlock()
	tk := finished(t, s, "t", false, func(tk *runningTask) {
		tk.changes.RecordApplied("f.txt", "a\n", true, "A\n")
		tk.changes.RecordApplied("new.txt", "", false, "new\n")
	})
	res, err := s.reviewer.cmdUndo(context.Background(), taskIDArgs{TaskID: tk.id})
	r, _ := res.(undoResult)
	if err != nil || !r.Applied || len(r.Conflicts) != 1 || !strings.Contains(r.Conflicts[0].Reason, "delete it by hand") {
		t.Fatalf("undo: %+v, %v", res, err)
	}
	// The client has no documentChanges: a plain edit of f.txt alone.
	if len(edit.DocumentChanges) != 0 || len(edit.Changes) != 1 {
		t.Fatalf("the edit: %+v", edit)
	}
	for u := range edit.Changes {
		if !strings.HasSuffix(string(u), "/f.txt") {
			t.Errorf("the edit: %+v", edit)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err != nil {
		t.Errorf("agentls deleted the file behind the editor: %v", err)
	}
}

// Undo checks the paths when its edit goes out: a directory swapped for a
// symlink out of the workspace since the task stops it, nothing sent.
func TestUndoRefusesASymlinkOut(t *testing.T) {
	root := tempRoot(t, map[string]string{"sub/g.txt": "G\n"})
	s, c := newUnitServer(t, root)
	s.ed.caps = clientCaps{applyEdit: true, documentChanges: true}
	sent := 0
	c.mu.Lock()
	c.answer = func(string, json.RawMessage) any { sent++; return protocol.ApplyWorkspaceEditResult{Applied: true} }
	c.mu.Unlock()
	tk := finished(t, s, "t", false, func(tk *runningTask) { tk.changes.RecordApplied("sub/g.txt", "g\n", true, "G\n") })
	s.docs.open(string(uri.File(filepath.Join(root, "sub", "g.txt"))), 1, "G\n")
	outside := tempRoot(t, map[string]string{"g.txt": "G\n"})
	os.RemoveAll(filepath.Join(root, "sub"))
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	res, err := s.reviewer.cmdUndo(context.Background(), taskIDArgs{TaskID: tk.id})
	if r, _ := res.(undoResult); err != nil || r.Applied || !strings.Contains(r.Reason, "nothing was undone") || sent != 0 {
		t.Errorf("undo through a symlink out: %+v, %v, %d edits sent", res, err, sent)
	}
}
