package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/policy"
)

// Approver decides whether run_command may run a command. agentls uses
// assemble.Approver (policy.Rules on the parsed command line, then the
// user); PolicyApprover matches text only and serves MCP tool calls and
// tests. reason is shown to the model when the answer is no.
type Approver interface {
	Approve(ctx context.Context, command string) (ok bool, reason string, err error)
}

type toolCallKey struct{}

// AsToolCall marks ctx for an approval of a tool call that runs no shell
// (an MCP tool: "mcp <server>.<tool> <arguments JSON>"). Its description
// is matched against the rules as words, not parsed as a command line.
func AsToolCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, toolCallKey{}, true)
}

// IsToolCall reports whether ctx was marked by AsToolCall.
func IsToolCall(ctx context.Context) bool {
	v, _ := ctx.Value(toolCallKey{}).(bool)
	return v
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, command string) (bool, string, error)

func (f ApproverFunc) Approve(ctx context.Context, command string) (bool, string, error) {
	return f(ctx, command)
}

// PolicyApprover approves commands by the tools.allow and tools.deny
// settings. A rule without glob characters is a command prefix on word
// boundaries ("go test" allows "go test ./..." but not "go testx"); a rule
// with * ? or [ is a glob over the whole command, where * also matches
// spaces and slashes. "*" alone allows everything.
//
// A command is split at the shell's control operators (; && || | & and
// newlines) and every part must be allowed on its own, so "go test" does not
// also allow "go test && curl … | sh". Command substitution and output
// redirection to files cannot be checked this way; such commands need the
// "*" rule. Deny wins over allow: a deny rule that matches the whole command
// or any part refuses it. No matching rule refuses it too.
type PolicyApprover struct {
	Allow, Deny []string
}

func (p PolicyApprover) Approve(_ context.Context, command string) (bool, string, error) {
	command = strings.TrimSpace(command)
	parts, unsafe := splitCommand(command)
	for _, rule := range p.Deny {
		if ruleMatches(rule, command) {
			return false, fmt.Sprintf("command %q is denied by the tools.deny rule %q", command, rule), nil
		}
		for _, part := range parts {
			if ruleMatches(rule, part) {
				return false, fmt.Sprintf("command %q is denied by the tools.deny rule %q (part %q)", command, rule, part), nil
			}
		}
	}
	for _, rule := range p.Allow {
		if strings.TrimSpace(rule) == "*" {
			return true, "", nil
		}
	}
	if unsafe != "" {
		return false, fmt.Sprintf("command %q contains %s, which tools.allow rules cannot vet; only the rule \"*\" in tools.allow (.agentls.json or the editor's agentls settings) allows it", command, unsafe), nil
	}
	for _, part := range parts {
		allowed := false
		for _, rule := range p.Allow {
			if ruleMatches(rule, part) {
				allowed = true
				break
			}
		}
		if !allowed {
			return false, fmt.Sprintf("command %q is not allowed: no tools.allow rule matches %q. To allow it, add a rule to \"tools.allow\" in .agentls.json or in the editor's agentls settings, e.g. {\"tools\": {\"allow\": [%q]}}", command, part, suggestRule(part)), nil
		}
	}
	return len(parts) > 0, "empty command", nil
}

// ruleMatches matches a rule against cmd as text: a glob over all of it,
// otherwise a prefix on a word boundary.
func ruleMatches(rule, cmd string) bool {
	rule = strings.TrimSpace(rule)
	if rule == "" {
		return false
	}
	if strings.ContainsAny(rule, "*?[") {
		return policy.WildMatch(rule, cmd)
	}
	return cmd == rule || strings.HasPrefix(cmd, rule+" ") || strings.HasPrefix(cmd, rule+"\t")
}

// splitCommand splits a shell command at control operators outside quotes.
// unsafe names a construct that hides another command or writes a file
// (command substitution, redirection to a file); it is empty when the parts
// are all there is to vet.
func splitCommand(cmd string) (parts []string, unsafe string) {
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			parts = append(parts, s)
		}
		cur.Reset()
	}
	rs := []rune(cmd)
	var quote rune
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		next := func(k int) rune {
			if i+k < len(rs) {
				return rs[i+k]
			}
			return 0
		}
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			}
		case r == '\\' && i+1 < len(rs):
			cur.WriteRune(r)
			i++
			r = rs[i]
		case quote == '"':
			if r == '"' {
				quote = 0
			} else if r == '`' || (r == '$' && next(1) == '(') {
				unsafe = "command substitution"
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '`' || (r == '$' && next(1) == '('):
			unsafe = "command substitution"
		case r == '<' && next(1) == '(' || r == '>' && next(1) == '(':
			unsafe = "process substitution"
		case r == '>':
			// 2>&1, >&2 and >/dev/null only move output around.
			rest := strings.TrimLeft(string(rs[i+1:]), "> ")
			if strings.HasPrefix(string(rs[i+1:]), "&") || strings.HasPrefix(rest, "/dev/null") {
				break
			}
			unsafe = "output redirection to a file"
		case r == ';' || r == '\n' || r == '|' || r == '&':
			if r == '&' && i > 0 && (rs[i-1] == '>' || rs[i-1] == '<') {
				break // part of >&
			}
			flush()
			if (r == '|' || r == '&') && next(1) == r {
				i++
			}
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return parts, unsafe
}

// suggestRule proposes an allow rule for a refused command: its program and,
// for tools with subcommands, the subcommand.
func suggestRule(part string) string {
	f := strings.Fields(part)
	if len(f) >= 2 && !strings.HasPrefix(f[1], "-") && !strings.ContainsAny(f[1], "/.=$") {
		return f[0] + " " + f[1]
	}
	if len(f) > 0 {
		return f[0]
	}
	return part
}
