package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const brokenThenFixed = `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"greet.go\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"greet.go\",\"old_string\":\"Hello %s\\\", name)\",\"new_string\":\"Hello, %s!\\\", nme)\"}"}]},
 {"text":"Done."},
 {"expect":{"lastUserContains":"undefined: nme"},
  "toolCalls":[{"id":"c2r","name":"read_file","arguments":"{\"path\":\"greet.go\"}"},{"id":"c2","name":"edit_file","arguments":"{\"path\":\"greet.go\",\"old_string\":\"\\treturn fmt.Sprintf(\\\"Hello, %s!\\\", nme)\",\"new_string\":\"\\tif name == \\\"\\\" {\\n\\t\\tname = \\\"world\\\"\\n\\t}\\n\\treturn fmt.Sprintf(\\\"Hello, %s!\\\", name)\"}"}]},
 {"text":"Fixed the typo and the empty-name case."}]}`

func verifySettings() map[string]any {
	return map[string]any{"verify": map[string]any{"enabled": true, "commands": []string{"go build ./...", "go test ./..."}}}
}

// diagsFor returns the last diagnostics published for a URI.
func (s *session) diagsFor(u string) ([]protocol.Diagnostic, bool) {
	var last []protocol.Diagnostic
	found := false
	for _, n := range s.Notes(protocol.MethodTextDocumentPublishDiagnostics) {
		var p protocol.PublishDiagnosticsParams
		raw := map[string]json.RawMessage{}
		_ = json.Unmarshal(n.Params, &raw)
		if string(raw["diagnostics"]) == "null" {
			panic("diagnostics sent as null")
		}
		if err := protocol.Unmarshal(n.Params, &p); err == nil && string(p.URI) == u {
			last, found = p.Diagnostics, true
		}
	}
	return last, found
}

func TestVerifyFailureBecomesDiagnosticsThenClears(t *testing.T) {
	s := start(t, setup{workspace: "demo", script: brokenThenFixed, settings: verifySettings(),
		files: map[string]string{"other.go": "package greet\n\nconst Other = 1\n"}})
	if err := s.Open(s.ctx, "greet.go"); err != nil {
		t.Fatal(err)
	}
	// The user's unrelated unsaved buffer: never written to disk.
	if err := s.Open(s.ctx, "other.go", "package greet\n\nconst Other = 2 // unsaved, half-typed +\n"); err != nil {
		t.Fatal(err)
	}
	id, err := s.Run(s.ctx, map[string]any{"task": "make the test pass"})
	if err != nil {
		t.Fatal(err)
	}
	u := s.URI("greet.go")
	// During the task: diagnostics appear at the broken line.
	if !s.WaitFor(60*time.Second, func() bool { d, _ := s.diagsFor(u); return len(d) > 0 }) {
		t.Fatalf("no diagnostics for greet.go; notes: %d", len(s.Notes("")))
	}
	d, _ := s.diagsFor(u)
	if d[0].Range.Start.Line != 7 || !strings.Contains(string(d[0].Message.(protocol.String)), "undefined: nme") {
		t.Errorf("diagnostic %+v, want line 8 undefined: nme", d[0])
	}
	if src, _ := d[0].Source.Get(); src != "agentls" {
		t.Errorf("source %q", src)
	}
	r, err := s.Wait(s.ctx, id, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "ok" || !r.Verified {
		t.Fatalf("status %q verified %v: %s %s", r.Status, r.Verified, r.Error, r.Summary)
	}
	// The compiler output reached the model.
	reqs := s.LLM.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[2].Body.Messages
	fb := msgs[len(msgs)-1]
	if fb.Role != "user" || !strings.Contains(fb.Content, "greet.go:8") || !strings.Contains(fb.Content, "undefined: nme") {
		t.Errorf("feedback to the model: %q", fb.Content)
	}
	// Passing checks cleared the diagnostics with an empty list.
	if d, found := s.diagsFor(u); !found || len(d) != 0 {
		t.Errorf("diagnostics not cleared: %v", d)
	}
	got, _ := s.Text("greet.go")
	if !strings.Contains(got, `name = "world"`) {
		t.Errorf("buffer %q", got)
	}
	for _, f := range []string{"greet.go", "other.go"} {
		disk, _ := os.ReadFile(filepath.Join(s.Root, f))
		if strings.Contains(string(disk), "nme") || strings.Contains(string(disk), "unsaved") || strings.Contains(string(disk), "world") {
			t.Errorf("%s written to disk: %q", f, disk)
		}
	}
	// Verify events carried the outcome.
	var verdicts []bool
	for _, ev := range s.Events(id) {
		if ev["kind"] == "verify" {
			verdicts = append(verdicts, ev["verify"].(map[string]any)["passed"].(bool))
		}
	}
	if len(verdicts) != 2 || verdicts[0] || !verdicts[1] {
		t.Errorf("verify verdicts %v, want [false true]", verdicts)
	}
}

func TestVerifyRetriesExhausted(t *testing.T) {
	settings := verifySettings()
	settings["agent"] = map[string]any{"maxRetries": 1}
	s := start(t, setup{workspace: "demo", settings: settings, script: `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"greet.go\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"greet.go\",\"old_string\":\"name)\",\"new_string\":\"nme)\"}"}]},
 {"text":"Done."},
 {"expect":{"lastUserContains":"undefined: nme"},"text":"I cannot fix it."}]}`})
	if err := s.Open(s.ctx, "greet.go"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "break it"})
	if r.Status != "ok" || r.Verified || r.Reason != "verifyFailed" {
		t.Fatalf("status %q verified %v reason %q", r.Status, r.Verified, r.Reason)
	}
	if !strings.Contains(r.Summary, "go build") {
		t.Errorf("summary lacks the failure: %q", r.Summary)
	}
	if d, _ := s.diagsFor(s.URI("greet.go")); len(d) == 0 {
		t.Error("diagnostics should remain after a failed verification")
	}
}

