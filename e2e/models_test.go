package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// callsScript builds an inline fakellm script: each turn is a list of tool
// calls (name, arguments as a Go value), then a final text answer.
func callsScript(t *testing.T, turns ...[]call) string {
	t.Helper()
	var out []map[string]any
	for i, calls := range turns {
		var tcs []map[string]any
		for j, c := range calls {
			a, err := json.Marshal(c.args)
			if err != nil {
				t.Fatal(err)
			}
			tcs = append(tcs, map[string]any{"id": "call_" + string(rune('a'+i)) + string(rune('0'+j)), "name": c.name, "arguments": string(a)})
		}
		out = append(out, map[string]any{"toolCalls": tcs})
	}
	out = append(out, map[string]any{"text": "done"})
	b, err := json.Marshal(map[string]any{"turns": out})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type call struct {
	name string
	args any
}

// toolResults returns the content of every tool message the model was
// sent, in order, without repeats.
func (s *session) toolResults() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range s.LLM.Requests() {
		for _, m := range r.Body.Messages {
			if m.Role == "tool" && !seen[m.ToolCallID] {
				seen[m.ToolCallID] = true
				out = append(out, m.Content)
			}
		}
	}
	return out
}

// A line-number prefix pasted from read_file and an indentation drift are
// repaired and the results say so; a syntax error an edit introduces is
// in that edit's result; several edits go in one call.
func TestEditRepairsAndSyntaxErrors(t *testing.T) {
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	script := callsScript(t,
		[]call{{"read_file", map[string]any{"path": "a.go"}}, {"edit_file", map[string]any{"path": "a.go", "old_string": "     3\tfunc A() int {\n     4\t\treturn 1\n", "new_string": "     3\tfunc A() int {\n     4\t\treturn 10\n"}}},
		[]call{{"edit_file", map[string]any{"path": "a.go", "old_string": "func B() int {\n    return 1\n}", "new_string": "func B() int {\n    return 20\n}"}}},
		[]call{{"edit_file", map[string]any{"path": "a.go", "edits": []any{
			map[string]any{"old_string": "return 10", "new_string": "return 11"},
			map[string]any{"old_string": "return 20", "new_string": "return 21 +"},
		}}}},
	)
	s := start(t, setup{files: map[string]string{"a.go": src}, script: script})
	r := s.run(t, map[string]any{"task": "change the numbers"})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	res := s.toolResults()[1:] // after the read
	if len(res) != 3 {
		t.Fatalf("%d tool results: %q", len(res), res)
	}
	for i, want := range []string{
		"repaired: removed the read_file line-number prefix pasted into old_string and new_string",
		"repaired: old_string matched lines that differ only in whitespace",
		"syntax errors in a.go after this edit",
	} {
		if !strings.Contains(res[i], want) {
			t.Errorf("result %d = %q, want it to say %q", i+1, res[i], want)
		}
	}
	got, _ := s.Text("a.go")
	if want := "package a\n\nfunc A() int {\n\treturn 11\n}\n\nfunc B() int {\n\treturn 21 +\n}\n"; got != want {
		t.Errorf("a.go = %q, want %q", got, want)
	}
}

// delete_file and move_file reach an editor with resource operations as
// DeleteFile and RenameFile, which it applies (closing and moving the
// buffer); a protected file is not deleted unasked.
func TestDeleteAndMoveThroughResourceOperations(t *testing.T) {
	script := callsScript(t,
		[]call{{"delete_file", map[string]any{"path": "old.txt"}}, {"move_file", map[string]any{"from": "a.txt", "to": "sub/b.txt"}}},
		[]call{{"delete_file", map[string]any{"path": ".agentls.json"}}},
	)
	caps := lspclient.VSCodeCaps()
	caps.FileOps = true
	s := start(t, setup{caps: &caps, files: map[string]string{"old.txt": "old\n", "a.txt": "alpha\n", ".agentls.json": "{}\n"}, script: script})
	if err := s.Open(s.ctx, "a.txt", "alpha, unsaved\n"); err != nil {
		t.Fatal(err)
	}
	asked := 0
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked++
		return nil // the user dismisses the question
	}
	r := s.run(t, map[string]any{"task": "tidy up"})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	var kinds []string
	for _, e := range s.Edits() {
		for _, dc := range e.Edit.DocumentChanges {
			switch dc.(type) {
			case *protocol.DeleteFile:
				kinds = append(kinds, "delete")
			case *protocol.RenameFile:
				kinds = append(kinds, "rename")
			}
		}
	}
	if strings.Join(kinds, ",") != "delete,rename" {
		t.Errorf("resource operations %v, want delete,rename", kinds)
	}
	for _, rel := range []string{"old.txt", "a.txt"} {
		if _, err := os.Stat(filepath.Join(s.Root, rel)); !os.IsNotExist(err) {
			t.Errorf("%s still exists (%v)", rel, err)
		}
	}
	if got, _ := s.Text("sub/b.txt"); got != "alpha, unsaved\n" {
		t.Errorf("moved buffer = %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.Root, ".agentls.json")); err != nil {
		t.Errorf(".agentls.json was deleted: %v", err)
	}
	res := s.toolResults()
	if len(res) != 3 || res[0] != "deleted old.txt" || res[1] != "moved a.txt to sub/b.txt" || !strings.Contains(res[2], "did not allow") || asked != 1 {
		t.Errorf("results %q, user asked %d times", res, asked)
	}
}

