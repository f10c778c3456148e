// Package hooks runs hooks in the format Claude Code defined and Codex
// adopted: programs started on a task's events (PreToolUse, PostToolUse,
// UserPromptSubmit, Stop, SessionStart) with a JSON payload on stdin, whose
// exit code and JSON answer can block a tool call, change its input, add
// to its result or to the task's context, or send the agent back to work.
//
// Tool names are mapped both ways (names.go), so a hook written for
// Claude Code's Bash or Edit sees agentls's run_command and edit_file
// under those names and with their input's field names.
//
// Every hook runs through internal/proc, in the task's sandbox, with a
// timeout. What a hook prints reaches the model only as part of what the
// driver sends, which passes the one scrubber. Workspace hook files are
// code the repository brings: whoever reads them (assemble) runs them
// only once the user trusts them. This package imports agent and proc.
package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The events agentls runs hooks on.
const (
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	SessionStart     = "SessionStart"
)

// Events lists them, in the order of a task.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop}

// DefaultTimeout bounds a hook without a timeout of its own (the format's
// default).
const DefaultTimeout = 60 * time.Second

// Handler is one hook: a command (the only type agentls runs).
type Handler struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout,omitempty"` // seconds
}

// Group is a matcher and the hooks it runs. Matcher is a tool name, a
// regular expression over tool names ("Edit|Write"), or "" / "*" for
// every tool; events without tools ignore it.
type Group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Handler `json:"hooks"`
}

// Config is the hooks object of a settings file: event → groups.
type Config map[string][]Group

// Parse reads the hooks of a settings file: the "hooks" object of
// .claude/settings.json or .codex/hooks.json ({"hooks": {...}}); a
// missing one is no hooks. Events agentls does not run are kept (and
// ignored); a hook of another type than "command" is an error.
func Parse(data []byte) (Config, error) {
	var file struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if len(file.Hooks) == 0 || string(file.Hooks) == "null" {
		return nil, nil
	}
	return ParseHooks(file.Hooks)
}

// ParseHooks reads a hooks object itself ({"PreToolUse": [...]}), as the
// hooks setting of agentls holds it. Hooks of other types than "command"
// (a "prompt" hook asks a model) and fields agentls does not use are left
// out; a bad matcher or a command hook without a command is an error.
func ParseHooks(raw json.RawMessage) (Config, error) {
	var all Config
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, fmt.Errorf(`want {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]}: %v`, err)
	}
	c := Config{}
	for ev, groups := range all {
		for _, g := range groups {
			if _, err := compile(g.Matcher); err != nil {
				return nil, fmt.Errorf("%s: matcher %q: %v", ev, g.Matcher, err)
			}
			kept := Group{Matcher: g.Matcher}
			for _, h := range g.Hooks {
				if h.Type != "command" {
					continue
				}
				if strings.TrimSpace(h.Command) == "" {
					return nil, fmt.Errorf("%s: a hook without a command", ev)
				}
				if h.Timeout < 0 {
					return nil, fmt.Errorf("%s: negative timeout", ev)
				}
				kept.Hooks = append(kept.Hooks, h)
			}
			if len(kept.Hooks) > 0 {
				c[ev] = append(c[ev], kept)
			}
		}
	}
	if len(c) == 0 {
		return nil, nil
	}
	return c, nil
}

// Describe lists the commands of c by event, for the trust question:
// "PreToolUse (Bash): ./check.sh".
func (c Config) Describe() []string {
	var out []string
	for _, ev := range keys(c) {
		for _, g := range c[ev] {
			for _, h := range g.Hooks {
				m := ""
				if g.Matcher != "" && g.Matcher != "*" {
					m = " (" + g.Matcher + ")"
				}
				out = append(out, fmt.Sprintf("%s%s: %s", ev, m, h.Command))
			}
		}
	}
	return out
}

func keys(c Config) []string {
	ks := make([]string, 0, len(c))
	for k := range c {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// compile makes a matcher a whole-name regular expression; nil matches
// every tool.
func compile(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + m + ")$")
}

// Source is the hooks of one place, named for the logs and the notes the
// model gets ("agentls settings", ".claude/settings.json").
type Source struct {
	Name  string
	Hooks Config
}
