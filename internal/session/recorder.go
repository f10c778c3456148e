package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/edits"
)

// Begin says which task starts.
type Begin struct {
	// Session to continue; "" starts a new one.
	Session string
	// Create makes Session a new session when it does not exist yet, for
	// callers that hand out the ID before the task starts (the server
	// answers agentls.run at once); take it from Store.NewID.
	Create bool
	// TaskID is the caller's name for the task (the server's "t3"); ""
	// takes "t" and the task's number in the session.
	TaskID string
	Prompt string
	Model  string
}

// Recorder records one running task: its conversation (as a
// driver.Driver.OnConversation), its transcript (feed Event from the driver's
// OnEvent) and its end. A nil *Recorder does nothing, so a caller whose store
// failed can use one without checks.
//
// Write failures never stop the task: the first is reported through
// Options.Warn, later records are dropped and Err returns it.
type Recorder struct {
	store      *Store
	session    string
	id         string
	seq        int
	prompt     string
	history    []agent.Message
	transcript *Transcript
	fresh      bool // Begin started the session: nothing else is in its file

	mu  sync.Mutex
	log *appender
	gs  *groupSync      // fsyncs log off the task's path
	cur []agent.Message // the conversation as the file has it
	// curOwned: cur is this task's own copy, reused from turn to turn
	curOwned bool
	err      error
	end      bool
	track    tracker // file changes for the next checkpoint
	// lastUsage is the last model request's usage, kept with the result.
	lastUsage *agent.Usage
}

// Change is one file a task changed.
type Change struct {
	Path    string `json:"path"` // workspace-relative, '/'-separated
	Created bool   `json:"created,omitempty"`
	// Diff is a unified diff from the text before the task to the text
	// after it.
	Diff string `json:"diff"`
}

// NewChange describes the change of path from before (existed false: a new
// file) to after.
func NewChange(path string, before []byte, existed bool, after []byte) Change {
	a := "a/" + path
	if !existed {
		a = "/dev/null"
	}
	return Change{Path: path, Created: !existed, Diff: edits.Unified(a, "b/"+path, string(before), string(after), -1)}
}

