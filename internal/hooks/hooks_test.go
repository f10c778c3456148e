package hooks

import (
	"encoding/json"
	"strings"
	"testing"
)

// The names of the shared format map to agentls's tools and back, and a
// matcher may use either.
func TestToolNamesBothWays(t *testing.T) {
	for tool, name := range map[string]string{
		"run_command": "Bash", "edit_file": "Edit", "write_file": "Write", "read_file": "Read",
		"grep": "Grep", "list_files": "LS", "apply_patch": "apply_patch", "explore": "Task", "update_plan": "TodoWrite",
		"delete_file": "delete_file", "mcp__fs__read": "mcp__fs__read",
	} {
		if got := ToolName(tool); got != name {
			t.Errorf("ToolName(%s) = %s, want %s", tool, got, name)
		}
		if want := tool; name != tool {
			if got := AgentlsName(name); got != want {
				t.Errorf("AgentlsName(%s) = %s, want %s", name, got, want)
			}
		}
	}
	if AgentlsName("Glob") != "list_files" {
		t.Errorf("Glob does not stand for list_files")
	}
	for _, c := range []struct {
		matcher, tool string
		want          bool
	}{
		{"Bash", "run_command", true}, {"run_command", "run_command", true}, {"Edit|Write", "write_file", true},
		{"Edit|Write", "read_file", false}, {"Glob", "list_files", true}, {"", "grep", true}, {"*", "grep", true},
		{"Bas", "run_command", false}, {"mcp__.*", "mcp__fs__read", true},
	} {
		if got := matches(c.matcher, c.tool); got != c.want {
			t.Errorf("matches(%q, %s) = %v", c.matcher, c.tool, got)
		}
	}
}

// tool_input as the format has it (absolute file_path; Bash's timeout in
// milliseconds), and an updatedInput mapped back to agentls's arguments.
func TestToolInputBothWays(t *testing.T) {
	in := ToolInput("edit_file", "/w", json.RawMessage(`{"path":"a/b.go","old_string":"x","new_string":"y"}`))
	if in["file_path"] != "/w/a/b.go" || in["path"] != nil || in["old_string"] != "x" {
		t.Errorf("edit_file input %v", in)
	}
	back, err := AgentlsInput("edit_file", "/w", map[string]any{"file_path": "/w/a/c.go", "old_string": "x", "new_string": "z"})
	if err != nil || !strings.Contains(string(back), `"path":"a/c.go"`) || strings.Contains(string(back), "file_path") {
		t.Errorf("edit_file back %s %v", back, err)
	}
	in = ToolInput("run_command", "/w", json.RawMessage(`{"command":"ls","timeout_seconds":5}`))
	if in["command"] != "ls" || in["timeout"] != float64(5000) {
		t.Errorf("run_command input %v", in)
	}
	back, _ = AgentlsInput("run_command", "/w", map[string]any{"command": "ls -l", "timeout": float64(7000), "description": "list"})
	if string(back) != `{"command":"ls -l","timeout_seconds":7}` {
		t.Errorf("run_command back %s", back)
	}
}

func TestParse(t *testing.T) {
	c, err := Parse([]byte(`{"permissions":{},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh","timeout":5}]}],"Notification":[{"hooks":[{"type":"command","command":"notify"}]}]}}`))
	if err != nil || len(c[PreToolUse]) != 1 || c[PreToolUse][0].Hooks[0].Timeout != 5 {
		t.Fatalf("%v %v", c, err)
	}
	if d := strings.Join(c.Describe(), "; "); d != "Notification: notify; PreToolUse (Bash): ./check.sh" {
		t.Errorf("Describe: %s", d)
	}
	if c, err := Parse([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"x"},{"type":"command","command":"make test","statusMessage":"testing"}]}]}}`)); err != nil ||
		len(c[Stop]) != 1 || len(c[Stop][0].Hooks) != 1 || c[Stop][0].Hooks[0].Command != "make test" {
		t.Errorf("a prompt hook and an unknown field: %v %v", c, err)
	}
	for _, bad := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"(","hooks":[{"type":"command","command":"x"}]}]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":" "}]}]}}`,
		`{"hooks":`,
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	if c, err := Parse([]byte(`{"permissions":{}}`)); err != nil || c != nil {
		t.Errorf("a settings file without hooks: %v %v", c, err)
	}
}
