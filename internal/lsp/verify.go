package lsp

import (
	"github.com/agentls/agentls/internal/driver"

	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/config"
	"github.com/agentls/agentls/internal/verify"
)

// gate is the verify gate of one task: it runs the project's checks on the
// files as the editor has them and turns failures into diagnostics.
//
// The agent's edits live in the editor's buffers, not on disk yet. The
// checks must see them, and must never write the user's files, so the
// changed files' buffer text goes into a temporary overlay copy of the
// workspace (verify.NewOverlay); every other file — including the user's
// unrelated unsaved work — is taken from disk and never touched. When no
// changed buffer differs from the disk, the checks run in place.
type gate struct {
	s        *Server
	t        *task // nil for agentls.verify
	root     string
	commands []string
	timeout  time.Duration
	prog     func(msg string)
}

func (s *Server) verifyCommands(cfg config.Config, root string) []string {
	if len(cfg.Verify.Commands) > 0 {
		return cfg.Verify.Commands
	}
	return verify.Detect(root)
}

// verifier returns the gate for a task, or nil when verification is off or
// the workspace has no checks to run.
func (s *Server) verifier(cfg config.Config, root string, t *task, prog *progress, ctx context.Context) driver.Verifier {
	if !cfg.Verify.Enabled {
		return nil
	}
	cmds := s.verifyCommands(cfg, root)
	if len(cmds) == 0 {
		return nil
	}
	return &gate{s: s, t: t, root: root, commands: cmds, timeout: time.Duration(cfg.Verify.TimeoutSeconds) * time.Second,
		prog: func(m string) { prog.report(ctx, m) }}
}

// Verify implements driver.Verifier.
func (g *gate) Verify(ctx context.Context, changed []string) (agent.VerifyReport, error) {
	overlay := map[string][]byte{}
	review := g.t != nil && g.t.review
	for _, rel := range changed {
		abs := g.root + "/" + rel
		if review {
			// Review mode checks what the task proposes.
			if p, ok := g.t.proposal(rel); ok {
				overlay[rel] = []byte(p)
			}
			continue
		}
		if doc, ok := g.s.docs.get(abs); ok {
			overlay[rel] = []byte(doc.text)
		} else if text, ok := g.s.docs.shadow(abs); ok {
			overlay[rel] = []byte(text)
		}
	}
	began := time.Now()
	results, err := verify.Run(ctx, verify.RunOptions{
		Root: g.root, Commands: g.commands, Overlay: overlay, Timeout: g.timeout,
		OnStart: func(cmd string) {
			if g.prog != nil {
				g.prog("verifying: " + cmd)
			}
		},
	})
	if err != nil {
		return agent.VerifyReport{}, err
	}
	rep := report(results, g.commands, time.Since(began))
	var diags []verify.Diagnostic
	for _, r := range results {
		diags = append(diags, r.Diagnostics...)
		for _, l := range r.Unlocated {
			g.s.log.Info("verify output naming no file", zap.String("command", r.Command), zap.String("line", l))
		}
	}
	if !review {
		// In review mode the lines named are those of the proposal, not of
		// the editor's text: the failures go to the model only.
		g.s.setVerifyDiagnostics(ctx, g.s.toProtocol(diags))
	}
	return rep, nil
}

// report summarizes check results for the machine, the user and the model.
func report(results []verify.Result, commands []string, took time.Duration) agent.VerifyReport {
	rep := agent.VerifyReport{Passed: true, Commands: commands}
	var failed []string
	var unlocated []string
	for _, r := range results {
		rep.Problems += len(r.Diagnostics)
		if !r.Passed {
			rep.Passed = false
			what := "failed"
			if r.TimedOut {
				what = "timed out"
			}
			failed = append(failed, fmt.Sprintf("`%s` %s", r.Command, what))
			unlocated = append(unlocated, r.Unlocated...)
		}
	}
	if rep.Passed {
		rep.Summary = fmt.Sprintf("%d check%s passed in %s (%s)", len(results), plural(len(results)), took.Round(time.Millisecond), strings.Join(commands, "; "))
		return rep
	}
	rep.Feedback = verify.Feedback(results, 0)
	rep.Summary = fmt.Sprintf("%s; %d problem%s located", strings.Join(failed, ", "), rep.Problems, plural(rep.Problems))
	if len(unlocated) > 0 {
		n := min(len(unlocated), 5)
		rep.Summary += "; output: " + strings.Join(unlocated[:n], " | ")
	}
	return rep
}

// runVerifyOnly is the body of an agentls.verify task: the checks alone,
// with progress and diagnostics, no model.
func (s *Server) runVerifyOnly(ctx context.Context, t *task) {
	cfg := s.config()
	root := s.rootDir()
	prog := s.beginProgress(ctx, t, "agentls verify", "running the project's checks")
	cmds := s.verifyCommands(cfg, root)
	if len(cmds) == 0 {
		s.finishTask(ctx, t, prog, agent.Result{Status: agent.StatusError, Reason: "noChecks",
			Error: "no checks found: set verify.commands, or add go.mod, package.json (test script), Cargo.toml, pyproject.toml or a Makefile with check/test"})
		return
	}
	g := &gate{s: s, root: root, commands: cmds, timeout: time.Duration(cfg.Verify.TimeoutSeconds) * time.Second,
		prog: func(m string) { prog.report(ctx, m) }}
	var changed []string
	for _, p := range s.docs.openPaths() {
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
	s.onEvent(ctx, t, prog, agent.Event{Kind: agent.KindVerify, Verify: &rep})
	s.onEvent(ctx, t, prog, agent.Event{Kind: agent.KindEnd, Result: &res})
	s.finishTask(ctx, t, prog, res)
}
