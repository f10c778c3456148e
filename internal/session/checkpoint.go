package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/render"
)

// Checkpoints: every model turn of a task that changed files is a step of
// its session, numbered from 1 across the session's tasks. A step's record
// holds the text of each file the turn changed as the turn left it (and,
// for a file the session touches for the first time, its text before), so
// that every file the session changed can be put back as it was at any
// step; the conversation at that point is the session file read up to the
// record. Rewind cuts the conversation there and records the files' texts
// at that step as the session's current state.

// FileState is a file's text at some point; Exists false: there was no
// such file.
type FileState struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Text   string `json:"text,omitempty"`
	// Mode is the file's permission bits where known (a file a command
	// deleted), so a rewind makes it again as it was.
	Mode fs.FileMode `json:"mode,omitempty"`
}

// fileStateJSON is a FileState as the session file keeps it: a text that
// is not UTF-8 (which JSON strings cannot hold) goes as Raw bytes, so a
// rewind puts back the exact bytes.
type fileStateJSON struct {
	Path   string      `json:"path"`
	Exists bool        `json:"exists"`
	Text   string      `json:"text,omitempty"`
	Raw    []byte      `json:"raw,omitempty"`
	Mode   fs.FileMode `json:"mode,omitempty"`
}

// MarshalJSON keeps a text that is not UTF-8 as bytes.
func (f FileState) MarshalJSON() ([]byte, error) {
	j := fileStateJSON{Path: f.Path, Exists: f.Exists, Text: f.Text, Mode: f.Mode}
	if !utf8.ValidString(f.Text) {
		j.Text, j.Raw = "", []byte(f.Text)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (f *FileState) UnmarshalJSON(b []byte) error {
	var j fileStateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = FileState{Path: j.Path, Exists: j.Exists, Text: j.Text, Mode: j.Mode}
	if j.Raw != nil {
		f.Text = string(j.Raw)
	}
	return nil
}

// Checkpoint is one step of a session.
type Checkpoint struct {
	Step    int    `json:"step"`
	Seq     int    `json:"seq"`  // the task's number in the session
	Task    string `json:"task"` // the task's ID
	Summary string `json:"summary"`
	// Files are the files the step changed, as it left them.
	Files []FileState `json:"files"`
	// Before are files first changed in the session at this step, as they
	// were before.
	Before []FileState `json:"before,omitempty"`

	messages []agent.Message      // the conversation at this step
	state    map[string]FileState // every file the session changed so far
}

// rewindRec is a rewind as the session file keeps it.
type rewindRec struct {
	Step  int         `json:"step"`
	Files []FileState `json:"files"` // every file the session changed, as at Step
}

// checkpoints is Load's replay state.
type checkpoints struct {
	list  []Checkpoint
	state map[string]FileState // the session's files as its last step or rewind left them
	first map[string]FileState // each file before the session first changed it
}

func (c *checkpoints) add(cp Checkpoint, msgs []agent.Message) {
	if c.state == nil {
		c.state, c.first = map[string]FileState{}, map[string]FileState{}
	}
	for _, b := range cp.Before {
		if _, ok := c.first[b.Path]; !ok {
			c.first[b.Path] = b
		}
	}
	for _, f := range cp.Files {
		if _, ok := c.first[f.Path]; !ok { // a record without its before: keep what we know
			c.first[f.Path] = FileState{Path: f.Path}
		}
		c.state[f.Path] = f
	}
	cp.messages = msgs[:len(msgs):len(msgs)]
	cp.state = make(map[string]FileState, len(c.state))
	for k, v := range c.state {
		cp.state[k] = v
	}
	c.list = append(c.list, cp)
}

func (c *checkpoints) rewind(r rewindRec) {
	if c.state == nil {
		return
	}
	for _, f := range r.Files {
		c.state[f.Path] = f
	}
}

// StepInfo is a step as a list shows it.
type StepInfo struct {
	Step    int      `json:"step"`
	Task    string   `json:"taskId"`
	Summary string   `json:"summary"`
	Files   []string `json:"files"`
}

func stepInfos(cps []Checkpoint) []StepInfo {
	out := make([]StepInfo, 0, len(cps))
	for _, cp := range cps {
		in := StepInfo{Step: cp.Step, Task: cp.Task, Summary: cp.Summary, Files: make([]string, 0, len(cp.Files))}
		for _, f := range cp.Files {
			in.Files = append(in.Files, f.Path)
		}
		out = append(out, in)
	}
	return out
}

// Steps returns the session's checkpoints, oldest first.
func (s *Session) Steps() []Checkpoint { return s.steps.list }

// RewindFile is one file's part of a rewind: from the text the session
// left it (From) back to its text at the step (To).
type RewindFile struct {
	Path string
	From FileState
	To   FileState
}

// RewindPlan is what rewinding a session to a step does.
type RewindPlan struct {
	Session string
	Step    int
	Files   []RewindFile
	// Messages is the conversation at the step, what a follow-up
	// continues from.
	Messages []agent.Message
}

// PlanRewind plans rewinding the session to step (0: before its first
// step). It changes nothing; Store.Rewound records the rewind once the
// front end applied it.
func (s *Session) PlanRewind(step int) (RewindPlan, error) {
	p := RewindPlan{Session: s.ID, Step: step}
	c := &s.steps
	if len(c.list) == 0 {
		return p, fmt.Errorf("session %s has no steps to rewind to (no task of it changed files)", s.ID)
	}
	var at map[string]FileState
	switch {
	case step == 0:
		p.Messages = s.before(c.list[0].Seq)
	case step < 0 || step > c.list[len(c.list)-1].Step:
		return p, fmt.Errorf("session %s has no step %d (its steps are 1 to %d)", s.ID, step, c.list[len(c.list)-1].Step)
	default:
		for _, cp := range c.list {
			if cp.Step == step {
				at, p.Messages = cp.state, Repair(cp.messages)
			}
		}
	}
	paths := make([]string, 0, len(c.first))
	for path := range c.first {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		to, ok := at[path]
		if !ok {
			to = c.first[path]
		}
		from, ok := c.state[path]
		if !ok {
			from = c.first[path]
		}
		p.Files = append(p.Files, RewindFile{Path: path, From: from, To: to})
	}
	return p, nil
}

// before is the conversation before task seq began (for a rewind to step
// 0): the messages of earlier tasks.
func (s *Session) before(seq int) []agent.Message {
	return s.startOf[seq]
}

// Rewound records that the session was rewound to p.Step: its
// conversation is cut there (a follow-up continues from it) and its files
// are, as far as the session knows, as they were at the step.
func (s *Store) Rewound(p RewindPlan) error {
	log, err := openAppend(s.sessionPath(p.Session), s.opts.Redact)
	if err != nil {
		return fmt.Errorf("session %s: %w", p.Session, err)
	}
	r := rewindRec{Step: p.Step}
	for _, f := range p.Files {
		r.Files = append(r.Files, f.To)
	}
	msgs := p.Messages
	if msgs == nil {
		msgs = []agent.Message{}
	}
	err = log.append(record{Type: "rewind", Time: s.opts.Now(), Messages: msgs, Rewind: &r})
	if err == nil {
		err = log.f.Sync()
	}
	if cerr := log.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("session %s: %w", p.Session, err)
	}
	return nil
}

// tracker collects a task's file changes between two checkpoints.
type tracker struct {
	step    int                  // the last step number used in the session
	touched map[string]bool      // files the session changed before this task or in it
	pending map[string]FileState // changed since the last checkpoint
	before  map[string]FileState // first changes among pending
	order   []string
}

// Changed records that the task changed rel from old (existed: the file
// existed) to next; the next checkpoint holds it. Front ends call it for
// every change that reached the file (not for proposals held for review).
func (t *Recorder) Changed(rel string, old []byte, existed bool, next []byte) {
	t.changed(FileState{Path: rel, Exists: existed, Text: string(old)}, FileState{Path: rel, Exists: true, Text: string(next)})
}

// Deleted records that the task deleted rel, whose text was old and mode
// its permission bits; the next checkpoint holds it, and a rewind to
// before it makes the file again.
func (t *Recorder) Deleted(rel string, old []byte, mode fs.FileMode) {
	t.changed(FileState{Path: rel, Exists: true, Text: string(old), Mode: mode}, FileState{Path: rel})
}

// changed records a change of one file from before to after.
func (t *Recorder) changed(before, after FileState) {
	if t == nil {
		return
	}
	rel := before.Path
	t.mu.Lock()
	defer t.mu.Unlock()
	k := &t.track
	if k.pending == nil {
		k.pending, k.before = map[string]FileState{}, map[string]FileState{}
	}
	if k.touched == nil {
		k.touched = map[string]bool{}
	}
	if !k.touched[rel] {
		k.touched[rel] = true
		k.before[rel] = before
	}
	if _, ok := k.pending[rel]; !ok {
		k.order = append(k.order, rel)
	}
	k.pending[rel] = after
}

// checkpoint writes the pending changes as a step; msgs is the
// conversation now. The caller holds t.mu.
func (t *Recorder) checkpoint(msgs []agent.Message) []any {
	k := &t.track
	if len(k.pending) == 0 {
		return nil
	}
	k.step++
	cp := Checkpoint{Step: k.step, Seq: t.seq, Task: t.id, Summary: turnSummary(msgs)}
	for _, rel := range k.order {
		cp.Files = append(cp.Files, k.pending[rel])
		if b, ok := k.before[rel]; ok {
			cp.Before = append(cp.Before, b)
		}
	}
	k.pending, k.before, k.order = nil, nil, nil
	return []any{record{Type: "checkpoint", Seq: t.seq, Checkpoint: &cp}}
}

// turnSummary sums up the model's last turn: its text, else its calls.
func turnSummary(msgs []agent.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != agent.RoleAssistant {
			continue
		}
		if s := strings.Join(strings.Fields(m.Content), " "); s != "" {
			return clip(s, 200)
		}
		var calls []string
		for j := range m.ToolCalls {
			calls = append(calls, render.CallSummary(&m.ToolCalls[j]))
		}
		return clip(strings.Join(calls, "; "), 200)
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// Track wraps a workspace so that every change that reaches it is
// recorded for the task's checkpoints (see Changed). A nil task returns ws.
func (t *Recorder) Track(ws agent.Workspace) agent.Workspace {
	if t == nil || ws == nil {
		return ws
	}
	// The optional interfaces the tools look for (the editor's open
	// buffers, deleting and moving files, the editor's view for commands)
	// are found through Unwrap (tools.As): a delete, a move or what a
	// command writes is not a checkpoint's text change, and passes
	// through unrecorded.
	return &tracked{Workspace: ws, t: t}
}

type tracked struct {
	agent.Workspace
	t *Recorder
}

// Unwrap is the workspace tracked, for the optional interfaces the
// wrapper does not implement itself (tools.As).
func (w *tracked) Unwrap() agent.Workspace { return w.Workspace }

// Carried records what a command's view wrote into the tree itself (the
// tools' Carrier), as a change of the step: rewind covers it.
func (w *tracked) Carried(rel string, old []byte, existed bool, next []byte) {
	w.t.Changed(rel, old, existed, next)
}

// CarriedDelete records a file a command's view deleted, as a change of
// the step: rewind makes it again.
func (w *tracked) CarriedDelete(rel string, old []byte, mode fs.FileMode) {
	w.t.Deleted(rel, old, mode)
}

func (w *tracked) Edit(ctx context.Context, rel string, transform func(old []byte, exists bool) ([]byte, error)) error {
	// The workspace may call transform again on a newer text; the last
	// call is the change that landed.
	var (
		old, next []byte
		existed   bool
		called    bool
	)
	err := w.Workspace.Edit(ctx, rel, func(o []byte, ex bool) ([]byte, error) {
		n, err := transform(o, ex)
		if err == nil {
			old, existed, next, called = append([]byte(nil), o...), ex, append([]byte(nil), n...), true
		}
		return n, err
	})
	if err == nil && called && (!existed || string(old) != string(next)) {
		w.t.Changed(rel, old, existed, next)
	}
	return err
}
