package policy

import (
	"fmt"
	"strings"
)

// CheckToolCall decides whether a call of a tool that runs no shell (an MCP
// tool) may run without asking. call describes it as
// "mcp <server>.<tool> <arguments JSON>"; nothing in it is parsed as a
// command line. A rule without glob characters covers the calls it is a
// prefix of on whole words ("mcp github" every tool of the server github,
// "mcp github.delete_repo" one tool); a rule with * ? or [ is a glob over
// the whole description. Deny wins; "*" in tools.allow allows every call no
// deny rule covers; no matching rule asks.
func (r Rules) CheckToolCall(call string) Decision {
	call = strings.TrimSpace(call)
	for _, rule := range r.Deny {
		if textMatches(rule, call) {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("%s is refused by the tools.deny rule %q", toolOf(call), strings.TrimSpace(rule))}
		}
	}
	for _, rule := range r.Allow {
		if strings.TrimSpace(rule) == "*" || textMatches(rule, call) {
			return Decision{Verdict: Allow}
		}
	}
	tool := toolOf(call)
	return Decision{
		Verdict: Ask,
		Reason:  fmt.Sprintf("no tools.allow rule covers %s; to allow it without asking, add %q to \"tools.allow\" in .agentls.json or the editor's agentls settings, or the tool to its server's \"allow\" list", tool, tool),
		Rule:    tool,
	}
}

// textMatches matches a rule against s as text: a glob over all of it,
// otherwise a prefix ending where a word or the server's name ends.
func textMatches(rule, s string) bool {
	rule = strings.TrimSpace(rule)
	if rule == "" {
		return false
	}
	if isGlob(rule) {
		return WildMatch(rule, s)
	}
	return s == rule || strings.HasPrefix(s, rule+" ") || strings.HasPrefix(s, rule+".")
}

// toolOf is "mcp <server>.<tool>", the description without its arguments.
func toolOf(call string) string {
	f := strings.SplitN(call, " ", 3)
	if len(f) < 2 {
		return call
	}
	return f[0] + " " + f[1]
}
