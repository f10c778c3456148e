package lsp

import (
	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/render"
)

// statusWord is how a result's status reads to a person (render.EndWord):
// a task whose checks still fail ended "ok" for the machine but is never
// plain "ok", a cancel is "cancelled by you", a stop at a limit names it.
func statusWord(res agent.Result) string {
	return render.EndWord(res)
}