// Headless, delete_file and move_file change the disk, confined to the
// workspace: a move out of it is refused.
func TestDeleteAndMoveHeadless(t *testing.T) {
	script := callsScript(t,
		[]call{{"delete_file", map[string]any{"path": "old.txt"}}, {"move_file", map[string]any{"from": "a.txt", "to": "sub/b.txt"}}},
		[]call{{"move_file", map[string]any{"from": "sub/b.txt", "to": "../escaped.txt"}}},
	)
	_, base := startModel(t, script)
	dir := copyWorkspace(t, "")
	writeTree(t, dir, map[string]string{"old.txt": "old\n", "a.txt": "alpha\n"})
	env := append(cleanEnv(), "AGENTLS_BASE_URL="+base, "AGENTLS_API_KEY=sk-test", "AGENTLS_MODEL=test-model", "XDG_STATE_HOME="+t.TempDir())
	out := runCLI(t, dir, env, "run", "--json", "tidy up")
	if _, err := os.Stat(filepath.Join(dir, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt still exists")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "b.txt")); err != nil || string(b) != "alpha\n" {
		t.Errorf("sub/b.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escaped.txt")); err == nil {
		t.Errorf("a file was moved out of the workspace")
	}
	if !strings.Contains(out, "outside the workspace") {
		t.Errorf("the escape was not refused as outside the workspace:\n%s", out)
	}
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const patchAll = "*** Begin Patch\n" +
	"*** Add File: added.txt\n+new file\n" +
	"*** Update File: a.go\n@@ func B() int {\n-\treturn 1\n+\treturn 2\n" +
	"*** Update File: old.go\n*** Move to: pkg/moved.go\n@@\n-package a\n+package pkg\n" +
	"*** Delete File: gone.txt\n" +
	"*** End Patch"

var patchFiles = map[string]string{
	"a.go":     "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n",
	"old.go":   "package a\n\nconst X = 1\n",
	"gone.txt": "bye\n",
}

// readPatched is the turn that reads the files patchAll updates, as
// read-before-edit (agent.readBeforeEdit) wants.
var readPatched = []call{{"read_file", map[string]any{"path": "a.go"}}, {"read_file", map[string]any{"path": "old.go"}}}

// checkPatched checks the workspace after patchAll, reading through read.
func checkPatched(t *testing.T, read func(rel string) (string, bool)) {
	t.Helper()
	want := map[string]string{
		"added.txt":    "new file\n",
		"a.go":         "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n",
		"pkg/moved.go": "package pkg\n\nconst X = 1\n",
		"old.go":       "",
		"gone.txt":     "",
	}
	for rel, w := range want {
		got, ok := read(rel)
		if w == "" && ok || w != "" && got != w {
			t.Errorf("%s = %q (exists %v), want %q", rel, got, ok, w)
		}
	}
}

// gpt-5-codex is offered apply_patch (not edit_file), and one patch adds,
// updates, moves and deletes through the editor: text edits, a CreateFile,
// a RenameFile and a DeleteFile.
func TestApplyPatchThroughEditor(t *testing.T) {
	script := callsScript(t, readPatched, []call{{"apply_patch", map[string]any{"input": patchAll}}})
	caps := lspclient.VSCodeCaps()
	caps.FileOps = true
	s := start(t, setup{caps: &caps, files: patchFiles, script: script, env: []string{"AGENTLS_MODEL=gpt-5-codex"}})
	r := s.run(t, map[string]any{"task": "refactor"})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	var names []string
	for _, tl := range s.LLM.Requests()[0].Body.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "read_file,list_files,grep,view_image,apply_patch,run_command,update_plan,explore" {
		t.Errorf("tools offered to gpt-5-codex: %s", got)
	}
	kinds := map[string]int{}
	for _, e := range s.Edits() {
		for _, dc := range e.Edit.DocumentChanges {
			kinds[fmt.Sprintf("%T", dc)]++
		}
	}
	for _, k := range []string{"*protocol.CreateFile", "*protocol.RenameFile", "*protocol.DeleteFile", "*protocol.TextDocumentEdit"} {
		if kinds[k] == 0 {
			t.Errorf("no %s among the editor's edits %v", k, kinds)
		}
	}
	checkPatched(t, func(rel string) (string, bool) {
		if txt, ok := s.Text(rel); ok {
			return txt, true
		}
		b, err := os.ReadFile(filepath.Join(s.Root, rel))
		return string(b), err == nil
	})
	if res := s.toolResults(); len(res) != 3 || !strings.Contains(res[2], "moved old.go to pkg/moved.go and updated it") {
		t.Errorf("results %q", res)
	}
}

// The same patch headless, with agent.editTool chosen by setting for a
// model that would otherwise get edit_file.
func TestApplyPatchHeadless(t *testing.T) {
	script := callsScript(t, readPatched, []call{{"apply_patch", map[string]any{"input": patchAll}}})
	llm, base := startModel(t, script)
	dir := copyWorkspace(t, "")
	writeTree(t, dir, patchFiles)
	writeTree(t, dir, map[string]string{".agentls.json": `{"agent": {"editTool": "apply_patch"}}`})
	env := append(cleanEnv(), "AGENTLS_BASE_URL="+base, "AGENTLS_API_KEY=sk-test", "AGENTLS_MODEL=gpt-4.1", "XDG_STATE_HOME="+t.TempDir())
	runCLI(t, dir, env, "run", "--json", "--no-verify", "refactor")
	checkPatched(t, func(rel string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		return string(b), err == nil
	})
	for _, tl := range llm.Requests()[0].Body.Tools {
		if tl.Name == "edit_file" {
			t.Error("edit_file offered although agent.editTool is apply_patch")
		}
	}
}

// The system prompt tells the model the OS, today's date, the directory the
// user is in and that the sandbox has no network; across the turns of a
// task the system prompt and the tools are byte-identical and each request
// starts with the previous one's messages (what prompt caches need). A
// nested AGENTS.md reaches the model with the first read in its subtree.
func TestPromptEnvironmentAndStablePrefix(t *testing.T) {
	script := callsScript(t,
		[]call{{"read_file", map[string]any{"path": "sub/x.txt"}}},
		[]call{{"read_file", map[string]any{"path": "sub/y.txt"}}},
	)
	s := start(t, setup{files: map[string]string{"sub/x.txt": "x\n", "sub/y.txt": "y\n", "sub/AGENTS.md": "Sub rules: never use tabs."}, script: script})
	r := s.run(t, map[string]any{"task": "look", "uri": s.URI("sub/x.txt")})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	reqs := s.LLM.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	sys := reqs[0].Body.Messages[0].Content
	for _, want := range []string{"- OS: " + runtime.GOOS, "- Date: " + time.Now().Format("2006-01-02"), "- The user is in sub/", "no network access", "- Workspace root: " + s.Root} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	tools0, _ := json.Marshal(reqs[0].Body.Tools)
	for _, tl := range reqs[0].Body.Tools {
		if tl.Name == "run_command" {
			for _, want := range []string{"starts afresh in the workspace root", "No network", "head and the tail", "asked about first"} {
				if !strings.Contains(tl.Description, want) {
					t.Errorf("run_command's description lacks %q: %s", want, tl.Description)
				}
			}
		}
	}
	first, _ := json.Marshal(reqs[0].Body)
	t.Logf("first request: %d bytes (tools %d, system prompt %d)", len(first), len(tools0), len(sys))
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1].Body.Messages, reqs[i].Body.Messages
		if len(cur) < len(prev) {
			t.Fatalf("request %d is shorter than the one before", i)
		}
		for j := range prev {
			if !reflect.DeepEqual(prev[j], cur[j]) {
				t.Errorf("request %d: message %d differs from the previous request's", i, j)
			}
		}
		if toolsI, _ := json.Marshal(reqs[i].Body.Tools); string(toolsI) != string(tools0) {
			t.Errorf("request %d: tools differ", i)
		}
	}
	res := s.toolResults()
	if len(res) != 2 || !strings.Contains(res[0], "Sub rules: never use tabs.") || strings.Contains(res[1], "Sub rules") {
		t.Errorf("nested AGENTS.md: results %q", res)
	}
}

