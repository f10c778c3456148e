package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/edits"
)

// overlay holds the editor's open documents, keyed by the client's URI
// string verbatim (a URI converted to a path and back may change its
// escapes), plus an index by file path for the agent's reads.
//
// Updates arrive on the read loop in wire order; readers on task
// goroutines wait for a newer version with waitChange.
type overlay struct {
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
}

func newOverlay() *overlay {
	return &overlay{
		docs:    map[string]*document{},
		byPath:  map[string]string{},
		shadows: map[string]string{},
		changed: make(chan struct{}),
	}
}

// bump wakes waiters; o.mu must be held.
func (o *overlay) bump() {
	close(o.changed)
	o.changed = make(chan struct{})
}

func (o *overlay) open(u string, version int32, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := &document{uri: u, version: version, text: text, path: uriPath(u, "")}
	if d.path != "" {
		d.path = filepath.Clean(d.path)
		o.byPath[d.path] = u
		delete(o.shadows, d.path)
	}
	o.docs[u] = d
	o.bump()
}

func (o *overlay) change(u string, version int32, changes []protocol.TextDocumentContentChangeEvent, enc edits.Encoding) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[u]
	if !ok {
		return fmt.Errorf("didChange for %s, which is not open", u)
	}
	text := d.text
	for i, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = c.Text
		case *protocol.TextDocumentContentChangePartial:
			start, end, err := edits.NewMapper(text).RangeToOffsets(c.Range, enc)
			if err != nil {
				// Keep what we have: a wrong overlay is worse than a stale one.
				return fmt.Errorf("didChange %s v%d change %d: %w", u, version, i, err)
			}
			text = text[:start] + c.Text + text[end:]
		}
	}
	d.text = text
	d.version = version
	o.bump()
	return nil
}

func (o *overlay) close(u string) {
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
func (o *overlay) get(path string) (document, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	u, ok := o.byPath[filepath.Clean(path)]
	if !ok {
		return document{}, false
	}
	return *o.docs[u], true
}

// getURI returns a copy of the open document with that URI.
func (o *overlay) getURI(u string) (document, bool) {
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
func (o *overlay) setShadow(path, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.shadows[filepath.Clean(path)] = text
}

func (o *overlay) shadow(path string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.shadows[filepath.Clean(path)]
	return t, ok
}

// openPaths lists the file paths of open documents.
func (o *overlay) openPaths() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	ps := make([]string, 0, len(o.byPath))
	for p := range o.byPath {
		ps = append(ps, p)
	}
	return ps
}

// waitChange waits until the document at path changes from version (or
// opens or closes), or ctx ends. It reports whether it changed.
func (o *overlay) waitChange(ctx context.Context, path string, version int32) bool {
	for {
		o.mu.Lock()
		u, open := o.byPath[filepath.Clean(path)]
		if !open || o.docs[u].version != version {
			o.mu.Unlock()
			return true
		}
		ch := o.changed
		o.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}
