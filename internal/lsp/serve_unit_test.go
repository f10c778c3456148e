package lsp

// The whole server in process: Serve on one end of a pipe, an editor on
// the other that applies edits to its buffers and sends didChange, and the
// scripted model. What e2e checks through the binary, here without it.

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// pipeEditor is the editor's side of an in-process session.
type pipeEditor struct {
	t    *testing.T
	conn jsonrpc2.Conn
	ctx  context.Context

	inbox
	mu      sync.Mutex
	bufs    map[string]string // URI → text
	vers    map[string]int32
	applyOK bool
	// applyUTF8: the server's edits count bytes (UTF-8 was negotiated).
	applyUTF8 bool
	asked     []string            // showMessageRequest messages
	replyFn   func(string) string // the title to answer one with; "" dismisses
}

func (e *pipeEditor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := strings.Clone(req.Method())
	params := append(json.RawMessage(nil), req.Params()...)
	e.add(sent{method, params})
	switch method {
	case protocol.MethodWorkspaceApplyEdit:
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return e.apply(p.Edit), nil
	case protocol.MethodWindowShowMessageRequest:
		var p protocol.ShowMessageRequestParams
		protocol.Unmarshal(params, &p)
		e.mu.Lock()
		e.asked = append(e.asked, p.Message)
		reply := ""
		if e.replyFn != nil {
			reply = e.replyFn(p.Message)
		}
		e.mu.Unlock()
		if reply == "" {
			return nil, nil
		}
		return protocol.MessageActionItem{Title: reply}, nil
	}
	return nil, nil
}

// apply applies an edit to the open buffers and sends the didChange, as
// an editor does (after answering, which is when editors send it).
func (e *pipeEditor) apply(we protocol.WorkspaceEdit) protocol.ApplyWorkspaceEditResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.applyOK {
		r := "refused by the test"
		return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &r}
	}
	for _, dc := range we.DocumentChanges {
		te, ok := dc.(*protocol.TextDocumentEdit)
		if !ok {
			continue
		}
		u := string(te.TextDocument.URI)
		text, open := e.bufs[u]
		if !open {
			continue
		}
		var tes []protocol.TextEdit
		for _, el := range te.Edits {
			tes = append(tes, *el.(*protocol.TextEdit))
		}
		enc := edits.UTF16
		if e.applyUTF8 {
			enc = edits.UTF8
		}
		next, err := edits.ApplyTextEdits(text, tes, enc)
		if err != nil {
			e.t.Errorf("the server's edit does not apply: %v", err)
			continue
		}
		e.bufs[u] = next
		e.vers[u]++
		v := e.vers[u]
		go e.conn.Notify(e.ctx, protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Version: v},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: next}},
		})
	}
	return protocol.ApplyWorkspaceEditResult{Applied: true}
}

func (e *pipeEditor) open(path, text string) string {
	u := string(uri.File(path))
	e.mu.Lock()
	e.bufs[u], e.vers[u] = text, 1
	e.mu.Unlock()
	if err := e.conn.Notify(e.ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri.URI(u), LanguageID: "plaintext", Version: 1, Text: text}}); err != nil {
		e.t.Fatal(err)
	}
	return u
}

func (e *pipeEditor) buffer(u string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.bufs[u]
}

func (e *pipeEditor) command(name string, args any, result any) error {
	b, _ := json.Marshal(args)
	_, err := e.conn.Call(e.ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: name, Arguments: []protocol.LSPAny{b}}, result)
	return err
}

func (e *pipeEditor) waitFor(what string, ok func(sent) bool) sent {
	e.t.Helper()
	return e.inbox.waitFor(e.t, what, ok)
}

// serveSession starts Serve on root with the scripted model turns and
// initializes it; settings are merged into the initializationOptions.
func serveSession(t *testing.T, root string, settings map[string]any, turns ...fakellm.Turn) (*pipeEditor, func() int) {
	t.Helper()
	return serveSessionWith(t, root, settings, nil, turns...)
}

