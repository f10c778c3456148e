package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

const twoHunks = `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"}]},
 {"toolCalls":[{"id":"c2","name":"read_file","arguments":"{\"path\":\"f.txt\"}"}]},
 {"expect":{"lastToolContains":"ALPHA"},"toolCalls":[{"id":"c3r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c3","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"omega\",\"new_string\":\"OMEGA\"}"}]},
 {"text":"Proposed two changes."}]}`

const fText = "alpha\nline 2\nline 3\nline 4\nline 5\nline 6\nomega\n"

// proposeTwoHunks opens f.txt and runs twoHunks in review mode, with the
// given capabilities (nil: VS Code's); the task has ended ok.
func proposeTwoHunks(t *testing.T, caps *lspclient.Caps) (*session, lspclient.TaskResult) {
	t.Helper()
	s := start(t, setup{caps: caps, script: twoHunks, files: map[string]string{"f.txt": fText}})
	if err := s.Open(s.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "shout", "review": true})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	return s, r
}

func codeActions(t *testing.T, s *session, u string, r protocol.Range, ds []protocol.Diagnostic) map[string]*protocol.CodeAction {
	t.Helper()
	acts, err := s.Server.CodeAction(s.ctx, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Range: r,
		Context: protocol.CodeActionContext{Diagnostics: ds},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*protocol.CodeAction{}
	for _, a := range acts {
		if ca, ok := a.(*protocol.CodeAction); ok {
			out[ca.Title] = ca
		}
	}
	return out
}

// execute runs a code action's command as an editor does.
func execute(t *testing.T, s *session, ca *protocol.CodeAction) json.RawMessage {
	t.Helper()
	res, err := s.Server.ExecuteCommand(s.ctx, &protocol.ExecuteCommandParams{Command: ca.Command.Command, Arguments: ca.Command.Arguments})
	if err != nil {
		t.Fatalf("%s: %v", ca.Title, err)
	}
	return json.RawMessage(res)
}

// Review mode with Helix's capabilities: proposals are diagnostics with
// the five code actions; accepting one hunk and rejecting the other leaves
// the buffer exactly as expected.
func TestReviewHelix(t *testing.T) {
	caps := lspclient.HelixCaps()
	s, r := proposeTwoHunks(t, &caps)
	if len(s.Edits()) != 0 {
		t.Fatal("review mode applied edits before accept")
	}
	if got, _ := s.Text("f.txt"); got != fText {
		t.Fatalf("buffer changed: %q", got)
	}
	if len(r.FilesChanged) != 0 {
		t.Errorf("filesChanged before accept: %v", r.FilesChanged)
	}
	u := s.URI("f.txt")
	ds, _ := s.diagsFor(u)
	if len(ds) != 2 {
		t.Fatalf("%d review diagnostics, want 2: %+v", len(ds), ds)
	}
	for _, d := range ds {
		if d.Severity != protocol.DiagnosticSeverityInformation || !strings.HasPrefix(diagText(d), "agentls proposes:") {
			t.Errorf("diagnostic %+v", d)
		}
	}
	first := codeActions(t, s, u, ds[0].Range, ds[:1])
	for _, title := range []string{"Accept this change", "Reject this change", "Accept all in file", "Accept task", "Reject task"} {
		if first[title] == nil {
			t.Errorf("missing code action %q (have %v)", title, keys(first))
		}
	}
	execute(t, s, first["Accept this change"])
	ds, _ = s.diagsFor(u)
	if len(ds) != 1 {
		t.Fatalf("after accept: %d diagnostics", len(ds))
	}
	second := codeActions(t, s, u, ds[0].Range, ds)
	execute(t, s, second["Reject this change"])
	if got, _ := s.Text("f.txt"); got != strings.Replace(fText, "alpha", "ALPHA", 1) {
		t.Errorf("buffer = %q", got)
	}
	if ds, _ := s.diagsFor(u); len(ds) != 0 {
		t.Errorf("diagnostics left: %v", ds)
	}
	var st lspclient.TaskResult
	if err := s.Command(s.ctx, "agentls.status", map[string]any{"taskId": r.TaskID}, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.FilesChanged) != 1 || st.FilesChanged[0] != u {
		t.Errorf("filesChanged after accept = %v", st.FilesChanged)
	}
	for _, e := range s.Edits() {
		if len(e.Edit.ChangeAnnotations) != 0 {
			t.Error("annotations sent to a client without changeAnnotationSupport")
		}
	}
}

// With change annotations (VS Code), accepting sends needsConfirmation, and
// the task's diff is shown as a document.
func TestReviewAnnotationsAndDocument(t *testing.T) {
	s := start(t, setup{script: twoHunks, files: map[string]string{"f.txt": fText}, settings: map[string]any{"agent": map[string]any{"review": true}}})
	if err := s.Open(s.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "shout"})
	shown := s.Notes(protocol.MethodWindowShowDocument)
	if len(shown) != 1 || !strings.Contains(string(shown[0].Params), ".diff") {
		t.Fatalf("showDocument %v", shown)
	}
	var res struct{ Applied bool }
	if err := s.Command(s.ctx, "agentls.accept", map[string]any{"taskId": r.TaskID}, &res); err != nil || !res.Applied {
		t.Fatalf("accept: %v %+v", err, res)
	}
	es := s.Edits()
	if len(es) != 1 {
		t.Fatalf("%d edits", len(es))
	}
	ann, ok := es[0].Edit.ChangeAnnotations["agentls.review"]
	if !ok || ann.NeedsConfirmation == nil || !*ann.NeedsConfirmation {
		t.Errorf("annotations %+v", es[0].Edit.ChangeAnnotations)
	}
	if got, _ := s.Text("f.txt"); got != strings.NewReplacer("alpha", "ALPHA", "omega", "OMEGA").Replace(fText) {
		t.Errorf("buffer = %q", got)
	}
}

