package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/delegate"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/worktree"
)

// resultFile collects what `agentls run --result FILE` writes: the events
// as --json prints them, and at the end the result, the patch, the
// transcript and the session.
type resultFile struct {
	commit string // HEAD when the run began; "" outside git
	buf    *lockedBuffer
	events *jsonRenderer
	warns  []string
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newResultFile(ctx context.Context, root string, redact func(string) string) *resultFile {
	r := &resultFile{buf: &lockedBuffer{}}
	r.events = &jsonRenderer{w: r.buf, redact: redact}
	if head, err := worktree.Head(ctx, root); err == nil {
		r.commit = head
	} else {
		r.warns = append(r.warns, "no patch: "+err.Error())
	}
	return r
}

// write writes the file: dir is where the task's files are (the workspace,
// or its worktree).
func (r *resultFile) write(ctx context.Context, path, dir, model string, code int, res agent.Result, st *session.Recorder, store *session.Store) error {
	out := delegate.RunResult{Workspace: dir, Model: model, Exit: code, Result: res, Commit: r.commit, Warnings: r.warns}
	if r.commit != "" {
		patch, err := worktree.PatchSince(ctx, dir, r.commit)
		if err != nil {
			out.Warnings = append(out.Warnings, "no patch: "+err.Error())
		}
		out.Patch = patch
	}
	if st != nil {
		out.Session, out.TaskID = st.Session(), st.ID()
		if p := st.TranscriptPath(); p != "" {
			if b, err := os.ReadFile(p); err == nil {
				out.Transcript = string(b)
			}
		}
		if store != nil {
			if b, err := store.Export(st.Session()); err == nil {
				out.Export = b
			} else {
				out.Warnings = append(out.Warnings, "no session export: "+err.Error())
			}
		}
	}
	out.Events = r.buf.String()
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".agentls-result-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// teeRenderer shows everything on two renderers.
type teeRenderer struct{ a, b renderer }

func (t teeRenderer) start(info startInfo) { t.a.start(info); t.b.start(info) }
func (t teeRenderer) event(ev agent.Event) { t.a.event(ev); t.b.event(ev) }
func (t teeRenderer) note(msg string)      { t.a.note(msg); t.b.note(msg) }
func (t teeRenderer) warn(msg string)      { t.a.warn(msg); t.b.warn(msg) }
func (t teeRenderer) close()               { t.a.close(); t.b.close() }
