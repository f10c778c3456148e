package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/review"
	"github.com/agentls/agentls/internal/session"
)

// Every task belongs to a session whose conversation, results and changes
// are appended to a JSON-lines file under the state directory, fsynced at
// each turn. A store that cannot be opened or written is reported once and
// the task goes on in memory: persistence never fails a task.

// sessionChanges are the applied changes as the session file keeps them.
func sessionChanges(l *review.Log) []session.Change {
	var out []session.Change
	for _, fc := range l.Applied() {
		out = append(out, session.NewChange(fc.Rel, []byte(fc.Base), fc.Existed, []byte(fc.After)))
	}
	return out
}

func transcriptURI(path string) string {
	if path == "" {
		return ""
	}
	return string(uri.File(path))
}

// cmdContinue runs a task in an existing session, with its history.
func (rn *runner) cmdContinue(ctx context.Context, a runArgs) (any, error) {
	if a.Session == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "agentls.continue: needs {session, task}")
	}
	if !session.ValidID(a.Session) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.continue: %q is not a session id", a.Session)
	}
	if st := rn.conf.openStore(ctx, rn.conf.config(), rn.ed.rootDir()); st != nil {
		if _, err := st.Load(a.Session); errors.Is(err, session.ErrNotFound) && !rn.tasks.hasSession(a.Session) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agentls.continue: no session %q in this workspace (agentls sessions lists them)", a.Session)
		}
	}
	return rn.startRun("agentls.continue", a, true)
}