func TestVerifyCommandAndQuickFix(t *testing.T) {
	s := start(t, setup{workspace: "demo", settings: verifySettings(), script: "hello.json"})
	if err := s.Open(s.ctx, "greet.go"); err != nil {
		t.Fatal(err)
	}
	var res struct{ TaskID string }
	if err := s.Command(s.ctx, "agentls.verify", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	r, err := s.Wait(s.ctx, res.TaskID, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The demo workspace's test fails as shipped.
	if r.Verified || r.Reason != "verifyFailed" {
		t.Fatalf("verify-only task: %+v", r)
	}
	d, _ := s.diagsFor(s.URI("greet_test.go"))
	if len(d) == 0 {
		t.Fatal("no diagnostics for the failing test")
	}
	acts, err := s.Server.CodeAction(s.ctx, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(s.URI("greet_test.go"))},
		Range:        d[0].Range,
		Context:      protocol.CodeActionContext{Diagnostics: d},
	})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, a := range acts {
		if ca, ok := a.(*protocol.CodeAction); ok {
			titles = append(titles, ca.Title)
		}
	}
	if len(titles) < 2 || !strings.HasPrefix(titles[0], "Fix with agentls") || !strings.Contains(strings.Join(titles, "|"), "Fix all agentls problems") {
		t.Errorf("code actions %q", titles)
	}
	// "Fix with agentls" anywhere on the problem's line: at column 0 and
	// past the end of the diagnostic's columns, as gopls offers its fixes.
	line := d[0].Range.Start.Line
	for _, ch := range []uint32{0, d[0].Range.End.Character + 1} {
		if line == d[0].Range.End.Line && ch >= d[0].Range.Start.Character && ch <= d[0].Range.End.Character {
			continue
		}
		at := protocol.Position{Line: line, Character: ch}
		acts, err := s.Server.CodeAction(s.ctx, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(s.URI("greet_test.go"))},
			Range:        protocol.Range{Start: at, End: at},
		})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, a := range acts {
			if ca, ok := a.(*protocol.CodeAction); ok && strings.HasPrefix(ca.Title, "Fix with agentls") {
				found = true
			}
		}
		if !found {
			t.Errorf("no \"Fix with agentls\" at %d:%d, outside the diagnostic's columns %v", line, ch, d[0].Range)
		}
	}
}

