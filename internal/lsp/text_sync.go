package lsp

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/edits"
)

// openDocs holds the editor's open documents, keyed by the client's URI
// string verbatim (a URI converted to a path and back may change its
// escapes), plus an index by file path for the agent's reads.
//
// Updates arrive on the read loop in wire order; readers on task
// goroutines wait for a newer version with waitFor.
type openDocs struct {
	mu      sync.Mutex
	docs    map[string]*document // by URI
	byPath  map[string]string    // file path → URI
	shadows map[string]string    // path → text we sent to a closed file
	changed chan struct{}        // closed and replaced on every update
}

type document struct {
	uri     string
	path    string // "" for non-file URIs
	version int32
	text    string

	// expect is the text an applyEdit in flight should produce from
	// version expect.from; the didChanges past it are compared with it.
	expect *expectation
	// assumed: the client answered an applyEdit "applied" but sent no
	// didChange for it (Eglot can do this). text and version are then what
	// it should have sent, and confirmed is the last text it did send.
	assumed   bool
	confirmed string
}

// expectation is what one applied edit should turn a document into.
type expectation struct {
	from     int32
	next     string
	steps    int32 // didChanges the edit may take: one per text edit
	seen     bool  // a didChange past from arrived
	mismatch bool  // and the latest of the edit's didChanges is not next
	done     bool  // a didChange left next
}

func newOpenDocs() *openDocs {
	return &openDocs{
		docs:    map[string]*document{},
		byPath:  map[string]string{},
		shadows: map[string]string{},
		changed: make(chan struct{}),
	}
}

// bump wakes waiters; o.mu must be held.
func (o *openDocs) bump() {
	close(o.changed)
	o.changed = make(chan struct{})
}

func (o *openDocs) open(u string, version int32, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := &document{uri: u, version: version, text: text, path: uriPath(u, "")}
	if d.path != "" {
		d.path = filepath.Clean(d.path)
		o.byPath[d.path] = u
		// A file opened with the text agentls sent it (VS Code loads a
		// hidden document for an edit) keeps its mark: the text is
		// agentls's, unsaved, and the checks must see the buffer.
		// Opened with other text (the disk's), the mark goes.
		if t, ok := o.shadows[d.path]; ok && t != text {
			delete(o.shadows, d.path)
		}
	}
	o.docs[u] = d
	o.bump()
}

// change applies a didChange. It reports disagree when the client's text
// turned out to differ from the text an applied edit should have left.
func (o *openDocs) change(u string, version int32, changes []protocol.TextDocumentContentChangeEvent, enc edits.Encoding) (disagree bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[u]
	if !ok {
		return false, fmt.Errorf("didChange for %s, which is not open", u)
	}
	if d.assumed {
		// The client's changes are relative either to the text it last sent
		// (this is the edit's late didChange) or to the edited text (it
		// applied the edit silently and went on). Whichever fits.
		d.assumed = false
		late, errLate := applyChanges(d.confirmed, changes, enc)
		switch {
		case errLate == nil && late == d.text:
		default:
			if on, err := applyChanges(d.text, changes, enc); err == nil {
				late = on
			} else if errLate != nil {
				return false, fmt.Errorf("didChange %s v%d: %w", u, version, err)
			} else {
				disagree = true
			}
		}
		d.text, d.version, d.confirmed = late, version, ""
		o.bump()
		return disagree, nil
	}
	text, err := applyChanges(d.text, changes, enc)
	if err != nil {
		// Keep what we have: a wrong document is worse than a stale one.
		return false, fmt.Errorf("didChange %s v%d: %w", u, version, err)
	}
	// Each of the edit's didChanges updates the comparison: an editor may
	// send one per text edit (Neovim 0.10), and only the last leaves the
	// edited text. Past them, or once the text matched, changes are the
	// user's typing, not the edit.
	if e := d.expect; e != nil && !e.done && version > e.from && version <= e.from+e.steps {
		e.seen, e.mismatch = true, text != e.next
		e.done = !e.mismatch // later didChanges are the user's
	}
	d.text = text
	d.version = version
	o.bump()
	return false, nil
}

// applyChanges applies a didChange's content changes to text.
func applyChanges(text string, changes []protocol.TextDocumentContentChangeEvent, enc edits.Encoding) (string, error) {
	for i, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = c.Text
		case *protocol.TextDocumentContentChangePartial:
			start, end, err := rangeOffsets(text, c.Range, enc)
			if err != nil {
				return "", fmt.Errorf("change %d: %w", i, err)
			}
			text = text[:start] + c.Text + text[end:]
		}
	}
	return text, nil
}

