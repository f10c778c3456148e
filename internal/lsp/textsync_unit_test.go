package lsp

import (
	"context"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/edits"
)

func whole(text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangeWholeDocument{Text: text}
}

func partial(l1, c1, l2, c2 uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{
		Range: protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}},
		Text:  text,
	}
}

// didChange's content changes apply in order, with positions counted in
// the negotiated encoding: UTF-16 code units by default, where é is one
// unit and 😀 two.
func TestApplyChanges(t *testing.T) {
	for _, c := range []struct {
		name    string
		text    string
		changes []protocol.TextDocumentContentChangeEvent
		enc     edits.Encoding
		want    string
		err     string
	}{
		{"whole document", "old", []protocol.TextDocumentContentChangeEvent{whole("new\n")}, edits.UTF16, "new\n", ""},
		{"insert", "ab\ncd\n", []protocol.TextDocumentContentChangeEvent{partial(1, 1, 1, 1, "X")}, edits.UTF16, "ab\ncXd\n", ""},
		{"replace across lines", "ab\ncd\nef\n", []protocol.TextDocumentContentChangeEvent{partial(0, 1, 2, 1, "-")}, edits.UTF16, "a-f\n", ""},
		{"after é (one UTF-16 unit, two bytes)", "café au lait", []protocol.TextDocumentContentChangeEvent{partial(0, 4, 0, 5, "_")}, edits.UTF16, "café_au lait", ""},
		{"after an emoji (two UTF-16 units)", "a😀b", []protocol.TextDocumentContentChangeEvent{partial(0, 3, 0, 4, "c")}, edits.UTF16, "a😀c", ""},
		{"replace the emoji", "a😀b", []protocol.TextDocumentContentChangeEvent{partial(0, 1, 0, 3, "☺")}, edits.UTF16, "a☺b", ""},
		{"CJK in UTF-8 bytes", "日本語", []protocol.TextDocumentContentChangeEvent{partial(0, 3, 0, 6, "")}, edits.UTF8, "日語", ""},
		{"CJK in UTF-32", "日本語x", []protocol.TextDocumentContentChangeEvent{partial(0, 3, 0, 4, "y")}, edits.UTF32, "日本語y", ""},
		{"changes apply one after another", "abc", []protocol.TextDocumentContentChangeEvent{partial(0, 0, 0, 1, "ZZ"), partial(0, 0, 0, 2, "Y")}, edits.UTF16, "Ybc", ""},
		{"whole then partial", "x", []protocol.TextDocumentContentChangeEvent{whole("12\n34"), partial(1, 0, 1, 1, "")}, edits.UTF16, "12\n4", ""},
		{"past the line's end clamps", "ab\ncd", []protocol.TextDocumentContentChangeEvent{partial(0, 99, 0, 99, "!")}, edits.UTF16, "ab!\ncd", ""},
		{"past the last line appends", "ab", []protocol.TextDocumentContentChangeEvent{partial(5, 0, 5, 0, "\nz")}, edits.UTF16, "ab\nz", ""},
		{"inside a surrogate pair", "a😀b", []protocol.TextDocumentContentChangeEvent{partial(0, 2, 0, 2, "x")}, edits.UTF16, "", "surrogate"},
		{"inside a UTF-8 character", "é", []protocol.TextDocumentContentChangeEvent{partial(0, 1, 0, 1, "x")}, edits.UTF8, "", "inside a character"},
		{"end before start", "abc", []protocol.TextDocumentContentChangeEvent{partial(0, 2, 0, 1, "x")}, edits.UTF16, "", "ends before it starts"},
		{"the second change fails", "abc", []protocol.TextDocumentContentChangeEvent{partial(0, 0, 0, 0, "😀"), partial(0, 1, 0, 1, "x")}, edits.UTF16, "", "change 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := applyChanges(c.text, c.changes, c.enc)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("= %q, %v; want an error saying %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("= %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

const docURI = "file:///w/a.txt"

// A change that cannot apply keeps the text the server had (a wrong
// document is worse than a stale one); a change to a closed document is
// an error.
func TestOpenDocsChange(t *testing.T) {
	o := newOpenDocs()
	if _, err := o.change(docURI, 2, []protocol.TextDocumentContentChangeEvent{whole("x")}, edits.UTF16); err == nil {
		t.Error("a change to a document never opened was taken")
	}
	o.open(docURI, 1, "héllo\n")
	if d, ok := o.get("/w/./a.txt"); !ok || d.text != "héllo\n" || d.version != 1 {
		t.Fatalf("get by an unclean path: %+v %v", d, ok)
	}
	if _, err := o.change(docURI, 2, []protocol.TextDocumentContentChangeEvent{partial(0, 2, 0, 2, "X")}, edits.UTF16); err != nil {
		t.Fatal(err)
	}
	if d, _ := o.getURI(docURI); d.text != "héXllo\n" || d.version != 2 {
		t.Errorf("after the change: %+v", d)
	}
	if _, err := o.change(docURI, 3, []protocol.TextDocumentContentChangeEvent{partial(0, 3, 0, 1, "?")}, edits.UTF16); err == nil || !strings.Contains(err.Error(), "v3") {
		t.Errorf("a bad change: %v", err)
	}
	if d, _ := o.getURI(docURI); d.text != "héXllo\n" || d.version != 2 {
		t.Errorf("a bad change changed the document: %+v", d)
	}
	if got := o.openPaths(); len(got) != 1 || got[0] != "/w/a.txt" {
		t.Errorf("openPaths = %q", got)
	}
	o.setShadow("/w/a.txt", "shadow")
	o.close(docURI)
	if _, ok := o.get("/w/a.txt"); ok {
		t.Error("still open after close")
	}
	if _, ok := o.shadow("/w/a.txt"); ok {
		t.Error("closing the document kept a stale shadow")
	}
	o.close(docURI) // twice: nothing happens
	o.setShadow("/w/b.txt", "sent")
	if s, ok := o.shadow("/w/./b.txt"); !ok || s != "sent" {
		t.Errorf("shadow = %q, %v", s, ok)
	}
	o.open("file:///w/b.txt", 1, "real")
	if _, ok := o.shadow("/w/b.txt"); ok {
		t.Error("opening the file kept the shadow")
	}
	if _, ok := o.get(""); ok {
		t.Error("an empty path found a document")
	}
	o.open("untitled:Untitled-1", 1, "scratch")
	if d, ok := o.getURI("untitled:Untitled-1"); !ok || d.path != "" {
		t.Errorf("a non-file URI: %+v %v", d, ok)
	}
}

// An applied edit is expected: the didChange that brings it is the edit,
// not the user's typing; a client that sends one didChange per text edit
// (Neovim) is compared on the last; a different result is a disagreement.
func TestEditExpectations(t *testing.T) {
	const path = "/w/a.txt"
	for _, c := range []struct {
		name     string
		steps    int
		changes  [][]protocol.TextDocumentContentChangeEvent
		disagree bool
		text     string
	}{
		{"one didChange with the edit", 1, [][]protocol.TextDocumentContentChangeEvent{{whole("edited\n")}}, false, "edited\n"},
		{"one per text edit", 2, [][]protocol.TextDocumentContentChangeEvent{{partial(0, 0, 0, 3, "ED")}, {partial(0, 2, 0, 2, "ited")}}, false, "EDited\n"},
		{"the editor left another text", 1, [][]protocol.TextDocumentContentChangeEvent{{whole("something else\n")}}, true, "something else\n"},
		{"the edit in one didChange of two allowed, then typing", 2, [][]protocol.TextDocumentContentChangeEvent{{whole("EDited\n")}, {partial(0, 0, 0, 0, ">")}}, false, ">EDited\n"},
		{"the user typed after the edit", 1, [][]protocol.TextDocumentContentChangeEvent{{whole("edited\n")}, {partial(0, 0, 0, 0, ">")}}, false, ">edited\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := newOpenDocs()
			o.open(docURI, 1, "old\n")
			next := "edited\n"
			if c.steps == 2 {
				next = "EDited\n"
			}
			o.expectEdit(path, 1, next, c.steps)
			for i, ch := range c.changes {
				if disagree, err := o.change(docURI, int32(2+i), ch, edits.UTF16); err != nil || disagree {
					t.Fatalf("change %d: %v, %v", i, disagree, err)
				}
			}
			if got := o.settle(path, 1, next, true); got != c.disagree {
				t.Errorf("settle: disagree %v, want %v", got, c.disagree)
			}
			if d, _ := o.get(path); d.text != c.text || d.expect != nil {
				t.Errorf("document %q (expect %+v), want %q", d.text, d.expect, c.text)
			}
		})
	}
}

// A client that answers an applyEdit "applied" without a didChange
// (Eglot can): the document takes the edited text at the next version;
// the late didChange, relative to the old text, or the user's next one,
// relative to the new, both land on the right text.
func TestSilentlyAppliedEdit(t *testing.T) {
	const path = "/w/a.txt"
	setup := func() *openDocs {
		o := newOpenDocs()
		o.open(docURI, 1, "hello world\n")
		o.expectEdit(path, 1, "hello there\n", 1)
		if o.settle(path, 1, "hello there\n", true) {
			t.Fatal("settle disagreed with no didChange")
		}
		if d, _ := o.get(path); d.text != "hello there\n" || d.version != 2 || !d.assumed || d.confirmed != "hello world\n" {
			t.Fatalf("assumed: %+v", d)
		}
		return o
	}
	// The late didChange of the edit itself.
	o := setup()
	if disagree, err := o.change(docURI, 2, []protocol.TextDocumentContentChangeEvent{partial(0, 6, 0, 11, "there")}, edits.UTF16); err != nil || disagree {
		t.Fatalf("late didChange: %v %v", disagree, err)
	}
	if d, _ := o.get(path); d.text != "hello there\n" || d.assumed {
		t.Errorf("after the late didChange: %+v", d)
	}
	// The user's typing on the edited text.
	o = setup()
	if disagree, err := o.change(docURI, 3, []protocol.TextDocumentContentChangeEvent{partial(0, 11, 0, 11, "!")}, edits.UTF16); err != nil || disagree {
		t.Fatalf("typing: %v %v", disagree, err)
	}
	if d, _ := o.get(path); d.text != "hello there!\n" {
		t.Errorf("after typing: %q", d.text)
	}
	// A change that fits only the old text and does not make the edited
	// one: the editor's text wins, and the disagreement is reported.
	o = setup()
	o.mu.Lock()
	o.docs[docURI].text = "😀\n" // what the edit should have left
	o.mu.Unlock()
	if disagree, err := o.change(docURI, 3, []protocol.TextDocumentContentChangeEvent{partial(0, 1, 0, 1, "x")}, edits.UTF16); err != nil || !disagree {
		t.Fatalf("disagreeing change: %v %v", disagree, err)
	}
	if d, _ := o.get(path); d.text != "hxello world\n" || d.assumed {
		t.Errorf("after the disagreeing change: %+v", d)
	}
	// An edit that was not applied changes nothing.
	o = newOpenDocs()
	o.open(docURI, 1, "a\n")
	o.expectEdit(path, 1, "b\n", 1)
	if o.settle(path, 1, "b\n", false) {
		t.Error("a refused edit disagreed")
	}
	if d, _ := o.get(path); d.text != "a\n" || d.version != 1 || d.assumed {
		t.Errorf("after a refused edit: %+v", d)
	}
}

// waitFor returns when the document satisfies the condition, and reports
// false when the context ends first or the document is closed.
func TestWaitForTheDocument(t *testing.T) {
	const path = "/w/a.txt"
	o := newOpenDocs()
	o.open(docURI, 1, "a\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	edited := func(d document) bool { return d.text == "b\n" }
	if o.waitFor(ctx, path, edited) {
		t.Error("waitFor reported a change that did not happen")
	}
	if o.waitFor(context.Background(), "/w/closed.txt", edited) {
		t.Error("a closed document satisfied the condition")
	}
	got := make(chan bool, 1)
	go func() { got <- o.waitFor(context.Background(), path, edited) }()
	if _, err := o.change(docURI, 2, []protocol.TextDocumentContentChangeEvent{whole("b\n")}, edits.UTF16); err != nil {
		t.Fatal(err)
	}
	if !<-got {
		t.Error("waitFor did not see the edited text")
	}
}