// Cancelling a task during a long verify command kills its whole process
// tree.
func TestCancelDuringVerifyKillsTree(t *testing.T) {
	marker := fmt.Sprintf("%d.%03d", 40+time.Now().Nanosecond()%50, time.Now().Nanosecond()%1000)
	s := start(t, setup{workspace: "hello", script: "hello.json", settings: map[string]any{
		"verify": map[string]any{"enabled": true, "commands": []string{"sleep " + marker + " & sleep " + marker + "; wait"}}}})
	var res struct{ TaskID string }
	if err := s.Command(s.ctx, "agentls.verify", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	running := func() int {
		n := 0
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "sleep\x00"+marker) {
				n++
			}
		}
		return n
	}
	if !s.WaitFor(10*time.Second, func() bool { return running() >= 2 }) {
		t.Fatal("the verify command never started")
	}
	began := time.Now()
	if err := s.Command(s.ctx, "agentls.cancel", map[string]any{"taskId": res.TaskID}, nil); err != nil {
		t.Fatal(err)
	}
	// The deadline catches processes left behind; how fast they go is
	// logged, not asserted.
	if !s.WaitFor(10*time.Second, func() bool { return running() == 0 }) {
		t.Fatalf("%d processes of the verify command still alive 10 s after cancel", running())
	}
	t.Logf("process tree gone %s after cancel", time.Since(began).Round(time.Millisecond))
	if r, err := s.Wait(s.ctx, res.TaskID, 5*time.Second); err != nil || r.Status != "cancelled" {
		t.Fatalf("%+v %v", r, err)
	}
}

