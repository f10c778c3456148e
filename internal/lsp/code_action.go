package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

const codeActionKindReview protocol.CodeActionKind = "source.agentls.review"

// codeAction offers, on agentls diagnostics: for a review proposal, accept
// or reject it (quick fixes, found from any position on the proposal's
// lines, where the proposal is in the text now), its file or its task; for a verification failure, a task
// that fixes it, or all of them. Code actions are the one menu every
// editor has, Helix included.
func (s *Server) codeAction(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	u := string(p.TextDocument.URI)
	out := []protocol.CommandOrCodeAction{}
	review := s.reviewer.reviewAt(u, p.Range)
	s.diags.mu.Lock()
	verifyDiags := append([]protocol.Diagnostic(nil), s.diags.verify[u]...)
	anyVerify := 0
	for _, ds := range s.diags.verify {
		anyVerify += len(ds)
	}
	s.diags.mu.Unlock()

	quick := protocol.CodeActionKindQuickFix
	kindReview := codeActionKindReview
	add := func(title string, kind *protocol.CodeActionKind, d []protocol.Diagnostic, cmd string, args any) {
		b, _ := json.Marshal(args)
		out = append(out, &protocol.CodeAction{
			Title: title, Kind: kind, Diagnostics: d,
			Command: protocol.Command{Title: title, Command: cmd, Arguments: []protocol.LSPAny{protocol.LSPAny(b)}},
		})
	}
	seenTask := map[string]bool{}
	for _, d := range review {
		var data struct{ TaskID, Hunk string }
		if json.Unmarshal(d.Data, &data) != nil || data.TaskID == "" {
			continue
		}
		one := []protocol.Diagnostic{d}
		add("Accept this change", &quick, one, "agentls.accept", map[string]string{"taskId": data.TaskID, "uri": u, "hunk": data.Hunk})
		add("Reject this change", &quick, one, "agentls.reject", map[string]string{"taskId": data.TaskID, "uri": u, "hunk": data.Hunk})
		if !seenTask[data.TaskID] {
			seenTask[data.TaskID] = true
			add("Accept all in file", &kindReview, nil, "agentls.accept", map[string]string{"taskId": data.TaskID, "uri": u})
			add("Accept task", &kindReview, nil, "agentls.accept", map[string]string{"taskId": data.TaskID})
			add("Reject task", &kindReview, nil, "agentls.reject", map[string]string{"taskId": data.TaskID})
		}
	}
	for _, d := range verifyDiags {
		// Anywhere on the problem's lines, as other servers' quick fixes
		// ("Add import") are offered: a cursor left of the error's columns
		// is still on it.
		if !linesMeet(d.Range, p.Range) {
			continue
		}
		msg := diagMessage(d)
		rng := d.Range
		add("Fix with agentls: "+shorten(msg, 60), &quick, []protocol.Diagnostic{d}, "agentls.run", map[string]any{
			"task":  fmt.Sprintf("Fix this problem reported by the project's checks at %s line %d: %s", relURI(s.ed.rootDir(), u), d.Range.Start.Line+1, msg),
			"uri":   u,
			"range": rng,
		})
	}
	if anyVerify > 0 && len(verifyDiags) > 0 {
		add(fmt.Sprintf("Fix all agentls problems (%d)", anyVerify), &quick, nil, "agentls.run", map[string]any{"task": s.diags.allProblemsTask()})
	}
	return out, nil
}

func diagMessage(d protocol.Diagnostic) string {
	if m, ok := d.Message.(protocol.String); ok {
		return string(m)
	}
	return ""
}

func relURI(root, u string) string {
	if rel, ok := relTo(root, uriPath(u, "")); ok {
		return rel
	}
	return u
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// linesMeet reports whether two ranges share a line.
func linesMeet(a, b protocol.Range) bool {
	return a.Start.Line <= b.End.Line && b.Start.Line <= a.End.Line
}

// reviewAt returns the review diagnostics of u whose lines meet r's lines,
// computed from the proposals against the text as it is now, so a cursor
// anywhere on a proposal's lines finds it even after the user typed above.
func (r *reviewer) reviewAt(u string, at protocol.Range) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, d := range r.reviewDiagnostics(u) {
		last := d.Range.End.Line
		if d.Range.End.Character == 0 && last > d.Range.Start.Line {
			last--
		}
		if at.End.Line >= d.Range.Start.Line && at.Start.Line <= last {
			out = append(out, d)
		}
	}
	return out
}
