package lsp

import (
	"context"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/assemble"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/verify"
)

// gate returns the verify gate of one task (nil for agentls.verify's t),
// or nil when verification is off or there is nothing to check. The checks
// run on the files as the editor has them.
//
// The agent's edits live in the editor's buffers, not on disk yet. The
// checks must see them, and must never write the user's files, so the
// changed files' buffer text goes into a view of the workspace (an
// overlayfs view in the sandbox where it is available, else go's -overlay
// or a copy; see verify.Run); every other file — including the user's
// unrelated unsaved work — is taken from disk and never touched. When no
// changed buffer differs from the disk, the checks run in place. Review
// mode checks what the task proposes, and its failures go to the model
// only: the lines they name are the proposal's, not the editor's.
func (rn *runner) gate(ctx context.Context, cfg config.Config, root string, t *runningTask, prog *progress) *assemble.Gate {
	g := assemble.NewGate(cfg, root)
	if g != nil {
		rn.wireGate(ctx, g, root, t, prog)
	}
	return g
}

// wireGate has the gate report to the editor: progress, the unsaved and
// proposed texts the checks must see, and its problems as diagnostics.
func (rn *runner) wireGate(ctx context.Context, g *assemble.Gate, root string, t *runningTask, prog *progress) {
	review := t != nil && t.review
	g.OnStart = func(cmd string) { prog.report(ctx, "verifying: "+cmd) }
	g.Unsaved = func(changed []string) map[string][]byte {
		unsaved := map[string][]byte{}
		if !review {
			// agentls's view of the workspace, not this task's files
			// only: what an earlier task sent to a file the editor had
			// not opened (a dirty tab in VS Code without autoSave) is
			// text the checks must see too.
			for abs, text := range rn.docs.shadowed() {
				if rel, ok := relTo(root, abs); ok {
					if doc, open := rn.docs.get(abs); open {
						text = doc.text // opened since: the buffer is the truth
					}
					unsaved[rel] = []byte(text)
				}
			}
		}
		for _, rel := range changed {
			abs := root + "/" + rel
			if review {
				if p, ok := t.changes.Proposal(rel); ok {
					unsaved[rel] = []byte(p)
				}
				continue
			}
			if doc, ok := rn.docs.get(abs); ok {
				unsaved[rel] = []byte(doc.text)
			} else if text, ok := rn.docs.shadow(abs); ok {
				unsaved[rel] = []byte(text)
			}
		}
		return unsaved
	}
	g.OnResults = func(ctx context.Context, results []verify.Result) {
		var diags []verify.Diagnostic
		for _, r := range results {
			diags = append(diags, r.Diagnostics...)
			for _, l := range r.Unlocated {
				rn.log.Info("verify output naming no file", zap.String("command", r.Command), zap.String("line", l))
			}
		}
		if !review {
			rn.diags.setVerifyDiagnostics(ctx, rn.diags.toProtocol(diags))
		}
	}
}

// runVerifyOnly is the body of an agentls.verify task: the checks alone,
// with progress and diagnostics, no model.
func (rn *runner) runVerifyOnly(ctx context.Context, t *runningTask) {
	cfg := rn.conf.config()
	root := rn.ed.rootDir()
	prog := rn.beginProgress(ctx, t, "agentls verify", "running the project's checks")
	cfg.Verify.Enabled = true // asked for by name, whatever the gate's setting
	g := rn.gate(ctx, cfg, root, nil, prog)
	if g == nil {
		rn.finishTask(ctx, t, prog, agent.Result{Status: agent.StatusError, Reason: "noChecks",
			Error: "no checks found: set verify.commands, or add go.mod, package.json (test script), Cargo.toml, pyproject.toml or a Makefile with check/test"})
		return
	}
	var changed []string
	for _, p := range rn.docs.openPaths() {
		if rel, ok := relTo(root, p); ok {
			changed = append(changed, rel)
		}
	}
	rep, err := g.Verify(ctx, changed)
	res := agent.Result{Status: agent.StatusOK, Reason: "done", Verified: rep.Passed, Summary: rep.Summary}
	switch {
	case ctx.Err() != nil:
		res = agent.Result{Status: agent.StatusCancelled, Cancelled: true, Reason: "cancelled", Error: "cancelled"}
	case err != nil:
		res = agent.Result{Status: agent.StatusError, Reason: "verify", Error: err.Error()}
	case !rep.Passed:
		res.Reason = "verifyFailed"
	}
	rn.onEvent(ctx, t, prog, agent.Event{Kind: agent.KindVerify, Verify: &rep})
	rn.onEvent(ctx, t, prog, agent.Event{Kind: agent.KindEnd, Result: &res})
	rn.finishTask(ctx, t, prog, res)
}

func (rn *runner) cmdVerify(ctx context.Context, _ noArgs) (any, error) {
	t := &runningTask{prompt: "verify the workspace", verify: true}
	rn.tasks.start(t, rn.runVerifyOnly)
	return runResult{TaskID: t.id, Session: t.session}, nil
}
