package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/agentls/agentls/internal/apply"
	"github.com/agentls/agentls/internal/edits"
	"github.com/agentls/agentls/internal/tools"
)

// confirmWait bounds the wait for the didChange that shows an applied
// edit in the document (Eglot sends it half a second late).
const confirmWait = 2 * time.Second

// confirmGrace is how long a dropped edit's late didChange is waited for
// once the document moved past the edit's version without it.
const confirmGrace = 250 * time.Millisecond

// editorFiles is the language server's transport of the write path
// (apply.Transport): the editor's buffers through workspace/applyEdit,
// the disk where the client cannot apply an edit. It holds exactly its
// collaborators, never the Server.
//
// A file the editor holds goes out as an edit for the version it was
// planned on, and is believed only once the document's own didChange
// shows it: an editor that answers applied but dropped the edit (Neovim
// 0.10 with a stale version) is caught and the change planned again. A
// file it does not hold goes out unversioned, after agentls checked it is
// still the text planned on; what it sent stays in agentls's view (the
// shadows) until the editor opens the file or the disk's text replaces
// it. Every path is checked beneath the root when the change goes out.
type editorFiles struct {
	root   string
	disk   *apply.Disk
	docs   *openDocs
	client protocol.Client
	state  func() (clientCaps, edits.Encoding)
	log    *zap.Logger
	// onDisk tells the user once that agentls writes to disk itself;
	// disagree that the editor's text is not what an edit should leave.
	onDisk   func(ctx context.Context)
	disagree func(ctx context.Context, uri string)
}

func (f *editorFiles) abs(rel string) string { return filepath.Join(f.root, filepath.FromSlash(rel)) }

// Read implements apply.Transport: the buffer the editor holds, else the
// text agentls sent to the closed file, else the disk.
func (f *editorFiles) Read(ctx context.Context, rel string) (apply.Text, error) {
	abs := f.abs(rel)
	if d, ok := f.docs.get(abs); ok {
		return apply.Text{Data: d.text, Exists: true, Held: true, Version: d.version}, nil
	}
	if t, ok := f.docs.shadow(abs); ok {
		return apply.Text{Data: t, Exists: true}, nil
	}
	return f.disk.Read(ctx, rel)
}

// outgoing is one file of an applyEdit in flight.
type outgoing struct {
	c     apply.Change
	abs   string
	uri   string
	from  int32 // the held document's version
	steps int32 // the didChanges the edit may take (one per text edit; set for a held file's edit)
}