// Undo after the user edited one of the changed regions: that region is
// kept and reported, the rest reverted exactly; a created file is removed.
func TestUndoWithConflict(t *testing.T) {
	s := start(t, setup{files: map[string]string{"f.txt": fText}, script: `{"turns":[
 {"toolCalls":[
   {"id":"c1r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"},
   {"id":"c2r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c2","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"omega\",\"new_string\":\"OMEGA\"}"}]},
 {"text":"done"}]}`})
	if err := s.Open(s.ctx, "f.txt"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "shout"})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	cur, _ := s.Text("f.txt")
	// The user edits the last line the task changed.
	i := strings.Index(cur, "OMEGA")
	if err := s.Type(s.ctx, "f.txt", i, i+len("OMEGA"), "OMEGA!!"); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Applied   bool
		Conflicts []struct {
			URI  string
			Line int
		}
	}
	if err := s.Command(s.ctx, "agentls.undo", map[string]any{"taskId": r.TaskID}, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Applied || len(res.Conflicts) != 1 || res.Conflicts[0].Line != 7 {
		t.Fatalf("undo result %+v", res)
	}
	if got, _ := s.Text("f.txt"); got != strings.Replace(fText, "omega", "OMEGA!!", 1) {
		t.Errorf("after undo: %q", got)
	}
}

func diagText(d protocol.Diagnostic) string {
	m, _ := d.Message.(protocol.String)
	return string(m)
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// Accepting right on the end event (as an editor reacting to it does) is
// not refused as "still running".
func TestAcceptRightAfterEnd(t *testing.T) {
	for i := 0; i < 5; i++ {
		s := start(t, setup{script: twoHunks, files: map[string]string{"f.txt": fText}})
		id, err := s.Run(s.ctx, map[string]any{"task": "shout", "review": true})
		if err != nil {
			t.Fatal(err)
		}
		if !s.WaitFor(10*time.Second, func() bool {
			evs := s.Events(id)
			return len(evs) > 0 && evs[len(evs)-1]["kind"] == "end"
		}) {
			t.Fatal("no end event")
		}
		var res struct{ Applied bool }
		if err := s.Command(s.ctx, "agentls.accept", map[string]any{"taskId": id}, &res); err != nil || !res.Applied {
			t.Fatalf("accept on end: %v %+v", err, res)
		}
	}
}

// What the user typed between two accepts of one task survives undoing it:
// undo takes out the task's changes only. Before, the base of the undo was
// the text at the first accept, so the line typed in between was undone too.
func TestUndoKeepsWhatWasTypedBetweenAccepts(t *testing.T) {
	s, r := proposeTwoHunks(t, nil)
	u := s.URI("f.txt")
	ds, _ := s.diagsFor(u)
	if len(ds) != 2 {
		t.Fatalf("%d review diagnostics, want 2", len(ds))
	}
	execute(t, s, codeActions(t, s, u, ds[0].Range, ds[:1])["Accept this change"])
	// The user types a line in the middle, between the two proposals.
	cur, _ := s.Text("f.txt")
	i := strings.Index(cur, "line 4\n")
	if err := s.Type(s.ctx, "f.txt", i, i, "typed by the user\n"); err != nil {
		t.Fatal(err)
	}
	if !s.WaitFor(5*time.Second, func() bool {
		ds, _ = s.diagsFor(u)
		return len(ds) == 1 && ds[0].Range.Start.Line == 7
	}) {
		t.Fatalf("the second proposal did not follow the text: %+v", ds)
	}
	ca := codeActions(t, s, u, ds[0].Range, ds)["Accept this change"]
	if ca == nil {
		t.Fatal("no Accept this change on the second proposal")
	}
	execute(t, s, ca)
	want := strings.NewReplacer("alpha", "ALPHA", "omega", "OMEGA", "line 4\n", "typed by the user\nline 4\n").Replace(fText)
	if got, _ := s.Text("f.txt"); got != want {
		t.Fatalf("after both accepts: %q, want %q", got, want)
	}
	var res struct{ Applied bool }
	if err := s.Command(s.ctx, "agentls.undo", map[string]any{"taskId": r.TaskID}, &res); err != nil || !res.Applied {
		t.Fatalf("undo: %v %+v", err, res)
	}
	if got, want := s.Text("f.txt"); got != strings.Replace(fText, "line 4\n", "typed by the user\nline 4\n", 1) || !want {
		t.Errorf("after undo: %q; the typed line must stay and only the task's changes go", got)
	}
}