// serveSessionWith is serveSession with mod changing the initialize
// request before it is sent.
func serveSessionWith(t *testing.T, root string, settings map[string]any, mod func(*protocol.InitializeParams), turns ...fakellm.Turn) (*pipeEditor, func() int) {
	t.Helper()
	llm := fakellm.New(&fakellm.Script{Turns: turns})
	base, err := llm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Close() })
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- Serve(ctx, a, Options{Root: root, StateDir: t.TempDir(), Getenv: func(string) string { return "" }})
	}()
	e := &pipeEditor{t: t, ctx: ctx, bufs: map[string]string{}, vers: map[string]int32{}, applyOK: true}
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b), jsonrpc2.WithCodec(Codec{}))
	e.conn.Go(ctx, e.handle)
	opts := map[string]any{
		"llm":     map[string]any{"baseURL": base, "apiKey": "sk-unit", "model": "m"},
		"verify":  map[string]any{"enabled": false},
		"sandbox": map[string]any{"mode": "off"},
	}
	for k, v := range settings {
		opts[k] = v
	}
	yes := true
	ws := protocol.WorkspaceClientCapabilities{ApplyEdit: &yes, WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &yes}}
	init := &protocol.InitializeParams{
		RootURI:               ptrURI(uri.File(root)),
		Capabilities:          protocol.ClientCapabilities{Workspace: &ws, Window: &protocol.WindowClientCapabilities{ShowMessage: &protocol.ShowMessageRequestClientCapabilities{}}},
		InitializationOptions: mustLSPAny(t, opts),
		ClientInfo:            protocol.ClientInfo{Name: "unit-editor"},
	}
	if mod != nil {
		mod(init)
	}
	var res protocol.InitializeResult
	if _, err := e.conn.Call(ctx, protocol.MethodInitialize, init, &res); err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "agentls" || len(res.Capabilities.ExecuteCommandProvider.Commands) == 0 {
		t.Fatalf("initialize: %+v", res)
	}
	e.conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{})
	done := false
	end := func() int {
		if done {
			return -1
		}
		done = true
		e.conn.Call(ctx, protocol.MethodShutdown, nil, nil)
		e.conn.Notify(ctx, protocol.MethodExit, nil)
		select {
		case c := <-code:
			return c
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after exit")
			return -1
		}
	}
	t.Cleanup(func() { end(); cancel(); e.conn.Close() })
	return e, end
}

func ptrURI(u uri.URI) *uri.URI { return &u }

func mustLSPAny(t *testing.T, v any) protocol.LSPAny {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return protocol.LSPAny(b)
}

// readEdit is a turn that reads path, then edits it (read before edit).
func readEdit(id, path, old, new string) []fakellm.ToolCall {
	return []fakellm.ToolCall{{ID: id + "r", Name: "read_file", Arguments: `{"path":"` + path + `"}`}, editCall(id, path, old, new)}
}

func editCall(id, path, old, new string) fakellm.ToolCall {
	b, _ := json.Marshal(map[string]string{"path": path, "old_string": old, "new_string": new})
	return fakellm.ToolCall{ID: id, Name: "edit_file", Arguments: string(b)}
}

// A task runs from agentls.run to its end: the edit reaches the open
// buffer through applyEdit, the status says what happened, undo puts the
// text back, and the server exits 0 after shutdown and exit.
func TestServeRunsATask(t *testing.T) {
	root := tempRoot(t, map[string]string{"a.txt": "hello world\n"})
	e, end := serveSession(t, root, nil,
		fakellm.Turn{ToolCalls: readEdit("c1", "a.txt", "world", "WORLD")},
		fakellm.Turn{Text: "Shouted."})
	u := e.open(filepath.Join(root, "a.txt"), "hello world\n")
	var run runResult
	if err := e.command("agentls.run", map[string]any{"task": "shout", "uri": u}, &run); err != nil || run.TaskID == "" {
		t.Fatalf("agentls.run: %+v, %v", run, err)
	}
	var st taskJSON
	if err := e.command("agentls.wait", map[string]any{"taskId": run.TaskID}, &st); err != nil {
		t.Fatal(err)
	}
	if st.Status != "ok" || st.Summary != "Shouted." || len(st.FilesChanged) != 1 || !st.Undoable {
		t.Errorf("status: %+v", st)
	}
	if got := e.buffer(u); got != "hello WORLD\n" {
		t.Errorf("the buffer: %q", got)
	}
	e.waitFor("the end message", func(m sent) bool {
		return m.method == protocol.MethodWindowShowMessage && strings.Contains(string(m.params), "Shouted.")
	})
	var undo undoResult
	if err := e.command("agentls.undo", map[string]any{"taskId": run.TaskID}, &undo); err != nil || !undo.Applied {
		t.Fatalf("undo: %+v, %v", undo, err)
	}
	if got := e.buffer(u); got != "hello world\n" {
		t.Errorf("the buffer after undo: %q", got)
	}
	if code := end(); code != 0 {
		t.Errorf("exit code %d after shutdown and exit", code)
	}
}