// The checks know the baseline: a failure that was there before the task
// (here the user's half-typed, unsaved line in the file the task edits)
// does not fail the task's verification, is labelled as there before, and
// sends the model back to nothing; a second error the task adds in the
// same file fails it, and the model is told only of its own.
func TestVerifyBaselineKnowsTheUsersUnfinishedLine(t *testing.T) {
	settings := map[string]any{"verify": map[string]any{"enabled": true, "commands": []string{"go build ./..."}}, "agent": map[string]any{"maxRetries": 1}}
	s := start(t, setup{workspace: "demo", settings: settings, script: `{"turns":[
 {"toolCalls":[{"id":"r1","name":"read_file","arguments":"{\"path\":\"greet.go\"}"}]},
 {"toolCalls":[{"id":"c1","name":"edit_file","arguments":"{\"path\":\"greet.go\",\"old_string\":\"Hello %s\",\"new_string\":\"Hello, %s\"}"}]},
 {"text":"Added the comma."},
 {"toolCalls":[{"id":"r2","name":"read_file","arguments":"{\"path\":\"greet.go\"}"}]},
 {"toolCalls":[{"id":"c2","name":"edit_file","arguments":"{\"path\":\"greet.go\",\"old_string\":\"// Greeting returns\",\"new_string\":\"func Other() { y := * }\\n\\n// Greeting returns\"}"}]},
 {"text":"Added a function."},
 {"expect":{"lastUserContains":"There before this task"},"text":"I see my error."}]}`})
	unfinished := "// Package greet says hello.\npackage greet\n\nimport \"fmt\"\n\n// Greeting returns the greeting for name.\nfunc Greeting(name string) string {\n\treturn fmt.Sprintf(\"Hello %s\", name)\n}\n\nfunc Half() { x := / }\n"
	if err := s.Open(s.ctx, "greet.go", unfinished); err != nil {
		t.Fatal(err)
	}
	id, err := s.Run(s.ctx, map[string]any{"task": "add a comma"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Wait(s.ctx, id, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "ok" || !r.Verified {
		t.Fatalf("the task whose only failure is the user's line: status %q verified %v reason %q: %s", r.Status, r.Verified, r.Reason, r.Summary)
	}
	checkSaidThereBefore(t, s, id)
	if d, _ := s.diagsFor(s.URI("greet.go")); len(d) != 1 || !strings.HasSuffix(string(d[0].Message.(protocol.String)), "(there before this task)") || d[0].Severity != protocol.DiagnosticSeverityInformation {
		t.Errorf("the editor's diagnostics for the user's line: %+v, want one, labelled, as information", d)
	}
	if n := len(s.LLM.Requests()); n != 3 {
		t.Errorf("%d model requests: the pre-existing failure sent the model back", n)
	}

	r = s.run(t, map[string]any{"task": "add a variable"})
	if r.Verified || r.Reason != "verifyFailed" {
		t.Fatalf("the task that added an error of its own: verified %v reason %q: %s", r.Verified, r.Reason, r.Summary)
	}
	checkOwnErrorApart(t, s)
}

// The baseline holds for a worktree task too: its snapshot carries the
// user's half-typed, unsaved line, and the task is not blamed for it; a
// later worktree task that adds an error of its own in the same file does
// not verify, and hears of its own error apart from the user's.
func TestVerifyBaselineInAWorktreeSnapshot(t *testing.T) {
	settings := map[string]any{
		"verify": map[string]any{"enabled": true, "commands": []string{"go build ./..."}},
		"agent":  map[string]any{"maxRetries": 1, "isolation": "worktree"},
	}
	s := start(t, setup{workspace: "demo", settings: settings, script: `{"turns":[
 {"toolCalls":[{"id":"r1","name":"read_file","arguments":"{\"path\":\"greet.go\"}"}]},
 {"toolCalls":[{"id":"c1","name":"edit_file","arguments":"{\"path\":\"greet.go\",\"old_string\":\"Hello %s\",\"new_string\":\"Hello, %s\"}"}]},
 {"text":"Added the comma."},
 {"toolCalls":[{"id":"r2","name":"read_file","arguments":"{\"path\":\"greet.go\"}"}]},
 {"toolCalls":[{"id":"c2","name":"edit_file","arguments":"{\"path\":\"greet.go\",\"old_string\":\"// Greeting returns\",\"new_string\":\"func Other() { y := * }\\n\\n// Greeting returns\"}"}]},
 {"text":"Added a function."},
 {"expect":{"lastUserContains":"There before this task"},"text":"I see my error."}]}`})
	commitAll(t, s.Root)
	unfinished := "// Package greet says hello.\npackage greet\n\nimport \"fmt\"\n\n// Greeting returns the greeting for name.\nfunc Greeting(name string) string {\n\treturn fmt.Sprintf(\"Hello %s\", name)\n}\n\nfunc Half() { x := / }\n"
	if err := s.Open(s.ctx, "greet.go", unfinished); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "add a comma"})
	if r.Status != "ok" || !r.Verified {
		t.Fatalf("the worktree task whose only failure is the user's line: status %q verified %v reason %q: %s", r.Status, r.Verified, r.Reason, r.Summary)
	}
	checkSaidThereBefore(t, s, r.TaskID)
	if n := len(s.LLM.Requests()); n != 3 {
		t.Errorf("%d model requests: the pre-existing failure sent the model back", n)
	}
	if got, _ := s.Text("greet.go"); got != unfinished {
		t.Errorf("the worktree task changed the user's buffer:\n%s", got)
	}

	r = s.run(t, map[string]any{"task": "add a variable"})
	if r.Verified || r.Reason != "verifyFailed" {
		t.Fatalf("the worktree task that added an error of its own: verified %v reason %q: %s", r.Verified, r.Reason, r.Summary)
	}
	checkOwnErrorApart(t, s)
}

// checkSaidThereBefore: the task's verify report says the user's line
// (greet.go:11) failed before the task.
func checkSaidThereBefore(t *testing.T, s *session, id string) {
	t.Helper()
	var summary string
	for _, ev := range s.Events(id) {
		if ev["kind"] == "verify" {
			summary = ev["verify"].(map[string]any)["summary"].(string)
		}
	}
	if !strings.Contains(summary, "there before this task") || !strings.Contains(summary, "greet.go:11") {
		t.Errorf("verify summary %q does not say the failure at greet.go:11 was there before", summary)
	}
}

// checkOwnErrorApart: the model's last feedback names the task's own
// error (greet.go:6) first and the user's line (greet.go:13) apart.
func checkOwnErrorApart(t *testing.T, s *session) {
	t.Helper()
	reqs := s.LLM.Requests()
	fb := reqs[len(reqs)-1].Body.Messages
	last := fb[len(fb)-1].Content
	own, before, _ := strings.Cut(last, "There before this task")
	if !strings.Contains(own, "greet.go:6") || strings.Contains(own, "greet.go:13") || !strings.Contains(before, "greet.go:13") {
		t.Errorf("feedback: the task's own error (greet.go:6) first, the user's line (greet.go:13) apart as there before:\n%s", last)
	}
}