// On the Responses API, apply_patch is a custom (freeform) tool, as the
// GPT-5 and Codex models are trained to call it: the patch arrives as free
// text (custom_tool_call), is applied, and goes back as a custom tool
// call and its output on the next request. The tool's format is the patch
// grammar, so the model's sampling is held to the patch language, and every
// request of the session carries the same prompt_cache_key.
func TestApplyPatchFreeformOnResponses(t *testing.T) {
	script := callsScript(t, readPatched, []call{{"apply_patch", map[string]any{"input": patchAll}}})
	caps := lspclient.VSCodeCaps()
	caps.FileOps = true
	s := start(t, setup{caps: &caps, files: patchFiles, script: script, env: []string{"AGENTLS_MODEL=gpt-5-codex"},
		settings: map[string]any{"llm": map[string]any{"api": "responses"}}})
	r := s.run(t, map[string]any{"task": "refactor"})
	if r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	reqs := s.LLM.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	custom, grammar := false, ""
	for _, tl := range reqs[0].Body.Tools {
		if tl.Name == "apply_patch" {
			custom, grammar = tl.Custom, tl.Grammar
		}
	}
	if !custom {
		t.Errorf("apply_patch was not offered as a custom tool: %+v", reqs[0].Body.Tools)
	}
	for _, want := range []string{`"*** Begin Patch"`, `"*** Update File: "`, `"*** Move to: "`, `"@@ "`, `"*** End of File"`, `"*** End Patch"`} {
		if !strings.Contains(grammar, want) {
			t.Errorf("apply_patch's grammar lacks %s:\n%s", want, grammar)
		}
	}
	key := reqs[0].Responses.PromptCacheKey
	if !strings.HasPrefix(key, "agentls-") {
		t.Errorf("prompt_cache_key %q", key)
	}
	for i, r := range reqs {
		if r.Responses.PromptCacheKey != key {
			t.Errorf("request %d: prompt_cache_key %q, the first had %q", i, r.Responses.PromptCacheKey, key)
		}
	}
	var items []string
	for _, it := range reqs[2].Responses.Items {
		if !strings.HasPrefix(it, "message:") {
			items = append(items, it)
		}
	}
	if got := strings.Join(items, " "); got != "function_call:call_a0 function_call:call_a1 function_call_output:call_a0 function_call_output:call_a1 custom_tool_call:call_b0 custom_tool_call_output:call_b0" {
		t.Errorf("second request's items: %s", got)
	}
	checkPatched(t, func(rel string) (string, bool) {
		if txt, ok := s.Text(rel); ok {
			return txt, true
		}
		b, err := os.ReadFile(filepath.Join(s.Root, rel))
		return string(b), err == nil
	})
}

