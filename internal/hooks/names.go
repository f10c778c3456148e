package hooks

import (
	"encoding/json"
	"path/filepath"
)

// toolNames maps agentls's tools to the names hooks of the shared format
// know them by (Claude Code's; Codex uses the same for its shell and
// apply_patch). Tools missing here keep their own name: a matcher may name
// either.
var toolNames = map[string]string{
	"run_command": "Bash",
	"edit_file":   "Edit",
	"write_file":  "Write",
	"read_file":   "Read",
	"grep":        "Grep",
	"list_files":  "LS",
	"apply_patch": "apply_patch",
	"explore":     "Task",
	"update_plan": "TodoWrite",
}

// alsoMatches are other names of the format a matcher may use for a tool:
// Claude Code lists files with Glob and LS.
var alsoMatches = map[string][]string{"list_files": {"Glob"}}

// ToolName is the hook-facing name of an agentls tool.
func ToolName(tool string) string {
	if n, ok := toolNames[tool]; ok {
		return n
	}
	return tool
}

// AgentlsName is the agentls tool a hook-facing name stands for ("" when
// it stands for none of agentls's own, such as an MCP tool's name).
func AgentlsName(name string) string {
	for a, h := range toolNames {
		if h == name {
			return a
		}
	}
	for a, hs := range alsoMatches {
		for _, h := range hs {
			if h == name {
				return a
			}
		}
	}
	return ""
}

// names are the names a matcher is tried on for tool.
func names(tool string) []string {
	out := []string{tool}
	if n, ok := toolNames[tool]; ok && n != tool {
		out = append(out, n)
	}
	return append(out, alsoMatches[tool]...)
}

// fileTools take a path that the format calls file_path, absolute.
var fileTools = map[string]bool{"edit_file": true, "write_file": true, "read_file": true}

// ToolInput is a call's arguments as a hook of the format sees them: for
// the file tools, "path" becomes an absolute "file_path"; run_command's
// timeout_seconds is also given as timeout in milliseconds. The other
// fields are as agentls's.
func ToolInput(tool, root string, args json.RawMessage) map[string]any {
	in := map[string]any{}
	if json.Unmarshal(args, &in) != nil || in == nil {
		in = map[string]any{}
	}
	if fileTools[tool] {
		if p, ok := in["path"].(string); ok {
			delete(in, "path")
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, filepath.FromSlash(p))
			}
			in["file_path"] = p
		}
	}
	if tool == "run_command" {
		if s, ok := in["timeout_seconds"].(float64); ok {
			in["timeout"] = s * 1000
		}
	}
	return in
}

// AgentlsInput maps a hook's updatedInput back to the tool's arguments:
// file_path (absolute or not) becomes the workspace-relative path;
// run_command's timeout in milliseconds becomes timeout_seconds; fields
// the tool does not know are left for its own check to refuse.
func AgentlsInput(tool, root string, in map[string]any) (json.RawMessage, error) {
	out := map[string]any{}
	for k, v := range in {
		out[k] = v
	}
	if fileTools[tool] {
		if p, ok := out["file_path"].(string); ok {
			delete(out, "file_path")
			if filepath.IsAbs(p) {
				if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
					p = filepath.ToSlash(rel)
				}
			}
			out["path"] = p
		}
	}
	if tool == "run_command" {
		if ms, ok := out["timeout"].(float64); ok {
			delete(out, "timeout")
			if _, set := out["timeout_seconds"]; !set && ms >= 1000 {
				out["timeout_seconds"] = int(ms / 1000)
			}
		}
		delete(out, "description")
	}
	return json.Marshal(out)
}
