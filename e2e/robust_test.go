package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

func TestCreateFile(t *testing.T) {
	s := start(t, setup{script: `{"turns":[
		{"toolCalls":[{"id":"c1","name":"write_file","arguments":"{\"path\":\"pkg/new.txt\",\"content\":\"fresh\\n\"}"}]},
		{"text":"created"}]}`})
	r := s.run(t, map[string]any{"task": "create a file"})
	if r.Status != "ok" {
		t.Fatalf("status %q: %s", r.Status, r.Error)
	}
	got, open := s.Text("pkg/new.txt")
	if !open || got != "fresh\n" {
		t.Fatalf("new buffer = %q (open %v)", got, open)
	}
	es := s.Edits()
	if len(es) != 1 {
		t.Fatalf("%d edits", len(es))
	}
	if _, ok := es[0].Edit.DocumentChanges[0].(*protocol.CreateFile); !ok {
		t.Errorf("first change is %T, want CreateFile", es[0].Edit.DocumentChanges[0])
	}
	if len(r.FilesChanged) != 1 || !strings.HasSuffix(r.FilesChanged[0], "pkg/new.txt") {
		t.Errorf("filesChanged %v", r.FilesChanged)
	}
}

// A path outside the workspace is refused with a tool error; nothing is
// written anywhere.
func TestPathEscapeRefused(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: `{"turns":[
		{"toolCalls":[
			{"id":"c1","name":"write_file","arguments":"{\"path\":\"../escape.txt\",\"content\":\"x\"}"},
			{"id":"c2","name":"edit_file","arguments":"{\"path\":\"/etc/hostname\",\"old_string\":\"a\",\"new_string\":\"b\"}"},
			{"id":"c3","name":"read_file","arguments":"{\"path\":\"../../../../etc/passwd\"}"}]},
		{"text":"I could not."}]}`})
	r := s.run(t, map[string]any{"task": "escape"})
	if r.Status != "ok" {
		t.Fatalf("status %q: %s", r.Status, r.Error)
	}
	if len(s.Edits()) != 0 {
		t.Fatalf("edits sent: %v", s.Edits())
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Root), "escape.txt")); err == nil {
		t.Fatal("escape.txt written outside the workspace")
	}
	msgs := s.LLM.Requests()[1].Body.Messages
	var tools []string
	for _, m := range msgs {
		if m.Role == "tool" {
			tools = append(tools, m.Content)
		}
	}
	if len(tools) != 3 {
		t.Fatalf("tool results %q", tools)
	}
	for _, c := range tools {
		if !strings.Contains(c, "outside the workspace") {
			t.Errorf("tool result %q does not say the path is outside the workspace", c)
		}
		if strings.Contains(c, "root:") {
			t.Errorf("leaked /etc/passwd: %q", c)
		}
	}
	if len(r.FilesChanged) != 0 {
		t.Errorf("filesChanged %v", r.FilesChanged)
	}
}

// An edit the editor rejects (not for a stale version: the user said no)
// is reported to the model as a failed tool call at once, not asked
// again; nothing is written behind the editor's back. An edit refused
// because the user typed meanwhile is planned again on the newer text
// (internal/lsp TestEditReplannedAfterTyping).
func TestRejectedEdit(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: `{"turns":[
		{"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"bye\"}"}]},
		{"expect":{"lastToolContains":"rejected"},"text":"The editor refused."}]}`})
	s.OnApplyEdit = func(*protocol.ApplyWorkspaceEditParams) (bool, string) { return false, "user said no" }
	if err := s.Open(s.ctx, "hello.txt"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "edit"})
	if r.Status != "ok" {
		t.Fatalf("status %q: %s", r.Status, r.Error)
	}
	if n := len(s.Edits()); n != 1 {
		t.Errorf("%d applyEdit attempts, want 1", n)
	}
	if got, _ := s.Text("hello.txt"); got != "hello world\nsecond line\n" {
		t.Errorf("buffer changed: %q", got)
	}
	disk, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt"))
	if string(disk) != "hello world\nsecond line\n" {
		t.Errorf("disk changed: %q", disk)
	}
	if len(r.FilesChanged) != 0 {
		t.Errorf("filesChanged %v, want none", r.FilesChanged)
	}
	msgs := s.LLM.Requests()[1].Body.Messages
	if c := msgs[len(msgs)-1].Content; !strings.Contains(c, "user said no") {
		t.Errorf("tool result %q does not carry the editor's reason", c)
	}
}