// Bad requests get clear errors, and the server goes on.
func TestServeRefusesBadCommands(t *testing.T) {
	root := tempRoot(t, nil)
	e, end := serveSession(t, root, nil)
	for _, c := range []struct {
		name string
		args any
		want string
	}{
		{"agentls.run", map[string]any{"task": "  "}, "task is empty"},
		{"agentls.run", map[string]any{"task": "x", "path": "/etc/passwd"}, "outside the workspace"},
		{"agentls.run", map[string]any{"taks": "typo"}, `unknown field "taks"`},
		{"agentls.nope", map[string]any{}, "agentls.nope"},
		{"agentls.wait", map[string]any{"taskId": "t9"}, `no task "t9"`},
	} {
		err := e.command(c.name, c.args, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want an error saying %q", c.name, c.args, err, c.want)
		}
	}
	var st json.RawMessage
	if err := e.command("agentls.status", map[string]any{}, &st); err != nil || len(st) == 0 {
		t.Errorf("the server stopped answering: %v", err)
	}
	if code := end(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// The workspace's untrusted .agentls.json: its widening settings wait,
// the user is asked when a task starts, once per content, and a yes
// applies them to that task.
func TestServeAsksToTrustTheWorkspaceFile(t *testing.T) {
	root := tempRoot(t, map[string]string{".agentls.json": `{"tools": {"allow": ["echo *"]}}`})
	echo := func(id string) []fakellm.Turn {
		b, _ := json.Marshal(map[string]string{"command": "echo hi"})
		return []fakellm.Turn{{ToolCalls: []fakellm.ToolCall{{ID: id, Name: "run_command", Arguments: string(b)}}}, {Text: "ran"}}
	}
	turns := append(append(echo("c1"), echo("c2")...), echo("c3")...)
	e, _ := serveSession(t, root, map[string]any{"tools": map[string]any{"approval": "always-ask"}}, turns...)
	trust := false // answer the trust question with yes
	e.mu.Lock()
	e.replyFn = func(msg string) string {
		if trust && strings.Contains(msg, "Trust it?") {
			return trustFile
		}
		return "" // dismissed
	}
	e.mu.Unlock()
	task := func() {
		t.Helper()
		var run runResult
		if err := e.command("agentls.run", map[string]any{"task": "t"}, &run); err != nil {
			t.Fatal(err)
		}
		var st taskJSON
		if err := e.command("agentls.wait", map[string]any{"taskId": run.TaskID}, &st); err != nil || st.Status != "ok" {
			t.Fatalf("%+v %v", st, err)
		}
	}
	count := func() (trustQ, runQ int) {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, q := range e.asked {
			switch {
			case strings.Contains(q, "Trust it?"):
				trustQ++
			case strings.Contains(q, "echo hi"):
				runQ++
			}
		}
		return
	}
	task()
	if tq, rq := count(); tq != 1 || rq != 1 {
		t.Fatalf("first task: %d trust questions, %d run questions; want 1, 1 (tools.allow held back)", tq, rq)
	}
	task()
	if tq, rq := count(); tq != 1 || rq != 2 {
		t.Fatalf("second task, same file: %d trust questions, %d run questions; want 1, 2", tq, rq)
	}
	trust = true
	if err := os.WriteFile(filepath.Join(root, ".agentls.json"), []byte(`{"tools": {"allow": ["echo *", "true"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server reads the file again when the configuration changes.
	e.conn.Notify(e.ctx, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{}`)})
	task()
	if tq, rq := count(); tq != 2 || rq != 2 {
		t.Errorf("after the file changed and was trusted: %d trust questions, %d run questions; want 2, 2 (echo allowed)", tq, rq)
	}
}

// A review task proposes; the quick fix on the proposal's line accepts it
// into the buffer; the task's outcome follows.
func TestServeReviewAndAccept(t *testing.T) {
	root := tempRoot(t, map[string]string{"a.txt": "hello world\n"})
	e, _ := serveSession(t, root, nil,
		fakellm.Turn{ToolCalls: readEdit("c1", "a.txt", "world", "WORLD")},
		fakellm.Turn{Text: "Proposed."})
	u := e.open(filepath.Join(root, "a.txt"), "hello world\n")
	var run runResult
	if err := e.command("agentls.run", map[string]any{"task": "shout", "uri": u, "review": true}, &run); err != nil {
		t.Fatal(err)
	}
	var st taskJSON
	if err := e.command("agentls.wait", map[string]any{"taskId": run.TaskID}, &st); err != nil || st.Status != "ok" || !st.Review || st.Outcome != "awaiting review" {
		t.Fatalf("the review task: %+v, %v", st, err)
	}
	if e.buffer(u) != "hello world\n" {
		t.Fatalf("a review task changed the buffer: %q", e.buffer(u))
	}
	var actions []protocol.CodeAction
	if _, err := e.conn.Call(e.ctx, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Range: rng(0, 0, 0, 0)}, &actions); err != nil {
		t.Fatal(err)
	}
	if len(actions) == 0 || actions[0].Title != "Accept this change" {
		t.Fatalf("code actions: %+v", actions)
	}
	var accepted map[string]any
	if err := e.command(actions[0].Command.Command, json.RawMessage(actions[0].Command.Arguments[0]), &accepted); err != nil || accepted["accepted"] != float64(1) {
		t.Fatalf("accept: %+v, %v", accepted, err)
	}
	if got := e.buffer(u); got != "hello WORLD\n" {
		t.Errorf("after the accept: %q", got)
	}
	var after taskJSON // fresh: outcome is omitted when empty
	if err := e.command("agentls.status", map[string]any{"taskId": run.TaskID}, &after); err != nil || after.Outcome != "" || len(after.FilesChanged) != 1 {
		t.Errorf("after the accept: %+v, %v", after, err)
	}
}

