package lsp

import "github.com/agentls/agentls/internal/agent"

// statusWord is how a result's status reads to a person: a task whose
// checks still fail ended "ok" for the machine but is never plain "ok".
func statusWord(res agent.Result) string {
	switch {
	case res.Cancelled:
		return "cancelled"
	case res.Outcome != "":
		return res.Outcome
	case res.Reason == "verifyFailed":
		return "done, checks failing"
	}
	return res.Status
}
