package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// The model is told the project's AGENTS.md and the editor's file and
// selection.
func TestProjectAndEditorContext(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: "hello.json",
		files: map[string]string{"AGENTS.md": "Always answer in haiku.\n"}})
	if err := s.Open(s.ctx, "hello.txt", "hello world\nsecond line\nthird\n"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "explain", "uri": s.URI("hello.txt"),
		"range": map[string]any{"start": map[string]int{"line": 1, "character": 0}, "end": map[string]int{"line": 2, "character": 0}}})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	msgs := s.LLM.Requests()[0].Body.Messages
	if msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, "Always answer in haiku.") {
		t.Errorf("system prompt lacks AGENTS.md: %q", msgs[0].Content)
	}
	var all strings.Builder
	for _, m := range msgs {
		all.WriteString(m.Content)
	}
	if !strings.Contains(all.String(), "hello.txt") || !strings.Contains(all.String(), "second line") || strings.Contains(all.String(), "third") {
		t.Errorf("editor context missing or wrong: %q", all.String())
	}
	body, _ := json.Marshal(s.LLM.Requests()[0].Body)
	tools, _ := json.Marshal(s.LLM.Requests()[0].Body.Tools)
	t.Logf("system prompt: %d bytes (AGENTS.md included); tool schemas: %d bytes for %d tools; first request: %d bytes",
		len(msgs[0].Content), len(tools), len(s.LLM.Requests()[0].Body.Tools), len(body))
}

// A bad setting is reported once, naming its key, and the server keeps
// working with the next source's value.
func TestBadSettingReportedOnce(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: `{"turns":[{"text":"a"},{"text":"b"}]}`,
		settings: map[string]any{"agent": map[string]any{"maxSteps": "lots"}}})
	for i := 0; i < 2; i++ {
		_ = s.Server.DidChangeConfiguration(s.ctx, &protocol.DidChangeConfigurationParams{
			Settings: protocol.LSPAny(`{"agentls":{"agent":{"maxSteps":"lots"},"verify":{"enabled":false}}}`)})
	}
	r := s.run(t, map[string]any{"task": "x"})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	n := 0
	for _, m := range s.Notes(protocol.MethodWindowShowMessage) {
		var p protocol.ShowMessageParams
		_ = json.Unmarshal(m.Params, &p)
		if strings.Contains(p.Message, "agent.maxSteps") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("bad setting reported %d times, want once", n)
	}
}

// A client without workspace/applyEdit gets files written by agentls
// itself, atomically, and is told so once.
func TestNoApplyEditWritesDisk(t *testing.T) {
	caps := lspclient.VSCodeCaps()
	caps.ApplyEdit = false
	s := start(t, setup{workspace: "hello", caps: &caps, script: `{"turns":[
		{"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"hello.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"hello.txt\",\"old_string\":\"hello\",\"new_string\":\"bye\"}"},
		              {"id":"c2","name":"write_file","arguments":"{\"path\":\"new.txt\",\"content\":\"n\\n\"}"}]},
		{"text":"done"}]}`})
	info, _ := os.Stat(filepath.Join(s.Root, "hello.txt"))
	r := s.run(t, map[string]any{"task": "x"})
	if r.Status != "ok" || len(r.FilesChanged) != 2 {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt"))
	if string(b) != "bye world\nsecond line\n" {
		t.Errorf("disk %q", b)
	}
	if after, _ := os.Stat(filepath.Join(s.Root, "hello.txt")); after.Mode() != info.Mode() {
		t.Errorf("mode changed %v → %v", info.Mode(), after.Mode())
	}
	said := 0
	for _, m := range s.Notes(protocol.MethodWindowShowMessage) {
		if strings.Contains(string(m.Params), "writes these files to disk itself") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("told %d times", said)
	}
}

// An empty didChangeConfiguration (eglot sends one after initialized)
// keeps the settings given in initializationOptions.
func TestEmptySettingsKeepInitializationOptions(t *testing.T) {
	s := start(t, setup{workspace: "hello", script: `{"turns":[{"text":"a"}]}`,
		settings: map[string]any{"llm": map[string]any{"model": "from-init-options"}}})
	_ = s.Server.DidChangeConfiguration(s.ctx, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{}`)})
	if r := s.run(t, map[string]any{"task": "x"}); r.Status != "ok" {
		t.Fatal(r.Error)
	}
	if m := s.LLM.Requests()[0].Body.Model; m != "from-init-options" {
		t.Errorf("model %q: initializationOptions lost", m)
	}
}

// Every cap on what the model is shown cuts whole characters: the project
// file (AGENTS.md, 32 KiB), a mentioned file (64 KiB) and the selection
// (16 KiB) all stop inside an "é" here, one byte after an ASCII "x".
func TestContextCutsWholeCharacters(t *testing.T) {
	long := func(n int) string { return "x" + strings.Repeat("é", n) + "\n" }
	s := start(t, setup{workspace: "hello", script: "hello.json",
		files: map[string]string{"AGENTS.md": long(20000), "big.txt": long(40000)}})
	if err := s.Open(s.ctx, "sel.txt", long(10000)+"end\n"); err != nil {
		t.Fatal(err)
	}
	r := s.run(t, map[string]any{"task": "explain @big.txt", "uri": s.URI("sel.txt"),
		"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 1, "character": 0}}})
	if r.Status != "ok" {
		t.Fatal(r.Error)
	}
	var all strings.Builder
	for _, m := range s.LLM.Requests()[0].Body.Messages {
		all.WriteString(m.Content)
	}
	for _, want := range []string{"[selection truncated]", "big.txt", "xéééé"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the request lacks %q", want)
		}
	}
	if i := strings.IndexRune(all.String(), utf8.RuneError); i >= 0 {
		t.Errorf("half a character reached the model (U+FFFD at %d): …%q…", i, all.String()[max(i-20, 0):min(i+20, all.Len())])
	}
}