// Write implements apply.Transport.
func (f *editorFiles) Write(ctx context.Context, b apply.Batch) error {
	caps, enc := f.state()
	if !caps.applyEdit {
		f.onDisk(ctx)
		return f.toDisk(ctx, b.Changes)
	}
	var (
		we     protocol.WorkspaceEdit
		out    []outgoing
		onDisk []apply.Change
	)
	// A held file's edit names its version, which needs documentChanges;
	// a client that has none gets a plain edit otherwise.
	useDC := caps.documentChanges
	for _, c := range b.Changes {
		useDC = useDC || c.Cur.Held
	}
	annotation := protocol.ChangeAnnotationIdentifier("agentls.review")
	annotate := b.Confirm && caps.changeAnnotations
	textEdit := func(u string, version *int32, tes []protocol.TextEdit) {
		if !useDC {
			if we.Changes == nil {
				we.Changes = map[uri.URI][]protocol.TextEdit{}
			}
			we.Changes[uri.URI(u)] = tes
			return
		}
		els := make([]protocol.TextDocumentEditElement, len(tes))
		for i := range tes {
			if annotate {
				els[i] = &protocol.AnnotatedTextEdit{TextEdit: tes[i], AnnotationID: annotation}
			} else {
				els[i] = &tes[i]
			}
		}
		we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(u)}, Version: version},
			Edits:        els,
		})
	}
	for _, c := range b.Changes {
		// Checked now, when the change goes out: beneath the root (a
		// command may have swapped a directory for a symlink out), and
		// still the text it was planned on.
		if err := tools.Beneath(f.root, c.Rel); err != nil {
			return fmt.Errorf("%w: %v", apply.ErrMoved, err)
		}
		now, err := f.Read(ctx, c.Rel)
		if err != nil {
			return err
		}
		if now.Exists != c.Cur.Exists || now.Data != c.Cur.Data || now.Held != c.Cur.Held || now.Version != c.Cur.Version {
			return apply.ErrStale
		}
		abs := f.abs(c.Rel)
		s := outgoing{c: c, abs: abs, uri: string(uri.File(abs))}
		switch {
		case c.Delete && caps.documentChanges && caps.deleteFiles:
			we.DocumentChanges = append(we.DocumentChanges, &protocol.DeleteFile{Kind: "delete", URI: uri.URI(s.uri)})
		case c.Delete:
			onDisk = append(onDisk, c)
			continue
		case c.Cur.Held:
			d, _ := f.docs.get(abs)
			s.uri, s.from = d.uri, d.version
			v := d.version
			tes := edits.Compute(c.Cur.Data, c.Next, enc)
			s.steps = int32(max(len(tes), 1))
			textEdit(d.uri, &v, tes)
		case c.Cur.Exists:
			textEdit(s.uri, nil, edits.Compute(c.Cur.Data, c.Next, enc))
		case c.Mode != 0:
			// A file made again with its mode and exact bytes (undo or
			// rewind of a command's deletion): only the disk can, and a
			// file that is not there holds no user work.
			onDisk = append(onDisk, c)
			continue
		case caps.createFiles && caps.documentChanges:
			ignore := true
			we.DocumentChanges = append(we.DocumentChanges, &protocol.CreateFile{Kind: "create", URI: uri.URI(s.uri), Options: &protocol.CreateFileOptions{IgnoreIfExists: &ignore}})
			if c.Next != "" {
				textEdit(s.uri, nil, []protocol.TextEdit{{NewText: c.Next}})
			}
		default:
			// The client cannot create files: a new file holds no user
			// work, so writing it ourselves loses nothing.
			f.onDisk(ctx)
			onDisk = append(onDisk, c)
			continue
		}
		out = append(out, s)
	}
	if len(out) > 0 {
		if annotate {
			yes := true
			we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
				annotation: {Label: b.Label, NeedsConfirmation: &yes},
			}
		}
		if err := f.send(ctx, b.Label, we, out); err != nil {
			return err
		}
	}
	return f.toDisk(ctx, onDisk)
}

// send makes one applyEdit and confirms it from the documents.
func (f *editorFiles) send(ctx context.Context, label string, we protocol.WorkspaceEdit, out []outgoing) error {
	for _, s := range out {
		if s.c.Cur.Held && !s.c.Delete {
			f.docs.expectEdit(s.abs, s.from, s.c.Next, int(s.steps))
		}
	}
	res, err := f.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: we})
	if err != nil || !res.Applied {
		stale := false
		// The editor refuses an edit for a version it moved past, and its
		// didChange may still be on the way (VS Code filling a document
		// it just opened): one moment for the batch, not one per file,
		// tells stale from refused.
		wctx, cancel := context.WithTimeout(ctx, confirmGrace)
		defer cancel()
		for _, s := range out {
			if s.c.Cur.Held && !s.c.Delete {
				if err == nil {
					f.docs.waitFor(wctx, s.abs, func(d document) bool { return d.version != s.from })
				}
				f.docs.settle(s.abs, s.from, s.c.Next, false)
				if d, ok := f.docs.get(s.abs); !ok || d.version != s.from {
					stale = true
				}
			}
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return fmt.Errorf("the editor could not apply the change: %s", clientError(err))
		case stale:
			// The user typed meanwhile: the editor refused an edit for an
			// older version, as it should. Planned again.
			return apply.ErrStale
		}
		reason := "no reason given"
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		return &apply.Refused{Reason: reason}
	}
	var lost []string
	for _, s := range out {
		switch {
		case s.c.Delete:
			f.docs.forgetShadow(s.abs)
		case s.c.Cur.Held:
			if f.confirm(ctx, s) == editLost {
				lost = append(lost, s.c.Rel)
			}
		default:
			if d, ok := f.docs.get(s.abs); ok {
				// The editor opened the file to apply the edit: its text
				// is the truth from now on.
				if !present(s.c.Cur.Data, d.text, s.c.Next) {
					lost = append(lost, s.c.Rel)
				}
				continue
			}
			f.docs.setShadow(s.abs, s.c.Next)
		}
	}
	if len(lost) > 0 {
		f.log.Warn("the editor answered applied, but its text does not have the edit", zap.Strings("paths", lost))
		return fmt.Errorf("%w: %s", apply.ErrLost, strings.Join(lost, ", "))
	}
	return nil
}

