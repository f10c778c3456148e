package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/verify"
)

func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

// action is a code action as a test reads it: its title and its command's
// one argument.
type action struct {
	title, command string
	kind           protocol.CodeActionKind
	args           map[string]any
}

func actionsAt(t *testing.T, s *Server, u string, r protocol.Range) []action {
	t.Helper()
	res, err := s.codeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Range: r})
	if err != nil {
		t.Fatal(err)
	}
	var out []action
	for _, a := range res {
		ca, ok := a.(*protocol.CodeAction)
		if !ok {
			t.Fatalf("not a code action: %#v", a)
		}
		x := action{title: ca.Title, command: ca.Command.Command}
		if ca.Kind != nil {
			x.kind = *ca.Kind
		}
		if len(ca.Command.Arguments) == 1 {
			if err := json.Unmarshal(ca.Command.Arguments[0], &x.args); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, x)
	}
	return out
}

func titles(as []action) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.title)
	}
	return out
}

// "Fix with agentls" is offered anywhere on a failing check's lines, as
// other servers' quick fixes are, and not elsewhere; "Fix all" counts the
// problems of every file.
func TestFixWithAgentlsAnywhereOnTheLine(t *testing.T) {
	root := tempRoot(t, map[string]string{"a.go": "package a\n\nfunc f() { return x }\n", "b.go": "package a\n"})
	s, _ := newUnitServer(t, root)
	ua := string(uri.File(filepath.Join(root, "a.go")))
	ub := string(uri.File(filepath.Join(root, "b.go")))
	long := strings.Repeat("é", 80)
	s.diags.verify = map[string][]protocol.Diagnostic{
		ua: {{Range: rng(2, 18, 2, 19), Message: protocol.String("undefined: x")}},
		ub: {{Range: rng(0, 0, 0, 9), Message: protocol.String(long)}, {Range: rng(5, 0, 5, 1), Message: protocol.String("other")}},
	}
	for _, c := range []struct {
		name string
		at   protocol.Range
		want []string
	}{
		{"left of the columns", rng(2, 0, 2, 0), []string{"Fix with agentls: undefined: x", "Fix all agentls problems (3)"}},
		{"right of them", rng(2, 40, 2, 40), []string{"Fix with agentls: undefined: x", "Fix all agentls problems (3)"}},
		{"a selection over the lines", rng(0, 0, 4, 0), []string{"Fix with agentls: undefined: x", "Fix all agentls problems (3)"}},
		{"another line of the file", rng(1, 0, 1, 0), []string{"Fix all agentls problems (3)"}},
	} {
		if got := titles(actionsAt(t, s, ua, c.at)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	fix := actionsAt(t, s, ua, rng(2, 0, 2, 0))[0]
	if fix.command != "agentls.run" || fix.kind != protocol.CodeActionKindQuickFix || fix.args["uri"] != ua ||
		fix.args["task"] != "Fix this problem reported by the project's checks at a.go line 3: undefined: x" {
		t.Errorf("the fix: %+v", fix)
	}
	all := actionsAt(t, s, ua, rng(2, 0, 2, 0))[1]
	task, _ := all.args["task"].(string)
	for _, want := range []string{"- a.go:3: undefined: x\n", "- b.go:1: " + long + "\n", "- b.go:6: other\n"} {
		if !strings.Contains(task, want) {
			t.Errorf("the fix-all task does not list %q:\n%s", want, task)
		}
	}
	// A long message is cut in the title at a character boundary.
	got := actionsAt(t, s, ub, rng(0, 0, 0, 0))
	if len(got) != 2 || !utf8.ValidString(got[0].title) || len(got[0].title) > len("Fix with agentls: ")+60+len("…") {
		t.Errorf("long title: %q", titles(got))
	}
	if got := actionsAt(t, s, string(uri.File(filepath.Join(root, "none.go"))), rng(0, 0, 0, 0)); len(got) != 0 {
		t.Errorf("a file without problems: %q", titles(got))
	}
}

func TestToProtocolColumns(t *testing.T) {
	root := tempRoot(t, map[string]string{"a.go": "x := \"日本\" + y\n\tz()\n"})
	s, _ := newUnitServer(t, root)
	p := filepath.Join(root, "a.go")
	got := s.diags.toProtocol([]verify.Diagnostic{
		{Path: p, Line: 1, Col: 17, Message: "undefined: y", Source: "go vet"},    // byte 17 (1-based) is y: UTF-16 column 12, after two 3-byte characters
		{Path: p, Line: 2, Message: "z", Code: "E1", Source: "lint", Severity: 2}, // no column: the first non-blank
		{Path: p, Line: 1, Col: 1, EndLine: 1, EndCol: 3, Message: "range"},
	})
	ds := got[string(uri.File(p))]
	if len(ds) != 3 {
		t.Fatalf("%+v", got)
	}
	if ds[0].Range != rng(0, 12, 0, 13) || ds[0].Severity != protocol.DiagnosticSeverityError || ds[0].Code != protocol.String("go vet") {
		t.Errorf("a column after CJK: %+v", ds[0])
	}
	if ds[1].Range != rng(1, 1, 1, 4) || ds[1].Severity != 2 || ds[1].Code != protocol.String("lint E1") {
		t.Errorf("no column: %+v", ds[1])
	}
	if ds[2].Range != rng(0, 0, 0, 2) {
		t.Errorf("an end column: %+v", ds[2])
	}
	// An open buffer is what the user sees: its text places the columns.
	u := string(uri.File(p))
	s.docs.open(u, 1, "😀y\n")
	if ds := s.diags.toProtocol([]verify.Diagnostic{{Path: p, Line: 1, Col: 5, Message: "y"}})[u]; len(ds) != 1 || ds[0].Range != rng(0, 2, 0, 3) {
		t.Errorf("in the buffer: %+v", ds)
	}
}

// A review task's proposals are offered as accept/reject quick fixes
// anywhere on their lines, where the change is in the text now, and the
// file and task actions once per task.
func TestReviewCodeActions(t *testing.T) {
	root := tempRoot(t, map[string]string{"f.txt": "one\ntwo is here\nthree\nfour\n"})
	s, _ := newUnitServer(t, root)
	u := string(uri.File(filepath.Join(root, "f.txt")))
	tk := finished(t, s, "shout", true, func(tk *runningTask) {
		err := tk.changes.Propose("f.txt", "one\ntwo is here\nthree\nfour\n", true, func(b []byte, _ bool) ([]byte, error) {
			return []byte(strings.NewReplacer("two", "TWO", "four", "FOUR").Replace(string(b))), nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	want := []string{"Accept this change", "Reject this change", "Accept all in file", "Accept task", "Reject task"}
	at1 := actionsAt(t, s, u, rng(1, 10, 1, 10)) // right of the change, on its line
	if !slices.Equal(titles(at1), want) {
		t.Fatalf("on the proposal's line: %q", titles(at1))
	}
	hunk, _ := at1[0].args["hunk"].(string)
	if at1[0].command != "agentls.accept" || at1[0].args["taskId"] != tk.id || hunk == "" || at1[1].args["hunk"] != hunk || at1[1].command != "agentls.reject" {
		t.Errorf("the hunk actions: %+v", at1[:2])
	}
	if at1[2].args["uri"] != u || at1[3].args["uri"] != nil || at1[2].kind != codeActionKindReview {
		t.Errorf("the file and task actions: %+v", at1[2:])
	}
	if got := actionsAt(t, s, u, rng(0, 0, 0, 3)); len(got) != 0 {
		t.Errorf("on an unchanged line: %q", titles(got))
	}
	// Both hunks under one selection: one action each, the task's once.
	if got := titles(actionsAt(t, s, u, rng(0, 0, 3, 0))); len(got) != 7 {
		t.Errorf("a selection over both: %q", got)
	}
	// The user typed two lines above: the proposal is found where it is now.
	s.docs.open(u, 1, "zero\nzero\none\ntwo is here\nthree\nfour\n")
	if got := actionsAt(t, s, u, rng(1, 0, 1, 0)); len(got) != 0 {
		t.Errorf("the old place still offers %q", titles(got))
	}
	if got := actionsAt(t, s, u, rng(3, 9, 3, 9)); !slices.Equal(titles(got), want) || got[0].args["hunk"] != hunk {
		t.Errorf("the moved proposal: %q", titles(got))
	}
}

// The review commands: the proposal as a whole text, rejecting a hunk,
// and the errors that say why nothing was done.
func TestReviewCommands(t *testing.T) {
	root := tempRoot(t, map[string]string{"f.txt": "one\ntwo\nthree\nfour\n"})
	s, c := newUnitServer(t, root)
	ctx := context.Background()
	u := string(uri.File(filepath.Join(root, "f.txt")))
	if _, _, err := s.reviewer.reviewTask("agentls.accept", reviewArgs{}); err == nil || !strings.Contains(err.Error(), "no task has changes waiting for review") {
		t.Errorf("no review task: %v", err)
	}
	if res, _ := s.reviewer.cmdDiff(ctx, taskIDArgs{}); res.(diffResult).Reason != "no task has applied changes" {
		t.Errorf("diff of nothing: %+v", res)
	}
	applied := finished(t, s, "direct", false, func(tk *runningTask) {
		tk.changes.RecordApplied("f.txt", "one\ntwo\nthree\nfour\n", true, "one\n2\nthree\nfour\n")
	})
	tk := finished(t, s, "shout", true, func(tk *runningTask) {
		tk.changes.Propose("f.txt", "one\ntwo\nthree\nfour\n", true, func(b []byte, _ bool) ([]byte, error) {
			return []byte(strings.NewReplacer("two", "TWO", "four", "FOUR").Replace(string(b))), nil
		})
	})
	if _, _, err := s.reviewer.reviewTask("agentls.accept", reviewArgs{TaskID: applied.id}); err == nil || !strings.Contains(err.Error(), "did not run in review mode") {
		t.Errorf("a direct task: %v", err)
	}
	if _, _, err := s.reviewer.reviewTask("agentls.accept", reviewArgs{TaskID: "t99"}); err == nil || !strings.Contains(err.Error(), `no task "t99"`) {
		t.Errorf("an unknown task: %v", err)
	}
	if got, _, err := s.reviewer.reviewTask("agentls.accept", reviewArgs{}); err != nil || got != tk {
		t.Errorf("the newest review task: %v, %v", got, err)
	}

	res, err := s.reviewer.cmdProposal(ctx, proposalArgs{TaskID: tk.id})
	if l, _ := res.(proposalList); err != nil || !slices.Equal(l.URIs, []string{u}) {
		t.Errorf("proposal list: %+v, %v", res, err)
	}
	res, err = s.reviewer.cmdProposal(ctx, proposalArgs{TaskID: tk.id, URI: u})
	if p, _ := res.(proposalResult); err != nil || p.Proposed != "one\nTWO\nthree\nFOUR\n" || p.Hunks != 2 || p.Conflict != 0 {
		t.Errorf("proposal: %+v, %v", res, err)
	}
	if _, err := s.reviewer.cmdProposal(ctx, proposalArgs{TaskID: applied.id, URI: u}); err == nil {
		t.Error("a proposal of a direct task")
	}
	if _, err := s.reviewer.cmdProposal(ctx, proposalArgs{}); err == nil || !strings.Contains(err.Error(), "taskId is missing") {
		t.Errorf("no taskId: %v", err)
	}

	hunk, _ := actionsAt(t, s, u, rng(1, 0, 1, 0))[0].args["hunk"].(string)
	res, err = s.reviewer.cmdReject(ctx, reviewArgs{TaskID: tk.id, URI: u, Hunk: hunk})
	if m, _ := res.(map[string]any); err != nil || m["rejected"] != 1 {
		t.Fatalf("reject: %+v, %v", res, err)
	}
	res, _ = s.reviewer.cmdProposal(ctx, proposalArgs{TaskID: tk.id, URI: u})
	if p, _ := res.(proposalResult); p.Proposed != "one\ntwo\nthree\nFOUR\n" || p.Hunks != 1 {
		t.Errorf("after the reject: %+v", res)
	}
	if _, err := s.reviewer.cmdReject(ctx, reviewArgs{TaskID: tk.id, URI: u, Hunk: hunk}); err == nil || !strings.Contains(err.Error(), "nothing to reject for task "+tk.id) {
		t.Errorf("rejecting it again: %v", err)
	}
	// The editor's diagnostics follow: one proposal left in f.txt.
	c.waitFor(t, "the review diagnostics after the reject", func(m sent) bool {
		if m.method != protocol.MethodTextDocumentPublishDiagnostics {
			return false
		}
		var p protocol.PublishDiagnosticsParams
		return protocol.Unmarshal(m.params, &p) == nil && string(p.URI) == u && len(p.Diagnostics) == 1 && strings.Contains(string(m.params), "FOUR")
	})

	res, _ = s.reviewer.cmdDiff(ctx, taskIDArgs{})
	if d, _ := res.(diffResult); d.TaskID != applied.id || !strings.Contains(d.Diff, "-two\n+2\n") || !slices.Equal(d.Files, []string{"f.txt"}) {
		t.Errorf("diff of the newest applied task: %+v", res)
	}
	res, _ = s.reviewer.cmdDiff(ctx, taskIDArgs{TaskID: tk.id})
	if d, _ := res.(diffResult); d.Diff != "" || !strings.Contains(d.Reason, "nothing accepted") {
		t.Errorf("diff of the review task: %+v", res)
	}
	res, _ = s.reviewer.cmdDiff(ctx, taskIDArgs{TaskID: "t99"})
	if d, _ := res.(diffResult); !strings.Contains(d.Reason, `no task "t99"`) {
		t.Errorf("diff of an unknown task: %+v", res)
	}
	if _, err := s.reviewer.cmdReject(ctx, reviewArgs{}); err != nil {
		t.Errorf("reject the newest task's rest: %v", err)
	}
	if _, _, err := s.reviewer.reviewTask("agentls.reject", reviewArgs{}); err == nil {
		t.Error("a task with nothing left is still offered for review")
	}
}