// Begin starts a task in session b.Session, or in a new session. The
// returned task's History is the session's conversation so far. An unknown
// session is an error wrapping ErrNotFound.
func (s *Store) Begin(b Begin) (*Recorder, error) {
	id := b.Session
	var prev *Session
	if id != "" {
		var err error
		prev, err = s.Load(id)
		switch {
		case errors.Is(err, ErrNotFound) && b.Create && ValidID(id):
			prev = nil
		case err != nil:
			return nil, err
		}
	} else {
		id = s.NewID()
	}
	if prev != nil {
		for _, w := range prev.Warnings {
			s.opts.Warn(w)
		}
	}
	t := &Recorder{store: s, session: id, seq: 1, prompt: b.Prompt, fresh: prev == nil}
	if prev != nil {
		for _, tr := range prev.Tasks {
			t.seq = max(t.seq, tr.Seq+1)
		}
		t.history = prev.Messages
		t.track.touched = map[string]bool{}
		for _, cp := range prev.steps.list {
			t.track.step = max(t.track.step, cp.Step)
		}
		for path := range prev.steps.first {
			t.track.touched[path] = true
		}
	}
	t.cur = t.history
	t.id = b.TaskID
	if t.id == "" {
		t.id = fmt.Sprintf("t%d", t.seq)
	}
	log, err := openAppend(s.sessionPath(id), s.opts.Redact)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	t.log = log
	now := s.opts.Now()
	var recs []any
	if prev == nil {
		recs = append(recs, record{Type: "session", Time: now, ID: id, Workspace: s.root})
	}
	tr, terr := createTranscript(s.transcriptsDir(), fmt.Sprintf("%s-%d", id, t.seq), s.opts.Redact)
	if terr != nil {
		s.opts.Warn(fmt.Sprintf("transcript: %v", terr))
	} else {
		t.transcript = tr
		tr.header(t.id, id, s.root, b.Model, b.Prompt, now)
	}
	recs = append(recs, record{Type: "task", Time: now, Seq: t.seq, TaskID: t.id, Prompt: b.Prompt, Model: b.Model, Transcript: t.TranscriptPath()})
	// The records are on file once written (a killed process loses
	// nothing); the fsync for a power loss runs off the task's path, while
	// the first request goes out, like every later one (groupsync.go).
	if err := log.append(recs...); err != nil {
		log.close()
		t.transcript.Close()
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	t.gs = newGroupSync(log.f, s.opts.Warn)
	_ = t.gs.kick()
	return t, nil
}

// Session is the task's session ID.
func (t *Recorder) Session() string {
	if t == nil {
		return ""
	}
	return t.session
}

// ID is the task's ID.
func (t *Recorder) ID() string {
	if t == nil {
		return ""
	}
	return t.id
}

// Seq is the task's number in its session, from 1.
func (t *Recorder) Seq() int {
	if t == nil {
		return 0
	}
	return t.seq
}

// History is the session's conversation before this task, for
// driver.Assignment.History.
func (t *Recorder) History() []agent.Message {
	if t == nil {
		return nil
	}
	return t.history
}

// TranscriptPath is the task's Markdown transcript, "" if there is none.
func (t *Recorder) TranscriptPath() string {
	if t == nil || t.transcript == nil {
		return ""
	}
	return t.transcript.Path()
}

// Err is the first write error, if any.
func (t *Recorder) Err() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Conversation is a driver.Driver.OnConversation: it appends the messages
// that are new since the last call and syncs the file. When the driver
// compacted the history, the whole conversation is written again as one
// reset record.
func (t *Recorder) Conversation(_ context.Context, msgs []agent.Message) {
	if t == nil || len(msgs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.log == nil || t.end {
		return
	}
	var recs []any
	if len(msgs) >= len(t.cur) && sameMessages(msgs[:len(t.cur)], t.cur) {
		// An image is recorded as its note ("[image: name, 123 KB]"),
		// never its data: a session file holds text.
		for _, m := range agent.WithoutImages(msgs[len(t.cur):]) {
			recs = append(recs, record{Type: "message", Seq: t.seq, Message: &m})
		}
	} else {
		recs = append(recs, record{Type: "reset", Time: t.store.opts.Now(), Seq: t.seq, Messages: agent.WithoutImages(msgs)})
	}
	recs = append(recs, t.checkpoint(msgs)...)
	if len(recs) == 0 {
		return
	}
	if t.curOwned {
		t.cur = append(t.cur[:0], msgs...)
	} else { // t.cur is History, which the caller holds too
		t.cur, t.curOwned = append([]agent.Message(nil), msgs...), true
	}
	t.write(recs...)
}

// sameMessages runs on every turn over the whole conversation, so it
// compares fields directly (reflect.DeepEqual was a few per cent of a
// turn's CPU): strings that share their bytes, as the driver's history
// does, compare in constant time. A nil and an empty ToolCalls are alike,
// as they are in the file.
func sameMessages(a, b []agent.Message) bool {
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Role != y.Role || x.Content != y.Content || x.ToolCallID != y.ToolCallID || x.Name != y.Name ||
			len(x.ToolCalls) != len(y.ToolCalls) || len(x.Reasoning) != len(y.Reasoning) ||
			!slices.Equal(x.Images, y.Images) {
			return false
		}
		for j := range x.Reasoning {
			if !bytes.Equal(x.Reasoning[j], y.Reasoning[j]) {
				return false
			}
		}
		for j := range x.ToolCalls {
			if x.ToolCalls[j] != y.ToolCalls[j] {
				return false
			}
		}
	}
	return true
}

// write appends and has the file synced (grouped, see groupSync); the
// caller holds t.mu.
func (t *Recorder) write(recs ...any) {
	if t.err != nil {
		return
	}
	err := t.log.append(recs...)
	if err == nil {
		err = t.gs.kick()
	}
	if err != nil {
		t.err = fmt.Errorf("session %s: %w", t.session, err)
		t.store.opts.Warn(fmt.Sprintf("%v; the task goes on without saving its session", t.err))
	}
}

// Event feeds the transcript; call it from the driver's OnEvent.
func (t *Recorder) Event(ev agent.Event) {
	if t == nil {
		return
	}
	if ev.Kind == agent.KindUsage && ev.Usage != nil {
		t.mu.Lock()
		u := *ev.Usage
		t.lastUsage = &u
		t.mu.Unlock()
	}
	if t.transcript == nil {
		return
	}
	t.transcript.Event(ev)
}

// End records the result and the changes that landed, remembers a finished
// (not cancelled) task in the workspace memory, and closes the files. It
// returns the first error the task met; later calls do nothing.
func (t *Recorder) End(res agent.Result, changes []Change) error {
	if t == nil {
		return nil
	}
	// Only what landed is recorded and remembered: the result's files
	// are the changes given, not what the agent proposed (a dry run, files
	// rejected in a review, edits the editor refused).
	res.FilesChanged = make([]string, 0, len(changes))
	for _, c := range changes {
		res.FilesChanged = append(res.FilesChanged, c.Path)
	}
	t.mu.Lock()
	if t.end {
		t.mu.Unlock()
		return t.err
	}
	t.end = true
	now := t.store.opts.Now()
	recs := t.checkpoint(t.cur)
	for i := range changes {
		recs = append(recs, record{Type: "change", Seq: t.seq, Change: &changes[i]})
	}
	recs = append(recs, record{Type: "result", Time: now, Seq: t.seq, Result: &res, LastUsage: t.lastUsage})
	t.write(recs...)
	if err := t.gs.close(); err != nil && t.err == nil {
		t.err = fmt.Errorf("session %s: %w", t.session, err)
	}
	if err := t.log.close(); err != nil && t.err == nil {
		t.err = err
	}
	err := t.err
	t.mu.Unlock()

	if t.transcript != nil {
		t.transcript.end(res, changes)
		if cerr := t.transcript.Close(); cerr != nil {
			t.store.opts.Warn(fmt.Sprintf("transcript: %v", cerr))
		}
	}
	if m := t.store.mem; m != nil && !res.Cancelled && !NeverReachedModel(res) {
		if merr := m.Add(MemoryEntry{Time: now, Session: t.session, Task: t.id, Prompt: t.prompt, Summary: Summarize(t.prompt, res)}); merr != nil {
			t.store.opts.Warn(fmt.Sprintf("memory: %v", merr))
		}
	}
	return err
}