// Cancel stops the model stream at once, and no edit follows the cancel.
func TestCancelStopsPromptly(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: `{"turns":[
		{"text":"thinking slowly about the change I will make","chunkSize":2,"chunkDelayMs":200,
		 "toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"bye\"}"}]},
		{"text":"done"}]}`})
	id, err := s.Run(s.ctx, map[string]any{"task": "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.WaitFor(10*time.Second, func() bool {
		for _, ev := range s.Events(id) {
			if ev["kind"] == "text" {
				return true
			}
		}
		return false
	}) {
		t.Fatal("no text streamed")
	}
	var c struct{ Cancelled bool }
	began := time.Now()
	if err := s.Command(s.ctx, "agentls.cancel", map[string]any{"taskId": id}, &c); err != nil || !c.Cancelled {
		t.Fatalf("cancel: %v %+v", err, c)
	}
	r, err := s.Wait(s.ctx, id, 5*time.Second)
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cancel → task ended in %s", took)
	if r.Status != "cancelled" || !r.Cancelled {
		t.Fatalf("status %q cancelled %v", r.Status, r.Cancelled)
	}
	if took > time.Second {
		t.Errorf("cancel took %s", took)
	}
	// No wait is needed: the task ends after its tools returned, and a
	// tool's workspace/applyEdit returns only once this client answered
	// (and recorded) it, so an edit of this task would be counted already.
	if n := len(s.Edits()); n != 0 {
		t.Errorf("%d edits after cancel", n)
	}
	// The progress ended and the end event says cancelled. The event is a
	// notification and the wait's answer a response: the client's reader
	// may hand them over in either order, so the end event is waited for.
	ended := func() bool {
		evs := s.Events(id)
		return len(evs) > 0 && evs[len(evs)-1]["kind"] == "end"
	}
	if !s.WaitFor(5*time.Second, ended) {
		evs := s.Events(id)
		t.Errorf("last event %v", evs[len(evs)-1])
	}
}

// Without window.workDoneProgress the user still hears of the task through
// window/showMessage.
func TestNoProgressFallsBackToShowMessage(t *testing.T) {
	caps := lspclient.VSCodeCaps()
	caps.WorkDoneProgress = false
	s := start(t, setup{workspace: "hello", script: "hello.json", caps: &caps})
	r := s.run(t, map[string]any{"task": "say hi"})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	if n := len(s.Notes(protocol.MethodProgress)); n != 0 {
		t.Errorf("%d $/progress sent to a client without workDoneProgress", n)
	}
	if n := len(s.Notes(protocol.MethodWindowWorkDoneProgressCreate)); n != 0 {
		t.Errorf("workDoneProgress/create sent")
	}
	// The end message follows the task's end (agentls.wait answers first).
	var msgs []string
	s.WaitFor(5*time.Second, func() bool {
		msgs = msgs[:0]
		for _, n := range s.Notes(protocol.MethodWindowShowMessage) {
			var p protocol.ShowMessageParams
			_ = json.Unmarshal(n.Params, &p)
			msgs = append(msgs, p.Message)
		}
		return len(msgs) >= 2
	})
	if len(msgs) < 2 || !strings.Contains(msgs[0], "say hi") || !strings.Contains(msgs[len(msgs)-1], "scripted model") {
		t.Errorf("showMessage = %q, want a start and an end message", msgs)
	}
}

// Progress: begin, reports of what the agent does, end; events for every
// state change.
func TestProgressAndEvents(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: "read-edit.json"})
	r := s.run(t, map[string]any{"task": "edit"})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	var kinds, messages []string
	for _, n := range s.Notes(protocol.MethodProgress) {
		var p struct {
			Value struct{ Kind, Message string }
		}
		_ = json.Unmarshal(n.Params, &p)
		kinds = append(kinds, p.Value.Kind)
		messages = append(messages, p.Value.Message)
	}
	if len(kinds) < 3 || kinds[0] != "begin" || kinds[len(kinds)-1] != "end" {
		t.Fatalf("progress kinds %v", kinds)
	}
	joined := strings.Join(messages, "|")
	for _, want := range []string{"read_file hello.txt", "edit_file hello.txt", "calling model (step 2 of 200)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("progress %q lacks %q", joined, want)
		}
	}
	var states []string
	text := ""
	evs := s.Events(r.TaskID)
	// The first event carries the prompt, so a view can head a task it did
	// not start (a code action's); the others do not repeat it.
	if len(evs) == 0 || evs[0]["task"] != "edit" {
		t.Errorf("the first event has no task: %v", evs)
	}
	for _, ev := range evs[1:] {
		if _, ok := ev["task"]; ok {
			t.Errorf("a later event repeats the task: %v", ev)
		}
	}
	for _, ev := range evs {
		switch ev["kind"] {
		case "state":
			states = append(states, ev["to"].(string))
		case "text":
			text += ev["text"].(string)
		}
	}
	if got := strings.Join(states, ","); got != "planning,executing,tools,executing,tools,executing,reporting,idle" {
		t.Errorf("states %s", got)
	}
	if !strings.Contains(text, "Let me look at the file first.") {
		t.Errorf("streamed text %q", text)
	}
	// The transcript went to window/logMessage, without the API key.
	var logs strings.Builder
	for _, n := range s.Notes(protocol.MethodWindowLogMessage) {
		logs.Write(n.Params)
	}
	if !strings.Contains(logs.String(), "read_file hello.txt") {
		t.Errorf("transcript lacks the tool call: %s", logs.String())
	}
	if strings.Contains(logs.String()+s.Stderr(), "sk-test-secret-key-123") {
		t.Error("API key leaked into logs")
	}
}

