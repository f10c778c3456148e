package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// Hooks in the shared format (issue 40), written to what Claude Code's
// hooks reference documents, as facts:
//   - the payload on stdin has hook_event_name, session_id, cwd, and for
//     tool events tool_name and tool_input (tool_use_id too); PostToolUse
//     adds tool_response, Stop stop_hook_active;
//   - exit code 2 blocks, with stderr as the reason the model reads;
//   - a PreToolUse JSON answer's hookSpecificOutput.updatedInput replaces
//     the tool's input; permissionDecision "deny" blocks;
//   - a PostToolUse answer's hookSpecificOutput.additionalContext reaches
//     the model;
//   - a Stop hook's exit 2 (or decision "block") sends the agent back to
//     work, and the next Stop payload says stop_hook_active: true;
//   - hooks live in .claude/settings.json as {"hooks": {"Event":
//     [{"matcher": "Bash", "hooks": [{"type": "command", "command": …}]}]}},
//     and Codex reads the same format from .codex/hooks.json.

// hookWorkspace is the hello workspace with a .claude/settings.json of
// these hooks and the scripts under .claude/hooks.
func hookWorkspace(t *testing.T, settings map[string]any, scripts map[string]string) string {
	t.Helper()
	dir := copyWorkspace(t, "hello")
	files := map[string]string{}
	b, _ := json.Marshal(map[string]any{"hooks": settings})
	files[".claude/settings.json"] = string(b)
	for name, body := range scripts {
		files[".claude/hooks/"+name] = body
	}
	for rel, body := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func hook(matcher, command string) []map[string]any {
	g := map[string]any{"hooks": []map[string]any{{"type": "command", "command": command, "timeout": 30}}}
	if matcher != "" {
		g["matcher"] = matcher
	}
	return []map[string]any{g}
}

// payloads reads the JSON payloads a hook logged, one a line.
func payloads(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hook left no log: %v", err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("payload %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// logAndBlockRm logs its payload and blocks any rm with exit code 2.
const logAndBlockRm = `in=$(cat)
printf '%s\n' "$in" >> "$CLAUDE_PROJECT_DIR/pre.log"
case "$in" in
*'"command":"rm '*) echo "rm is not allowed in this repository; use git clean" >&2; exit 2 ;;
esac
exit 0
`

func TestPreToolUseHookBlocksRm(t *testing.T) {
	dir := hookWorkspace(t, map[string]any{"PreToolUse": hook("Bash", "sh .claude/hooks/pre.sh")}, map[string]string{"pre.sh": logAndBlockRm})
	if err := os.WriteFile(filepath.Join(dir, "victim.txt"), []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "rm -f victim.txt"}}}},
		turn{text: "I will not remove it.", expect: map[string]string{"lastToolContains": "rm is not allowed in this repository"}},
	)
	out, code := headless(t, dir, script, "--trust", "clean up")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "victim.txt")); err != nil {
		t.Errorf("the blocked rm ran: %v", err)
	}
	ps := payloads(t, filepath.Join(dir, "pre.log"))
	p := ps[0]
	in, _ := p["tool_input"].(map[string]any)
	if p["hook_event_name"] != "PreToolUse" || p["tool_name"] != "Bash" || in["command"] != "rm -f victim.txt" ||
		p["cwd"] != dir || p["session_id"] == "" || p["session_id"] == nil || p["tool_use_id"] != "c1" {
		t.Errorf("payload %v", p)
	}
}

