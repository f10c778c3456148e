package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/tools"
	"github.com/agentls/agentls/internal/verify"
)

// diagSource is the source of every diagnostic agentls publishes.
const diagSource = "agentls"

// diagnostics owns what agentls has published per file. Verification
// failures and review proposals share a file's one publishDiagnostics, so
// both are kept here and always sent together.
type diagnostics struct {
	mu     sync.Mutex
	verify map[string][]protocol.Diagnostic // by URI
	review map[string][]protocol.Diagnostic
	sent   map[string]bool // URIs that currently have diagnostics

	ed   *editor   // publishDiagnostics goes to it
	docs *openDocs // the versions and texts diagnostics are placed in
}

func newDiagnostics(ed *editor, docs *openDocs) *diagnostics {
	return &diagnostics{verify: map[string][]protocol.Diagnostic{}, review: map[string][]protocol.Diagnostic{}, sent: map[string]bool{},
		ed: ed, docs: docs}
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// diagRange maps a tool's 1-based line and byte column to a range: from the
// column (or the line's first non-blank) to the given end or the line's end.
func diagRange(m *edits.Mapper, d verify.Diagnostic, enc edits.Encoding) protocol.Range {
	line := max(d.Line-1, 0)
	startOff, err := m.PositionToOffset(protocol.Position{Line: uint32(line)}, edits.UTF8)
	if err != nil {
		return protocol.Range{}
	}
	endOff, _ := m.PositionToOffset(protocol.Position{Line: uint32(line), Character: 1 << 30}, edits.UTF8)
	text := m.Text()
	s := startOff
	if d.Col > 0 {
		s = min(startOff+d.Col-1, endOff)
	} else {
		for s < endOff && (text[s] == ' ' || text[s] == '\t') {
			s++
		}
	}
	e := endOff
	if d.EndLine > 0 {
		if off, err := m.PositionToOffset(protocol.Position{Line: uint32(d.EndLine - 1), Character: uint32(max(d.EndCol-1, 0))}, edits.UTF8); err == nil && off >= s {
			e = off
		}
	}
	if e <= s && s < len(text) {
		e = s + 1
	}
	return m.OffsetsToRange(s, e, enc)
}

// publish sends the current diagnostics of each URI; a file with none is
// cleared with an empty list, never null.
func (dg *diagnostics) publish(ctx context.Context, uris []string) {
	d := dg
	for _, u := range uris {
		d.mu.Lock()
		list := append(append([]protocol.Diagnostic{}, d.verify[u]...), d.review[u]...)
		if len(list) == 0 && !d.sent[u] {
			d.mu.Unlock()
			continue
		}
		d.sent[u] = len(list) > 0
		d.mu.Unlock()
		p := &protocol.PublishDiagnosticsParams{URI: uri.URI(u), Diagnostics: list}
		if doc, ok := dg.docs.getURI(u); ok {
			p.Version = protocol.NewOptional(doc.version)
		}
		dg.ed.notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, p)
	}
}

// setVerifyDiagnostics replaces all verification diagnostics; files that
// stopped failing are cleared.
func (dg *diagnostics) setVerifyDiagnostics(ctx context.Context, byURI map[string][]protocol.Diagnostic) {
	d := dg
	d.mu.Lock()
	touched := map[string]bool{}
	for u := range d.verify {
		touched[u] = true
	}
	for u := range byURI {
		touched[u] = true
	}
	d.verify = byURI
	d.mu.Unlock()
	dg.publish(ctx, sortedKeys(touched))
}

// toProtocol converts verify diagnostics (1-based lines, byte columns) to
// LSP diagnostics in the negotiated encoding, against the text the user
// sees (the buffer if open, else the disk).
func (dg *diagnostics) toProtocol(ds []verify.Diagnostic) map[string][]protocol.Diagnostic {
	enc := dg.ed.encoding()
	out := map[string][]protocol.Diagnostic{}
	mappers := map[string]*edits.Mapper{}
	for _, d := range ds {
		u := string(uri.File(d.Path))
		if doc, ok := dg.docs.get(d.Path); ok {
			u = doc.uri
		}
		m, ok := mappers[d.Path]
		if !ok {
			if doc, open := dg.docs.get(d.Path); open {
				m = edits.NewMapper(doc.text)
			} else if b, _, err := tools.ReadRegularFile(filepath.Clean(d.Path)); err == nil {
				m = edits.NewMapper(string(b))
			} else {
				m = edits.NewMapper("")
			}
			mappers[d.Path] = m
		}
		pd := protocol.Diagnostic{
			Range:    diagRange(m, d, enc),
			Severity: protocol.DiagnosticSeverity(d.Severity),
			Source:   protocol.NewOptional(diagSource),
			Message:  protocol.String(d.Message),
		}
		if pd.Severity == 0 {
			pd.Severity = protocol.DiagnosticSeverityError
		}
		if d.PreExisting {
			// There before the task (the verify gate's baseline): shown,
			// but as information, not the task's error.
			pd.Message = protocol.String(d.Message + " (there before this task)")
			pd.Severity = protocol.DiagnosticSeverityInformation
		}
		code := d.Source
		if d.Code != "" {
			code = d.Source + " " + d.Code
		}
		if code != "" {
			pd.Code = protocol.String(code)
		}
		out[u] = append(out[u], pd)
	}
	return out
}

// allProblemsTask lists every verification failure as one task.
func (dg *diagnostics) allProblemsTask() string {
	dg.mu.Lock()
	defer dg.mu.Unlock()
	var b strings.Builder
	b.WriteString("Fix these problems reported by the project's checks:\n")
	for _, u := range sortedKeys(keysOf(dg.verify)) {
		for _, d := range dg.verify[u] {
			fmt.Fprintf(&b, "- %s:%d: %s\n", relURI(dg.ed.rootDir(), u), d.Range.Start.Line+1, diagMessage(d))
		}
	}
	return b.String()
}