// agentls.cancel ends a running task "cancelled", and the model's slow
// answer is abandoned.
func TestServeCancel(t *testing.T) {
	root := tempRoot(t, nil)
	e, _ := serveSession(t, root, nil, fakellm.Turn{Text: strings.Repeat("slow ", 200), ChunkSize: 1, ChunkDelayMs: 50})
	var run runResult
	if err := e.command("agentls.run", map[string]any{"task": "talk"}, &run); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the task's first state", func(m sent) bool {
		return m.method == "agentls/event" && strings.Contains(string(m.params), `"kind":"state"`)
	})
	var cancelled map[string]any
	if err := e.command("agentls.cancel", map[string]any{"taskId": run.TaskID}, &cancelled); err != nil {
		t.Fatal(err)
	}
	var st taskJSON
	if err := e.command("agentls.wait", map[string]any{"taskId": run.TaskID}, &st); err != nil || st.Status != "cancelled" || !st.Cancelled {
		t.Errorf("after cancel: %+v, %v", st, err)
	}
}

// Steps of a session and rewinding to one; continuing the session sends
// its history to the model.
func TestServeCheckpointsRewindAndContinue(t *testing.T) {
	root := tempRoot(t, map[string]string{"a.txt": "one two\n"})
	e, _ := serveSession(t, root, nil,
		fakellm.Turn{ToolCalls: readEdit("c1", "a.txt", "one", "ONE")},
		fakellm.Turn{ToolCalls: readEdit("c2", "a.txt", "two", "TWO")},
		fakellm.Turn{Text: "Done."},
		fakellm.Turn{Text: "Continued."})
	u := e.open(filepath.Join(root, "a.txt"), "one two\n")
	var run runResult
	if err := e.command("agentls.run", map[string]any{"task": "shout", "uri": u}, &run); err != nil {
		t.Fatal(err)
	}
	var st taskJSON
	e.command("agentls.wait", map[string]any{"taskId": run.TaskID}, &st)
	if e.buffer(u) != "ONE TWO\n" {
		t.Fatalf("buffer %q", e.buffer(u))
	}
	var cps checkpointsResult
	if err := e.command("agentls.checkpoints", map[string]any{"taskId": run.TaskID}, &cps); err != nil || len(cps.Steps) != 2 || cps.Session != run.Session {
		t.Fatalf("checkpoints: %+v, %v", cps, err)
	}
	var rw rewindResult
	if err := e.command("agentls.rewind", map[string]any{"session": run.Session, "step": 1}, &rw); err != nil || !rw.Applied {
		t.Fatalf("rewind: %+v, %v", rw, err)
	}
	if got := e.buffer(u); got != "ONE two\n" {
		t.Errorf("after the rewind to step 1: %q", got)
	}
	var cont runResult
	if err := e.command("agentls.continue", map[string]any{"session": run.Session, "task": "go on"}, &cont); err != nil || cont.Session != run.Session {
		t.Fatalf("continue: %+v, %v", cont, err)
	}
	if err := e.command("agentls.wait", map[string]any{"taskId": cont.TaskID}, &st); err != nil || st.Summary != "Continued." {
		t.Errorf("the continued task: %+v, %v", st, err)
	}
	if err := e.command("agentls.continue", map[string]any{"session": "20990101-000000-000000000000", "task": "x"}, nil); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("continue an unknown session: %v", err)
	}
}