// UTF-16 positions across emoji, in a CRLF file with no final newline.
func TestUTF16EmojiCRLF(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps lspclient.Caps
	}{{"utf-16", lspclient.VSCodeCaps()}, {"utf-8", lspclient.HelixCaps()}} {
		t.Run(tc.name, func(t *testing.T) {
			text := "a😀b 😀😀 x\r\nline 2 é😀 end\r\nlast 😀"
			s := start(t, setup{caps: &tc.caps, files: map[string]string{"emoji.txt": text}, script: `{"turns":[
				{"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"emoji.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"emoji.txt\",\"old_string\":\"é😀 end\",\"new_string\":\"ü🎉 fin\"}"}]},
				{"toolCalls":[{"id":"c2r","name":"read_file","arguments":"{\"path\":\"emoji.txt\"}"},{"id":"c2","name":"edit_file","arguments":"{\"path\":\"emoji.txt\",\"old_string\":\"😀😀 x\",\"new_string\":\"y\"}"}]},
				{"text":"ok"}]}`})
			if string(s.Enc.Kind()) != tc.name {
				t.Fatalf("negotiated %s", s.Enc)
			}
			if err := s.Open(s.ctx, "emoji.txt"); err != nil {
				t.Fatal(err)
			}
			r := s.run(t, map[string]any{"task": "edit"})
			if r.Status != "ok" {
				t.Fatal(r.Error)
			}
			got, _ := s.Text("emoji.txt")
			if want := "a😀b y\r\nline 2 ü🎉 fin\r\nlast 😀"; got != want {
				t.Errorf("buffer = %q, want %q", got, want)
			}
		})
	}
}

// Garbage on the wire, unknown commands and bad arguments get errors; the
// server stays up.
func TestBadInputKeepsServerUp(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: "hello.json"})
	if err := s.Command(s.ctx, "agentls.nope", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("unknown command: %v", err)
	}
	if err := s.Command(s.ctx, "agentls.run", map[string]any{"tsk": "typo"}, nil); err == nil || !strings.Contains(err.Error(), "tsk") {
		t.Errorf("bad argument: %v", err)
	}
	if err := s.Command(s.ctx, "agentls.run", map[string]any{"task": ""}, nil); err == nil {
		t.Error("empty task accepted")
	}
	if err := s.Command(s.ctx, "agentls.run", map[string]any{"task": "x", "uri": "file:///etc/passwd"}, nil); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("uri outside workspace: %v", err)
	}
	if err := s.Command(s.ctx, "agentls.wait", map[string]any{"taskId": "t999"}, nil); err == nil {
		t.Error("unknown task accepted")
	}
	// A didChange for a document that is not open, and one with a range
	// past the end: logged, not fatal.
	_ = s.Server.DidChange(s.ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: "file:///nowhere"}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "x"}},
	})
	// Raw garbage: not JSON, then a response to a request never made.
	if err := s.Conn.Notify(s.ctx, "textDocument/didOpen", json.RawMessage(`{"textDocument": 42}`)); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "still alive?"})
	if r.Status != "ok" {
		t.Fatalf("server unhealthy after bad input: %+v", r)
	}
}

// A mention the server does not read is named to the user, with why, as a
// notice event before the model is called (issue 25: it was dropped
// without a word).
func TestUnreadMentionIsNamed(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: "read-edit.json"})
	r := s.run(t, map[string]any{"task": "edit, as @../outside.txt says"})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	var notices []string
	for _, ev := range s.Events(r.TaskID) {
		if ev["kind"] == "notice" {
			notices = append(notices, ev["text"].(string))
		}
	}
	if len(notices) != 1 || notices[0] != "@../outside.txt was not read: outside the workspace" {
		t.Errorf("notices %q", notices)
	}
}