// editOutcome is what the document's own didChanges say of an edit.
type editOutcome int

const (
	editLanded editOutcome = iota
	editLost               // not in the text, which is otherwise as planned: plan it again
)

// confirm waits for the held document to show the edit: its text is the
// edited text, or has the edit's lines with the user's typing elsewhere.
// An editor that sends no didChange at all within the wait (Eglot can
// be late) is taken at its word, as settle records. Past that, the edit
// is lost when the text lacks it but is otherwise what it was planned on
// (Neovim dropped an edit for an older version). When the user typed on
// or next to the edit's lines, whether it landed cannot be told from the
// text (Neovim sends the edit and the typing after it in one debounced
// didChange, and applies an edit for version 0, which it does not check,
// at its old place): the editor's text goes on, and the user is told if
// it is not what the edit should have left.
func (f *editorFiles) confirm(ctx context.Context, s outgoing) editOutcome {
	landed := func(d document) bool { return d.version != s.from && present(s.c.Cur.Data, d.text, s.c.Next) }
	wctx, cancel := context.WithTimeout(ctx, confirmWait)
	defer cancel()
	// The edit's own didChanges come first; once as many came as it has
	// text edits without it, a late one gets a moment more only (an
	// editor that checks versions cannot apply it after the user's typing).
	f.docs.waitFor(wctx, s.abs, func(d document) bool { return landed(d) || d.version >= s.from+s.steps })
	gctx, gcancel := context.WithTimeout(wctx, confirmGrace)
	defer gcancel()
	ok := f.docs.waitFor(gctx, s.abs, landed)
	disagree := f.docs.settle(s.abs, s.from, s.c.Next, true)
	if ok {
		return editLanded
	}
	d, open := f.docs.get(s.abs)
	switch {
	case !open || d.text == s.c.Next || d.assumed:
		return editLanded
	case d.version == s.from:
		return editLanded // no didChange: settle took the answer
	}
	if l := lineMerge(s.c.Cur.Data, d.text, s.c.Next); len(l.Conflicts) > 0 {
		if disagree {
			f.disagree(ctx, s.uri)
		}
		return editLanded
	}
	return editLost
}

func present(base, text, next string) bool { return apply.Landed(base, text, next) }

func lineMerge(base, text, next string) edits.Merged { return edits.Merge3(base, text, next) }

// toDisk writes changes itself, beneath the root; the disk's text then
// replaces what agentls had sent to those files.
func (f *editorFiles) toDisk(ctx context.Context, cs []apply.Change) error {
	if len(cs) == 0 {
		return nil
	}
	if err := f.disk.Write(ctx, apply.Batch{Changes: cs}); err != nil {
		return err
	}
	for _, c := range cs {
		f.docs.forgetShadow(f.abs(c.Rel))
	}
	return nil
}

// carriedFiles is the transport of the files a command's view carries in
// that the editor does not hold: read as the write path reads them (the
// buffer, what agentls sent to a closed file, the disk) and written beneath
// the root by the disk transport, over that text only. A file the editor
// opened meanwhile, or holds agentls's unsaved text, is not the disk's:
// the change is stale there, and the carry leaves it.
type carriedFiles struct{ *editorFiles }

// Write implements apply.Transport.
func (f carriedFiles) Write(ctx context.Context, b apply.Batch) error {
	for _, c := range b.Changes {
		if c.Cur.Held {
			return apply.ErrStale
		}
	}
	return f.toDisk(ctx, b.Changes)
}

// refusedReason is what a refused batch says, or "".
func refusedReason(err error) (string, bool) {
	var r *apply.Refused
	if errors.As(err, &r) {
		return r.Reason, true
	}
	return "", false
}
