package lsp

import "strings"

// reviewHint says how to accept or reject a review task's changes in the
// words of the editor the user has (its clientInfo name), rather than the
// server's command names, which only Helix users type.
func reviewHint(client string) string {
	c := strings.ToLower(client)
	switch {
	case strings.Contains(c, "neovim") || c == "nvim":
		return ":AgentDiff to look, :AgentAccept / :AgentReject, or the code actions"
	case strings.Contains(c, "code") || strings.Contains(c, "vscode"):
		return `the diff editors' ✓ / ✗, "agentls: Accept Changes" / "agentls: Reject Changes", or the quick fixes`
	case strings.Contains(c, "agentls.el") || strings.Contains(c, "eglot") || strings.Contains(c, "emacs"):
		return "M-x agentls-review-diff (C-c a d), agentls-accept / agentls-reject (C-c a a / C-c a x), or the code actions"
	case strings.Contains(c, "helix"):
		return "space a on a change, or :lsp-workspace-command agentls.accept / agentls.reject"
	}
	return "code actions, or agentls.accept / agentls.reject"
}