func TestPreToolUseHookRewritesTheCommand(t *testing.T) {
	rewrite := `in=$(cat)
case "$in" in
*'"command":"echo original"'*) printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten by the hook"}}}' ;;
esac
`
	dir := hookWorkspace(t, map[string]any{"PreToolUse": hook("Bash", "sh .claude/hooks/rewrite.sh")}, map[string]string{"rewrite.sh": rewrite})
	script := scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "echo original"}}}},
		turn{text: "Done.", expect: map[string]string{"lastToolContains": "rewritten by the hook"}},
	)
	if out, code := headless(t, dir, script, "--trust", "say it"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// A formatter after edits: the hook finds the file in tool_input's
// file_path (absolute), formats it, and tells the model through
// additionalContext.
func TestPostToolUseHookFormats(t *testing.T) {
	format := `in=$(cat)
printf '%s\n' "$in" >> "$CLAUDE_PROJECT_DIR/post.log"
f=$(printf '%s' "$in" | sed -n 's/.*"file_path":"\([^"]*\)".*/\1/p')
[ -n "$f" ] || exit 0
sed -i 's/[[:space:]]*$//' "$f"
printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted %s"}}' "$(basename "$f")"
`
	dir := hookWorkspace(t, map[string]any{"PostToolUse": hook("Edit|Write", "sh .claude/hooks/format.sh")}, map[string]string{"format.sh": format})
	script := scriptOf(
		turn{calls: [][2]any{{"write_file", map[string]any{"path": "new.txt", "content": "one   \ntwo\t\n"}}}},
		turn{text: "Written.", expect: map[string]string{"lastToolContains": "formatted new.txt"}},
	)
	if out, code := headless(t, dir, script, "--trust", "write it"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "new.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("new.txt = %q, want the formatted text", b)
	}
	p := payloads(t, filepath.Join(dir, "post.log"))[0]
	in, _ := p["tool_input"].(map[string]any)
	resp, _ := p["tool_response"].(map[string]any)
	if p["hook_event_name"] != "PostToolUse" || p["tool_name"] != "Write" || in["file_path"] != filepath.Join(dir, "new.txt") || resp == nil {
		t.Errorf("payload %v", p)
	}
}

// A Stop hook sends the agent back once: exit 2 while stop_hook_active is
// false, then it lets it stop.
func TestStopHookSendsTheAgentBackOnce(t *testing.T) {
	stop := `in=$(cat)
printf '%s\n' "$in" >> "$CLAUDE_PROJECT_DIR/stop.log"
case "$in" in
*'"stop_hook_active":false'*) echo "run the tests before you stop" >&2; exit 2 ;;
esac
exit 0
`
	dir := hookWorkspace(t, map[string]any{"Stop": hook("", "sh .claude/hooks/stop.sh")}, map[string]string{"stop.sh": stop})
	script := scriptOf(
		turn{text: "All done."},
		turn{text: "Tests pass; done now.", expect: map[string]string{"lastUserContains": "run the tests before you stop"}},
	)
	out, code := headless(t, dir, script, "--trust", "finish")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	ps := payloads(t, filepath.Join(dir, "stop.log"))
	if len(ps) != 2 || ps[0]["hook_event_name"] != "Stop" || ps[0]["stop_hook_active"] != false || ps[1]["stop_hook_active"] != true {
		t.Errorf("Stop payloads %v", ps)
	}
	if !containsAll(out, "a Stop hook sent the model back to work: run the tests before you stop", "Tests pass; done now.") {
		t.Errorf("output:\n%s", out)
	}
}

// The hooks of a workspace nobody trusted do not run: the rm the hook
// would block runs (in the sandbox), and the user is told why.
func TestUntrustedWorkspaceHooksDoNotRun(t *testing.T) {
	dir := hookWorkspace(t, map[string]any{"PreToolUse": hook("Bash", "sh .claude/hooks/pre.sh")}, map[string]string{"pre.sh": logAndBlockRm})
	if err := os.WriteFile(filepath.Join(dir, "victim.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "rm -f victim.txt"}}}},
		turn{text: "Removed."},
	)
	out, code := headless(t, dir, script, "clean up")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "pre.log")); err == nil {
		t.Errorf("an untrusted workspace's hook ran")
	}
	if !containsAll(out, "hooks in .claude/settings.json", "do not run until you trust") {
		t.Errorf("the user was not told why the hooks did not run:\n%s", out)
	}
}

// Codex's hooks file is read the same way.
func TestCodexHooksFile(t *testing.T) {
	dir := copyWorkspace(t, "hello")
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": hook("Bash", "sh .codex/pre.sh")}})
	for rel, body := range map[string]string{".codex/hooks.json": string(b), ".codex/pre.sh": logAndBlockRm, "victim.txt": "x\n"} {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "rm -f victim.txt"}}}},
		turn{text: "Kept.", expect: map[string]string{"lastToolContains": "rm is not allowed"}},
	)
	if out, code := headless(t, dir, script, "--trust", "clean up"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "victim.txt")); err != nil {
		t.Errorf("the blocked rm ran: %v", err)
	}
}

// In the editor, the trust question names the workspace's hook commands;
// answered "Not now" they do not run, trusted they do.
func TestEditorTrustQuestionNamesTheHooks(t *testing.T) {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": hook("Bash", "sh .claude/hooks/pre.sh")}})
	files := map[string]string{".claude/settings.json": string(b), ".claude/hooks/pre.sh": logAndBlockRm, "victim.txt": "x\n"}
	script := scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "rm -f victim.txt"}}}},
		turn{text: "ok"},
	)
	var questions []string
	answer := func(trust bool) func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		return func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
			if !strings.Contains(p.Message, "Trust it?") {
				return nil
			}
			questions = append(questions, p.Message)
			if trust {
				return &protocol.MessageActionItem{Title: "Trust this file"}
			}
			return &protocol.MessageActionItem{Title: "Not now"}
		}
	}
	s := start(t, setup{script: script, files: files})
	s.OnShowMessageRequest = answer(false)
	s.run(t, map[string]any{"task": "clean"})
	if len(questions) != 1 || !containsAll(questions[0], ".claude/settings.json runs these hooks", "PreToolUse (Bash): sh .claude/hooks/pre.sh") {
		t.Fatalf("trust questions %q", questions)
	}
	if fileExists(filepath.Join(s.Root, "pre.log")) || fileExists(filepath.Join(s.Root, "victim.txt")) {
		t.Errorf("an untrusted hook ran, or the rm it would block did not")
	}

	questions = nil
	s = start(t, setup{script: scriptOf(
		turn{calls: [][2]any{{"run_command", map[string]any{"command": "rm -f victim.txt"}}}},
		turn{text: "kept", expect: map[string]string{"lastToolContains": "rm is not allowed"}},
	), files: files})
	s.OnShowMessageRequest = answer(true)
	if r := s.run(t, map[string]any{"task": "clean"}); r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if len(questions) != 1 || !fileExists(filepath.Join(s.Root, "victim.txt")) {
		t.Errorf("trusted: %d questions, victim kept %v", len(questions), fileExists(filepath.Join(s.Root, "victim.txt")))
	}
}