// The first request of a task in a Go module with an uncommitted change
// carries the orientation in its system prompt: the checks agentls runs
// (by kind), git status --short, and the repository map; across the
// task's requests the system prompt is byte-identical (a prompt cache
// keeps working) even though the task changes a file, and the status is
// not refreshed within the task.
func TestOrientationInTheStablePrefix(t *testing.T) {
	root := copyWorkspace(t, "")
	writeTree(t, root, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n", "docs/a.md": "# A\n"})
	commitAll(t, root)
	writeTree(t, root, map[string]string{"main.go": "package main\n\nfunc main() { println() }\n"})
	script := callsScript(t,
		[]call{{"read_file", map[string]any{"path": "main.go"}}},
		[]call{{"write_file", map[string]any{"path": "new.go", "content": "package main\n"}}},
	)
	s := start(t, setup{root: root, script: script, settings: map[string]any{"verify": map[string]any{"enabled": true}}})
	r := s.run(t, map[string]any{"task": "look around"})
	if len(r.FilesChanged) != 1 {
		t.Fatalf("result %+v", r)
	}
	reqs := s.LLM.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	sys := reqs[0].Body.Messages[0].Content
	for _, want := range []string{
		"## Orientation",
		"- Checks agentls runs after your edits (run the relevant ones yourself first): build `go build ./...`; lint `go vet ./...`; test `go test ./...`",
		"- git status --short:\n   M main.go",
		"- Repository map (3 tracked files):",
		"languages: Go 1, Markdown 1",
		"manifests: go.mod",
		"top level: docs/ (1), go.mod, main.go",
	} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	for i := 1; i < len(reqs); i++ {
		if got := reqs[i].Body.Messages[0].Content; got != sys {
			t.Errorf("request %d: the system prompt changed within the task", i)
		}
	}
}

// A model that takes images is offered view_image: it opens a workspace
// image, whose picture reaches the model after the tool results, as a user
// message with the image (the one message the APIs carry images in); a
// model that takes none is not offered the tool.
func TestViewImage(t *testing.T) {
	shot := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
	script := callsScript(t, []call{{"view_image", map[string]any{"path": "out/shot.png"}}})
	s := start(t, setup{files: map[string]string{"out/shot.png": shot}, script: script, env: []string{"AGENTLS_MODEL=gpt-5"}})
	if r := s.run(t, map[string]any{"task": "look at the screenshot"}); r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	reqs := s.LLM.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[1].Body.Messages
	last := msgs[len(msgs)-1]
	if prev := msgs[len(msgs)-2]; prev.Role != "tool" || !strings.Contains(prev.Content, "opened out/shot.png (image/png") {
		t.Errorf("the tool result: %+v", prev)
	}
	if last.Role != "user" || len(last.Images) != 1 || !strings.HasPrefix(last.Images[0], "data:image/png;base64,") || !strings.Contains(last.Content, "out/shot.png") {
		t.Errorf("the image did not follow the tool result: %+v", last)
	}

	// A model agentls knows takes no images is not offered view_image.
	s2 := start(t, setup{script: callsScript(t), env: []string{"AGENTLS_MODEL=llama3"}})
	s2.run(t, map[string]any{"task": "hi"})
	for _, tl := range s2.LLM.Requests()[0].Body.Tools {
		if tl.Name == "view_image" {
			t.Error("view_image offered to llama3")
		}
	}
}

// Read before edit (agent.readBeforeEdit, on by default): an edit of a
// file the model has not read in this task is refused with a message to
// read it, and goes through once it has; a file the prompt mentions whole
// (@path) has been read; the setting off lets the edit through.
func TestReadBeforeEdit(t *testing.T) {
	edit := call{"edit_file", map[string]any{"path": "hello.txt", "old_string": "hello", "new_string": "HELLO"}}
	s := start(t, setup{files: map[string]string{"hello.txt": "hello\n"}, script: callsScript(t,
		[]call{edit}, []call{{"read_file", map[string]any{"path": "hello.txt"}}}, []call{edit})})
	if r := s.run(t, map[string]any{"task": "shout"}); r.Status != "ok" {
		t.Fatalf("status %q, error %q", r.Status, r.Error)
	}
	res := s.toolResults()
	if len(res) != 3 || !strings.Contains(res[0], "hello.txt has not been read in this task: read it with read_file first") || !strings.Contains(res[2], "edited hello.txt") {
		t.Errorf("results %q", res)
	}

	s = start(t, setup{files: map[string]string{"hello.txt": "hello\n"}, script: callsScript(t, []call{edit})})
	s.run(t, map[string]any{"task": "shout @hello.txt"})
	if res := s.toolResults(); len(res) != 1 || !strings.Contains(res[0], "edited hello.txt") {
		t.Errorf("a mentioned file: results %q", res)
	}

	s = start(t, setup{files: map[string]string{"hello.txt": "hello\n"}, script: callsScript(t, []call{edit}),
		settings: map[string]any{"agent": map[string]any{"readBeforeEdit": false}}})
	s.run(t, map[string]any{"task": "shout"})
	if res := s.toolResults(); len(res) != 1 || !strings.Contains(res[0], "edited hello.txt") {
		t.Errorf("agent.readBeforeEdit false: results %q", res)
	}
}