// agentls.verify runs the checks on the text the user sees (an unsaved
// buffer included, the disk untouched): failures become diagnostics with
// a "Fix with agentls" quick fix, and a pass clears them.
func TestServeVerifyOnly(t *testing.T) {
	root := tempRoot(t, map[string]string{"a.txt": "broken\n"})
	check := `grep -q fixed a.txt || { echo "a.txt:1:3: error: not fixed"; exit 1; }`
	e, _ := serveSession(t, root, map[string]any{"verify": map[string]any{"commands": []string{check}}})
	verifyOnce := func() taskJSON {
		t.Helper()
		var run runResult
		if err := e.command("agentls.verify", map[string]any{}, &run); err != nil {
			t.Fatal(err)
		}
		var st taskJSON
		if err := e.command("agentls.wait", map[string]any{"taskId": run.TaskID}, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	u := string(uri.File(filepath.Join(root, "a.txt")))
	if st := verifyOnce(); st.Reason != "verifyFailed" || st.Verified {
		t.Fatalf("failing check: %+v", st)
	}
	diags := func(n int) sent {
		return e.waitFor("diagnostics", func(m sent) bool {
			var p protocol.PublishDiagnosticsParams
			return m.method == protocol.MethodTextDocumentPublishDiagnostics && protocol.Unmarshal(m.params, &p) == nil && string(p.URI) == u && len(p.Diagnostics) == n
		})
	}
	m := diags(1)
	if !strings.Contains(string(m.params), "not fixed") || !strings.Contains(string(m.params), `"character":2`) {
		t.Errorf("the diagnostic: %s", m.params)
	}
	var actions []protocol.CodeAction
	e.conn.Call(e.ctx, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Range: rng(0, 0, 0, 0)}, &actions)
	if len(actions) == 0 || !strings.HasPrefix(actions[0].Title, "Fix with agentls: not fixed") {
		t.Errorf("code actions: %+v", actions)
	}
	// The user fixes it in the buffer, unsaved.
	e.open(filepath.Join(root, "a.txt"), "fixed\n")
	if st := verifyOnce(); st.Reason != "done" || !st.Verified {
		t.Errorf("the check did not see the buffer: %+v", st)
	}
	diags(0)
	if got := readFile(t, root, "a.txt"); got != "broken\n" {
		t.Errorf("the check wrote the user's file: %q", got)
	}
}

// A client offering UTF-8 positions gets them: its didChange columns are
// bytes, and so are the server's edits.
func TestServeNegotiatesUTF8(t *testing.T) {
	root := tempRoot(t, map[string]string{"a.txt": "日本 x\n"})
	e, _ := serveSessionWith(t, root, nil, func(p *protocol.InitializeParams) {
		p.Capabilities.General = &protocol.GeneralClientCapabilities{PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16, protocol.PositionEncodingKindUTF8}}
	},
		fakellm.Turn{ToolCalls: readEdit("c1", "a.txt", "x", "y")},
		fakellm.Turn{Text: "ok"})
	u := e.open(filepath.Join(root, "a.txt"), "日本 x\n")
	// Byte 7 is x (two 3-byte characters and a space).
	e.conn.Notify(e.ctx, protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: rng(0, 7, 0, 8), Text: "x!"}},
	})
	e.mu.Lock()
	e.bufs[u], e.vers[u] = "日本 x!\n", 2
	e.applyUTF8 = true
	e.mu.Unlock()
	var run runResult
	if err := e.command("agentls.run", map[string]any{"task": "t", "uri": u}, &run); err != nil {
		t.Fatal(err)
	}
	var st taskJSON
	if err := e.command("agentls.wait", map[string]any{"taskId": run.TaskID}, &st); err != nil || st.Status != "ok" {
		t.Fatalf("%+v %v", st, err)
	}
	// The model saw the buffer with the user's "!", and its edit landed in
	// the right bytes.
	if got := e.buffer(u); got != "日本 y!\n" {
		t.Errorf("the buffer: %q", got)
	}
}

