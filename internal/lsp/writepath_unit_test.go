package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/verify/gate"
)

// replaceOnce is the edit_file tool's plan: old must be found exactly once.
func replaceOnce(old, new string) func([]byte, bool) ([]byte, error) {
	return func(b []byte, _ bool) ([]byte, error) {
		if n := strings.Count(string(b), old); n != 1 {
			return nil, fmt.Errorf("%q found %d times", old, n)
		}
		return []byte(strings.Replace(string(b), old, new, 1)), nil
	}
}

// diskEditor answers applyEdit as an editor that does not show the file
// does: it applies the edit to the file on disk (after delay) and says so.
func diskEditor(t *testing.T, c *fakeClient, delay time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answer = func(method string, params json.RawMessage) any {
		if method != protocol.MethodWorkspaceApplyEdit {
			return nil
		}
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			t.Errorf("applyEdit params: %v", err)
		}
		time.Sleep(delay)
		byURI := map[uri.URI][]protocol.TextEdit{}
		for u, tes := range p.Edit.Changes {
			byURI[u] = tes
		}
		for _, dc := range p.Edit.DocumentChanges {
			if te, ok := dc.(*protocol.TextDocumentEdit); ok {
				for _, el := range te.Edits {
					byURI[te.TextDocument.URI] = append(byURI[te.TextDocument.URI], *el.(*protocol.TextEdit))
				}
			}
		}
		for u, tes := range byURI {
			b, err := os.ReadFile(u.FsPath())
			if err != nil {
				r := err.Error()
				return protocol.ApplyWorkspaceEditResult{FailureReason: &r}
			}
			next, err := edits.ApplyTextEdits(string(b), tes, edits.UTF16)
			if err != nil {
				r := err.Error()
				return protocol.ApplyWorkspaceEditResult{FailureReason: &r}
			}
			if err := os.WriteFile(u.FsPath(), []byte(next), 0o644); err != nil {
				t.Error(err)
			}
		}
		return protocol.ApplyWorkspaceEditResult{Applied: true}
	}
}

// Issue 31: two tasks edit different lines of a file the editor does not
// hold, at once, one adding a line above the other's. Both edits land,
// each on its own line, every run, with an editor that answers at once
// and with one that takes 50 ms. On main the second edit was planned on
// the text before the first task's line and landed on the wrong line.
func TestTwoTasksEditAClosedFile(t *testing.T) {
	lines := ""
	for i := 1; i <= 10; i++ {
		lines += fmt.Sprintf("line %d\n", i)
	}
	want := strings.Replace(strings.Replace(lines, "line 3\n", "line 3\nadded by A\n", 1), "line 8\n", "LINE 8\n", 1)
	for _, delay := range []time.Duration{0, 50 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			lost := 0
			for run := range 20 {
				root := tempRoot(t, map[string]string{"f.txt": lines})
				s, c := newUnitServer(t, root)
				s.ed.caps = clientCaps{applyEdit: true, documentChanges: true}
				diskEditor(t, c, delay)
				a, _ := s.ed.newWorkspace(&runningTask{id: "a", prompt: "A"})
				b, _ := s.ed.newWorkspace(&runningTask{id: "b", prompt: "B"})
				var wg sync.WaitGroup
				errs := make([]error, 2)
				start := make(chan struct{})
				for i, e := range []struct {
					w        *editorWorkspace
					old, new string
				}{{a, "line 3\n", "line 3\nadded by A\n"}, {b, "line 8\n", "LINE 8\n"}} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[i] = e.w.Edit(context.Background(), "f.txt", replaceOnce(e.old, e.new))
					}()
				}
				close(start)
				wg.Wait()
				got, _ := os.ReadFile(filepath.Join(root, "f.txt"))
				view, _ := a.ReadFile(context.Background(), "f.txt")
				if errs[0] != nil || errs[1] != nil || string(got) != want || string(view) != want {
					lost++
					t.Errorf("run %d: errors %v; the file:\n%s\nagentls's view:\n%s", run, errs, got, view)
				}
			}
			t.Logf("%d of 20 runs lost or misplaced an edit", lost)
		})
	}
}

// droppingEditor answers applyEdit for an open document as Neovim 0.10
// does while the user types: the user's keystroke reaches the buffer
// (and the server) first, the edit for the older version is dropped, and
// the answer is applied anyway. drops says how many edits it drops; the
// others it applies.
func droppingEditor(t *testing.T, f *editorFixture, drops int) {
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
		te := p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
		u := string(te.TextDocument.URI)
		d, _ := f.s.docs.getURI(u)
		if drops > 0 {
			drops--
			// The user types a new first line; the edit is for the
			// version before it: "Buffer … newer than edits", skipped.
			typed := &protocol.TextDocumentContentChangePartial{Text: "// typed\n"}
			if _, err := f.s.docs.change(u, d.version+1, []protocol.TextDocumentContentChangeEvent{typed}, edits.UTF16); err != nil {
				t.Error(err)
			}
			return protocol.ApplyWorkspaceEditResult{Applied: true}
		}
		if *te.TextDocument.Version != d.version {
			r := "version mismatch"
			return protocol.ApplyWorkspaceEditResult{FailureReason: &r}
		}
		var tes []protocol.TextEdit
		for _, el := range te.Edits {
			tes = append(tes, *el.(*protocol.TextEdit))
		}
		next, err := edits.ApplyTextEdits(d.text, tes, edits.UTF16)
		if err != nil {
			t.Error(err)
		}
		if _, err := f.s.docs.change(u, d.version+1, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: next}}, edits.UTF16); err != nil {
			t.Error(err)
		}
		return protocol.ApplyWorkspaceEditResult{Applied: true}
	}
}