// SessionStart's output and UserPromptSubmit's additionalContext join the
// model's context; UserPromptSubmit's exit 2 stops the task before it
// reaches the model.
func TestPromptAndSessionHooks(t *testing.T) {
	prompt := `in=$(cat)
case "$in" in
*'deploy to prod'*) echo "prompts about prod deploys go through the release process" >&2; exit 2 ;;
esac
printf '%s' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ticket ABC-123 is open"}}'
`
	dir := hookWorkspace(t, map[string]any{
		"SessionStart":     hook("", "echo 'on-call: Ada'"),
		"UserPromptSubmit": hook("", "sh .claude/hooks/prompt.sh"),
	}, map[string]string{"prompt.sh": prompt})
	llm, base := startModel(t, scriptOf(turn{text: "Noted."}))
	if out, code := runHeadless(t, dir, base, "--trust", "fix the bug"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	all, _ := json.Marshal(llm.Requests()[0].Body.Messages)
	if !containsAll(string(all), "on-call: Ada", "ticket ABC-123 is open") {
		t.Errorf("the hooks' context is not in the request: %s", all)
	}

	llm, base = startModel(t, "")
	out, code := runHeadless(t, dir, base, "--trust", "deploy to prod")
	if code == 0 || len(llm.Requests()) != 0 || !containsAll(out, "a UserPromptSubmit hook blocked the prompt: prompts about prod deploys go through the release process") {
		t.Errorf("exit %d, %d requests\n%s", code, len(llm.Requests()), out)
	}
}

// A hook that fails for want of network is asked about as a command is
// (the sandbox has none); the user's no leaves it failed, a non-blocking
// failure.
func TestHookLeavingTheSandboxIsAsked(t *testing.T) {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PostToolUse": hook("", "curl -sS --max-time 10 http://example.com/ >/dev/null")}})
	s := start(t, setup{workspace: "hello", files: map[string]string{".claude/settings.json": string(b)}, script: scriptOf(
		turn{calls: [][2]any{{"read_file", map[string]any{"path": "hello.txt"}}}},
		turn{text: "done"},
	)})
	var asked []string
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		if strings.Contains(p.Message, "Trust it?") {
			return &protocol.MessageActionItem{Title: "Trust this file"}
		}
		return &p.Actions[len(p.Actions)-1] // no
	}
	if r := s.run(t, map[string]any{"task": "read"}); r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if len(asked) != 2 || !strings.Contains(asked[1], "failed without network") || !strings.Contains(asked[1], "curl") {
		t.Errorf("asked %q; want the trust question, then the network question about the hook", asked)
	}
}

// Hooks from agentls's own settings (here the editor's) are the user's:
// they run without a trust question.
func TestHooksFromAgentlsSettings(t *testing.T) {
	blockRm := `grep -q '"command":"rm ' && { echo 'rm is not allowed by your settings' >&2; exit 2; }; exit 0`
	s := start(t, setup{workspace: "hello", files: map[string]string{"victim.txt": "x\n"},
		settings: map[string]any{"hooks": map[string]any{"PreToolUse": hook("Bash", blockRm)}},
		script: scriptOf(
			turn{calls: [][2]any{{"run_command", map[string]any{"command": "rm -f victim.txt"}}}},
			turn{text: "kept", expect: map[string]string{"lastToolContains": "rm is not allowed by your settings"}},
		)})
	asked := 0
	s.OnShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem { asked++; return nil }
	if r := s.run(t, map[string]any{"task": "clean"}); r.Status != "ok" {
		t.Fatalf("%+v", r)
	}
	if asked != 0 || !fileExists(filepath.Join(s.Root, "victim.txt")) {
		t.Errorf("asked %d questions; victim kept %v", asked, fileExists(filepath.Join(s.Root, "victim.txt")))
	}
}