// agentls.models lists the endpoint's models; agentls.info says whether a
// key is set, never the key.
func TestServeModelsAndInfo(t *testing.T) {
	e, _ := serveSession(t, tempRoot(t, nil), nil)
	var models struct {
		Models  []string `json:"models"`
		Current string   `json:"current"`
	}
	if err := e.command("agentls.models", map[string]any{}, &models); err != nil || len(models.Models) != 1 || models.Models[0] != "fake-model" || models.Current != "m" {
		t.Errorf("models: %+v, %v", models, err)
	}
	var raw json.RawMessage
	if err := e.command("agentls.info", map[string]any{}, &raw); err != nil || strings.Contains(string(raw), "sk-unit") || !strings.Contains(string(raw), `"keySet":true`) {
		t.Errorf("info: %s, %v", raw, err)
	}
}

// A question a task asks carries the task's id (taskId beside the standard
// members of window/showMessageRequest) to a client that declared it takes
// it (experimental.agentls.questionTaskId), so an editor says which of its
// tasks needs the user without guessing from the question's text; a
// client that did not declare it (Eglot 1.9 refuses a request with a
// member it does not know) gets the standard members only.
func TestQuestionsNameTheirTask(t *testing.T) {
	for _, declared := range []bool{true, false} {
		root := tempRoot(t, nil)
		b, _ := json.Marshal(map[string]string{"command": "echo hi"})
		e, _ := serveSessionWith(t, root, map[string]any{"tools": map[string]any{"approval": "always-ask"}}, func(p *protocol.InitializeParams) {
			if declared {
				p.Capabilities.Experimental = protocol.LSPAny(`{"agentls":{"questionTaskId":true}}`)
			}
		}, fakellm.Turn{ToolCalls: []fakellm.ToolCall{{ID: "c1", Name: "run_command", Arguments: string(b)}}}, fakellm.Turn{Text: "ran"})
		var run runResult
		if err := e.command("agentls.run", map[string]any{"task": "t"}, &run); err != nil || run.TaskID == "" {
			t.Fatalf("agentls.run: %+v, %v", run, err)
		}
		q := e.waitFor("the question", func(m sent) bool { return m.method == protocol.MethodWindowShowMessageRequest })
		var p map[string]any
		if err := json.Unmarshal(q.params, &p); err != nil || !strings.Contains(p["message"].(string), "echo hi") {
			t.Fatalf("the question %s (%v)", q.params, err)
		}
		id, has := p["taskId"]
		switch {
		case declared && id != run.TaskID:
			t.Errorf("declared: the question %s names task %v; want %q", q.params, id, run.TaskID)
		case !declared && has:
			t.Errorf("not declared: the question %s carries a taskId", q.params)
		}
	}
}

// The trust question a task asks before it runs names the task too, as
// every question a task asks does (it goes out as the asker's do).
func TestTrustQuestionNamesItsTask(t *testing.T) {
	root := tempRoot(t, map[string]string{".agentls.json": `{"tools": {"allow": ["echo *"]}}`})
	e, _ := serveSessionWith(t, root, nil, func(p *protocol.InitializeParams) {
		p.Capabilities.Experimental = protocol.LSPAny(`{"agentls":{"questionTaskId":true}}`)
	}, fakellm.Turn{Text: "done"})
	var run runResult
	if err := e.command("agentls.run", map[string]any{"task": "t"}, &run); err != nil || run.TaskID == "" {
		t.Fatalf("agentls.run: %+v, %v", run, err)
	}
	q := e.waitFor("the trust question", func(m sent) bool {
		return m.method == protocol.MethodWindowShowMessageRequest && strings.Contains(string(m.params), "Trust it?")
	})
	var p map[string]any
	if err := json.Unmarshal(q.params, &p); err != nil {
		t.Fatal(err)
	}
	if p["taskId"] != run.TaskID {
		t.Errorf("the trust question %s names task %v; want %q", q.params, p["taskId"], run.TaskID)
	}
}