// rangeOffsets is edits.Mapper's RangeToOffsets without indexing every
// line of the document on each keystroke: it finds the two lines by
// scanning for newlines and maps the characters within them. A position
// the mapper would refuse is left to the mapper, for its error.
func rangeOffsets(text string, r protocol.Range, enc edits.Encoding) (int, int, error) {
	start, okStart := lineOffset(text, r.Start, enc)
	end, okEnd := lineOffset(text, r.End, enc)
	if !okStart || !okEnd || end < start {
		return edits.NewMapper(text).RangeToOffsets(r, enc)
	}
	return start, end, nil
}

// lineOffset is the byte offset of p in text, as the mapper computes it
// (a line past the last is the end of the text, a character past the end
// of its line the end of that line); false when p is no valid position.
func lineOffset(text string, p protocol.Position, enc edits.Encoding) (int, bool) {
	from := 0
	for range p.Line {
		i := strings.IndexByte(text[from:], '\n')
		if i < 0 {
			return len(text), true
		}
		from += i + 1
	}
	to := len(text)
	if i := strings.IndexByte(text[from:], '\n'); i >= 0 {
		to = from + i + 1
	}
	off, err := edits.NewMapper(text[from:to]).PositionToOffset(protocol.Position{Character: p.Character}, enc)
	if err != nil {
		return 0, false
	}
	return from + off, true
}

// expectEdit registers the text an edit about to be sent to the open
// document at path should produce from version from.
func (o *openDocs) expectEdit(path string, from int32, next string, textEdits int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if u, ok := o.byPath[filepath.Clean(path)]; ok {
		o.docs[u].expect = &expectation{from: from, next: next, steps: int32(max(textEdits, 1))}
	}
}

// settle ends an expectation once the client answered the edit. applied
// edits whose didChange never came are assumed done: the document takes
// the expected text and the version the client should be at, so checks
// and later edits work on what the agent produced. It reports disagree
// when the client's didChange left another text.
func (o *openDocs) settle(path string, from int32, next string, applied bool) (disagree bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	u, ok := o.byPath[filepath.Clean(path)]
	if !ok {
		return false
	}
	d := o.docs[u]
	e := d.expect
	d.expect = nil
	if !applied || e == nil || e.from != from {
		return false
	}
	if e.seen {
		return e.mismatch
	}
	if d.version == from {
		if !d.assumed {
			d.confirmed = d.text
		}
		d.text, d.version, d.assumed = next, from+1, true
		o.bump()
	}
	return false
}

// didChange is the textDocument/didChange handler.
func (s *Server) didChange(ctx context.Context, p *protocol.DidChangeTextDocumentParams) error {
	u := string(p.TextDocument.URI)
	disagree, err := s.docs.change(u, p.TextDocument.Version, p.ContentChanges, s.ed.encoding())
	if disagree {
		s.conf.sayDisagree(ctx, u)
	}
	if err == nil {
		s.reviewer.touched(ctx, u)
	}
	return err
}

func (o *openDocs) close(u string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d, ok := o.docs[u]; ok {
		if d.path != "" && o.byPath[d.path] == u {
			delete(o.byPath, d.path)
			delete(o.shadows, d.path)
		}
		delete(o.docs, u)
		o.bump()
	}
}

// get returns a copy of the open document at path, if any.
func (o *openDocs) get(path string) (document, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	u, ok := o.byPath[filepath.Clean(path)]
	if !ok {
		return document{}, false
	}
	return *o.docs[u], true
}

// getURI returns a copy of the open document with that URI.
func (o *openDocs) getURI(u string) (document, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[u]
	if !ok {
		return document{}, false
	}
	return *d, true
}

// shadow records text sent to a file the editor had not opened, so the
// agent's next read sees its own edit even before the editor saves it.
func (o *openDocs) setShadow(path, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.shadows[filepath.Clean(path)] = text
}

// shadowed is a copy of every text sent to a closed file, by path.
func (o *openDocs) shadowed() map[string]string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.shadows)
}

func (o *openDocs) shadow(path string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.shadows[filepath.Clean(path)]
	return t, ok
}

// openPaths lists the file paths of open documents.
func (o *openDocs) openPaths() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	ps := make([]string, 0, len(o.byPath))
	for p := range o.byPath {
		ps = append(ps, p)
	}
	return ps
}

// waitFor waits until the document at path satisfies ok (a copy is
// passed, and ok runs without the lock: a three-way check of a big file
// must not hold up the didChanges on the read loop), or it closes, or ctx
// ends; it reports whether ok held.
func (o *openDocs) waitFor(ctx context.Context, path string, ok func(document) bool) bool {
	for {
		o.mu.Lock()
		u, open := o.byPath[filepath.Clean(path)]
		if !open {
			o.mu.Unlock()
			return false
		}
		d := *o.docs[u]
		ch := o.changed
		o.mu.Unlock()
		if ok(d) {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}