// Issue 31: an editor that answers applied:true while dropping the edit
// is caught from its own didChange: the edit is planned again on the
// text the user typed into and lands; an editor that keeps dropping it
// fails the tool call, saying the edit was lost. On main both "succeed"
// with the line missing from the buffer.
func TestAppliedButDroppedIsDetected(t *testing.T) {
	const text = "func handler() {\n\treturn nil\n}\n"
	for _, c := range []struct {
		name  string
		drops int
		lands bool
	}{{"dropped once", 1, true}, {"dropped every time", 100, false}} {
		t.Run(c.name, func(t *testing.T) {
			f := newEditorFixture(t, map[string]string{"handler.go": text}, clientCaps{applyEdit: true, documentChanges: true}, false)
			u := string(uri.File(filepath.Join(f.root, "handler.go")))
			f.s.docs.open(u, 1, text)
			droppingEditor(t, f, c.drops)
			err := f.w.Edit(context.Background(), "handler.go", replaceOnce("\treturn nil\n", "\tlog.Print(\"handled\")\n\treturn nil\n"))
			d, _ := f.s.docs.getURI(u)
			has := strings.Contains(d.text, "log.Print") && strings.HasPrefix(d.text, "// typed\n")
			switch {
			case c.lands && (err != nil || !has):
				t.Errorf("err %v; the buffer %q", err, d.text)
			case !c.lands && (err == nil || !strings.Contains(err.Error(), "does not have") || has):
				t.Errorf("a dropped edit was reported as %v; the buffer %q", err, d.text)
			case !c.lands && f.w.t.changes.HasApplied():
				t.Error("a lost edit was logged as applied")
			}
		})
	}
}

// Issue 31 (Emacs): after an undo (as after a rewind), agentls's view of
// a file the editor does not hold is the text the undo left, not the
// task's. On main the view kept the task's text, and the next task's
// edit was planned on it.
func TestUndoUpdatesTheViewOfAClosedFile(t *testing.T) {
	const before = "package v\n\nfunc Validate() error {\n\treturn nil\n}\n"
	root := tempRoot(t, map[string]string{"validate.go": before})
	s, c := newUnitServer(t, root)
	s.ed.caps = clientCaps{applyEdit: true, documentChanges: true}
	diskEditor(t, c, 0)
	tk := finished(t, s, "t", false, func(tk *runningTask) {
		w, _ := s.ed.newWorkspace(tk)
		if err := w.Edit(context.Background(), "validate.go", replaceOnce("\treturn nil\n", "\tif false {\n\t\treturn nil\n\t}\n\treturn nil\n")); err != nil {
			t.Error(err)
		}
	})
	res, err := s.reviewer.cmdUndo(context.Background(), taskIDArgs{TaskID: tk.id})
	if r, _ := res.(undoResult); err != nil || !r.Applied {
		t.Fatalf("undo: %+v, %v", res, err)
	}
	w, _ := s.ed.newWorkspace(&runningTask{id: "next", prompt: "next"})
	view, _ := w.ReadFile(context.Background(), "validate.go")
	disk, _ := os.ReadFile(filepath.Join(root, "validate.go"))
	if string(view) != before || string(disk) != before {
		t.Errorf("after undo, agentls's view %q, the disk %q; want %q", view, disk, before)
	}
}

// Issue 31 (VS Code, autoSave off): a file an earlier task wrote and the
// editor does not hold (a dirty tab, the disk unchanged) is in what the
// next task's checks see. On main they saw the disk.
func TestChecksSeeAnEarlierTasksUnsavedFile(t *testing.T) {
	root := tempRoot(t, map[string]string{"signup.go": "package signup\n"})
	s, _ := newUnitServer(t, root)
	s.docs.setShadow(filepath.Join(root, "signup.go"), "package signup\n\nfunc validateSignup() {}\n")
	g := &gate.Gate{}
	s.runner.wireGate(context.Background(), g, root, &runningTask{id: "second"}, nil)
	unsaved := g.Unsaved([]string{"main.go"})
	if !strings.Contains(string(unsaved["signup.go"]), "validateSignup") {
		t.Errorf("the checks see %v, not the earlier task's signup.go", keys(unsaved))
	}
}

// The same once the editor opened that file without the user seeing it
// (VS Code loads a hidden document for an edit, and its git extension
// opens files): the opened text is agentls's own, unsaved, and the checks
// still see it, then the buffer's text as the user edits it. Before, the
// open forgot what agentls had sent, and the checks read the disk.
func TestChecksSeeAnEarlierTasksFileTheEditorOpened(t *testing.T) {
	root := tempRoot(t, map[string]string{"signup.go": "package signup\n"})
	s, _ := newUnitServer(t, root)
	abs := filepath.Join(root, "signup.go")
	sent := "package signup\n\nfunc validateSignup() {}\n"
	s.docs.setShadow(abs, sent)
	u := string(uri.File(abs))
	s.docs.open(u, 1, sent)
	g := &gate.Gate{}
	s.runner.wireGate(context.Background(), g, root, &runningTask{id: "second"}, nil)
	if unsaved := g.Unsaved([]string{"main.go"}); string(unsaved["signup.go"]) != sent {
		t.Errorf("the checks see %q for signup.go, not the earlier task's text the editor opened", unsaved["signup.go"])
	}
	typed := sent + "// the user's line\n"
	if _, err := s.docs.change(u, 2, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: typed}}, edits.UTF16); err != nil {
		t.Fatal(err)
	}
	if unsaved := g.Unsaved([]string{"main.go"}); string(unsaved["signup.go"]) != typed {
		t.Errorf("the checks see %q for signup.go, not the buffer as the user edited it", unsaved["signup.go"])
	}
	// A file the editor opens with text of its own (the disk's) was not
	// agentls's to show: its shadow goes.
	other := filepath.Join(root, "other.go")
	s.docs.setShadow(other, "package signup // agentls\n")
	s.docs.open(string(uri.File(other)), 1, "package signup\n")
	if _, ok := s.docs.shadow(other); ok {
		t.Error("a file opened with other text keeps agentls's old text")
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// An edit refused because the user typed meanwhile (the editor refuses an
// edit for an older version) is planned again on the newer text.
func TestEditReplannedAfterTyping(t *testing.T) {
	f := newEditorFixture(t, map[string]string{"a.txt": "x\n"}, clientCaps{applyEdit: true, documentChanges: true}, false)
	u := string(uri.File(filepath.Join(f.root, "a.txt")))
	f.s.docs.open(u, 1, "a\nb\nc\n")
	typed := false
	f.c.mu.Lock()
	f.c.answer = func(method string, params json.RawMessage) any {
		var p protocol.ApplyWorkspaceEditParams
		protocol.Unmarshal(params, &p)
		f.edits = append(f.edits, p)
		te := p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
		d, _ := f.s.docs.getURI(u)
		if !typed {
			typed = true
			f.s.docs.change(u, d.version+1, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Text: "top\n"}}, edits.UTF16)
			r := "the document changed"
			return protocol.ApplyWorkspaceEditResult{FailureReason: &r}
		}
		var tes []protocol.TextEdit
		for _, el := range te.Edits {
			tes = append(tes, *el.(*protocol.TextEdit))
		}
		next, _ := edits.ApplyTextEdits(d.text, tes, edits.UTF16)
		f.s.docs.change(u, d.version+1, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: next}}, edits.UTF16)
		return protocol.ApplyWorkspaceEditResult{Applied: true}
	}
	f.c.mu.Unlock()
	if err := f.w.Edit(context.Background(), "a.txt", replaceOnce("c\n", "C\n")); err != nil {
		t.Fatal(err)
	}
	if d, _ := f.s.docs.getURI(u); d.text != "top\na\nb\nC\n" || len(f.edits) != 2 {
		t.Errorf("the buffer %q after %d applyEdits", d.text, len(f.edits))
	}
}

// A worktree task's merge over a line the user changed: the conflict is
// listed with both sides and the file keeps the user's line; asked for
// markers, the whole merge is written with the conflict between them.
func TestWorktreeMergeConflictSidesAndMarkers(t *testing.T) {
	const base = "func Add(a, b int) int {\n\treturn a + b\n}\n\n// end\n"
	const mine = "func Add(a, b int) int {\n\treturn a + b // A\n}\n\n// end\n"
	const task = "func Add(a, b int) int {\n\treturn b + a\n}\n\n// END\n"
	for _, markers := range []bool{false, true} {
		root := tempRoot(t, map[string]string{"calc.go": mine})
		s, c := newUnitServer(t, root)
		s.ed.caps = clientCaps{applyEdit: true, documentChanges: true}
		diskEditor(t, c, 0)
		tk := finished(t, s, "B", false, func(tk *runningTask) { tk.changes.ProposeWhole("calc.go", base, true, task) })
		var conflicts []mergeConflict
		if _, err := s.reviewer.acceptHunks(context.Background(), tk, "", "", &conflicts, markers); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(root, "calc.go"))
		if len(conflicts) == 0 || conflicts[0].Yours != "\treturn a + b // A\n" || conflicts[0].Task != "\treturn b + a\n" {
			t.Errorf("markers %v: conflicts %+v", markers, conflicts)
		}
		want := strings.Replace(mine, "// end", "// END", 1)
		if markers {
			want = "func Add(a, b int) int {\n<<<<<<< yours\n\treturn a + b // A\n=======\n\treturn b + a\n>>>>>>> task " + tk.id + "\n}\n\n// END\n"
		}
		if string(got) != want {
			t.Errorf("markers %v: calc.go = %q, want %q", markers, got, want)
		}
	}
}
