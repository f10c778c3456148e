package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/agent"
)

// Options configures a Store. Zero values take the defaults in brackets.
type Options struct {
	// StateDir is the agentls state directory [StateDir()].
	StateDir string
	// Memory keeps task summaries and recalls them (agent.memory) [off].
	Memory bool
	// Warn receives problems that do not stop a task: a skipped torn line,
	// a failed write [discarded].
	Warn func(msg string)
	// Redact is applied to everything written, to keep API keys out
	// (config.Config.Redact) [nothing redacted].
	Redact func(string) string
	// Now is the clock [time.Now].
	Now func() time.Time
}

// StateDir returns $XDG_STATE_HOME/agentls, or ~/.local/state/agentls when
// the variable is unset or not absolute (as the XDG spec asks).
func StateDir() (string, error) { return StateDirFrom(os.Getenv) }

// StateDirFrom is StateDir with the environment read through getenv.
func StateDirFrom(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentls"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "agentls"), nil
}

// WorkspaceDir is where a workspace's sessions, memory and transcripts live
// under stateDir: the root's base name, for people, and a hash of the
// whole path, so two checkouts named alike never share a directory.
func WorkspaceDir(stateDir, root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	base := strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, filepath.Base(filepath.Clean(root)))
	if len(base) > 40 {
		base = base[:40]
	}
	return filepath.Join(stateDir, "workspaces", base+"-"+hex.EncodeToString(sum[:6]))
}

// Store holds one workspace's sessions, memory and transcripts. Its
// methods may be called from several goroutines.
type Store struct {
	root string
	dir  string
	opts Options
	mem  *Memory
}

// ErrNotFound is wrapped by Begin and Load for an unknown session.
var ErrNotFound = errors.New("no such session")

// Open returns the store of the workspace at root, creating its directory.
func Open(root string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	if opts.StateDir == "" {
		if opts.StateDir, err = StateDir(); err != nil {
			return nil, fmt.Errorf("session store: %w", err)
		}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	s := &Store{root: abs, dir: WorkspaceDir(opts.StateDir, abs), opts: opts}
	for _, d := range []string{s.sessionsDir(), s.transcriptsDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("session store: %w", err)
		}
	}
	if opts.Memory {
		s.mem = &Memory{path: filepath.Join(s.dir, "memory.jsonl"), now: opts.Now, redact: opts.Redact, warn: opts.Warn}
	}
	return s, nil
}

// Dir is the workspace's state directory.
func (s *Store) Dir() string { return s.dir }

// Root is the workspace directory.
func (s *Store) Root() string { return s.root }

// Memory is the workspace's memory, nil when Options.Memory is off (a nil
// Memory recalls nothing).
func (s *Store) Memory() *Memory { return s.mem }

func (s *Store) sessionsDir() string    { return filepath.Join(s.dir, "sessions") }
func (s *Store) transcriptsDir() string { return filepath.Join(s.dir, "transcripts") }

func (s *Store) sessionPath(id string) string { return filepath.Join(s.sessionsDir(), id+".jsonl") }

// ValidID reports whether id can name a session: 1 to 128 ASCII letters,
// digits, dots, dashes and underscores, starting with a letter or digit, and
// no "..", so that it is a safe file name. (Written out rather than as a
// regexp, whose compilation cost every start of the binary.)
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 128 || strings.Contains(id, "..") {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// NewID returns a fresh session ID (see the package function NewID).
func (s *Store) NewID() string { return NewID(s.opts.Now()) }

// NewID returns a fresh session ID: the time, for sorting by eye, and 48
// random bits. Front ends that name a session before its store is open
// (the language server queues tasks by session) use it too, so that two
// processes on one workspace never hand out the same ID: a shared ID would
// continue another editor's conversation.
func NewID(now time.Time) string {
	// The random part need not be secret; math/rand's generator is
	// seeded per process by the runtime, which is what tells two
	// processes apart, and spares a start-up crypto/rand's set-up.
	n := rand.Uint64()
	b := [6]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24), byte(n >> 32), byte(n >> 40)}
	return now.Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// record is one line of a session file. Type says which fields are set.
type record struct {
	Type string    `json:"type"` // session, task, message, reset, change, result
	Time time.Time `json:"time,omitzero"`
	Seq  int       `json:"seq,omitempty"` // the task, 1-based within the session

	// session
	ID        string `json:"id,omitempty"`
	Workspace string `json:"workspace,omitempty"`

	// task
	TaskID     string `json:"taskId,omitempty"`
	Prompt     string `json:"prompt,omitempty"`
	Model      string `json:"model,omitempty"`
	Transcript string `json:"transcript,omitempty"`

	Message  *agent.Message  `json:"message,omitempty"`  // message
	Messages []agent.Message `json:"messages,omitempty"` // reset
	Change   *Change         `json:"change,omitempty"`   // change
	Result   *agent.Result   `json:"result,omitempty"`   // result
	// LastUsage is the usage of the task's last model request (result): the
	// context it filled, which a reloaded session shows again.
	LastUsage *agent.Usage `json:"lastUsage,omitempty"`

	Checkpoint *Checkpoint `json:"checkpoint,omitempty"` // checkpoint
	Rewind     *rewindRec  `json:"rewind,omitempty"`     // rewind (with Messages)
}

// Session is a session file read back.
type Session struct {
	ID        string       `json:"id"`
	Workspace string       `json:"workspace"`
	Created   time.Time    `json:"created"`
	Updated   time.Time    `json:"updated"`
	Tasks     []TaskRecord `json:"tasks"`
	// Messages is the conversation as the last task left it, ready to be
	// driver.Assignment.History: every tool call has a result.
	Messages []agent.Message `json:"messages"`
	// Warnings describe lines that were skipped (a torn last line after a
	// crash).
	Warnings []string `json:"warnings,omitempty"`
	// Rewound is the step the session was last rewound to, if it was
	// (and no task ran since); -1: never.
	Rewound int `json:"rewound"`
	// StepList sums up the steps (Steps has them whole).
	StepList []StepInfo `json:"steps"`

	steps   checkpoints
	startOf map[int][]agent.Message // the conversation as each task began
}

// TaskRecord is one task of a session.
type TaskRecord struct {
	Seq        int           `json:"seq"`
	ID         string        `json:"id"`
	Prompt     string        `json:"prompt"`
	Model      string        `json:"model,omitempty"`
	Started    time.Time     `json:"started"`
	Ended      time.Time     `json:"ended,omitzero"` // zero while running, or when the process died
	Result     *agent.Result `json:"result"`         // nil when it never ended
	Changes    []Change      `json:"changes,omitempty"`
	Transcript string        `json:"transcript,omitempty"`
	// LastUsage is the usage of the task's last model request, nil when
	// none was recorded.
	LastUsage *agent.Usage `json:"lastUsage,omitempty"`
}

// Status is the task's status, or "interrupted" when it has no result.
func (t TaskRecord) Status() string {
	if t.Result == nil {
		return "interrupted"
	}
	return t.Result.Status
}

// Load reads session id.
func (s *Store) Load(id string) (*Session, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	sess := &Session{ID: id, Rewound: -1, startOf: map[int][]agent.Message{}}
	byseq := map[int]int{} // seq → index in Tasks
	task := func(seq int) *TaskRecord {
		i, ok := byseq[seq]
		if !ok {
			i = len(sess.Tasks)
			byseq[seq] = i
			sess.Tasks = append(sess.Tasks, TaskRecord{Seq: seq})
		}
		return &sess.Tasks[i]
	}
	warns, err := readLines(s.sessionPath(id), func(r record) {
		if !r.Time.IsZero() && r.Time.After(sess.Updated) {
			sess.Updated = r.Time
		}
		switch r.Type {
		case "session":
			sess.Workspace, sess.Created = r.Workspace, r.Time
		case "task":
			t := task(r.Seq)
			t.ID, t.Prompt, t.Model, t.Started, t.Transcript = r.TaskID, r.Prompt, r.Model, r.Time, r.Transcript
			sess.startOf[r.Seq] = Repair(sess.Messages)
			sess.Rewound = -1
		case "message":
			if r.Message != nil {
				sess.Messages = append(sess.Messages, *r.Message)
			}
		case "reset":
			sess.Messages = append([]agent.Message(nil), r.Messages...)
		case "checkpoint":
			if r.Checkpoint != nil {
				sess.steps.add(*r.Checkpoint, sess.Messages)
			}
		case "rewind":
			if r.Rewind != nil {
				sess.Messages = append([]agent.Message(nil), r.Messages...)
				sess.steps.rewind(*r.Rewind)
				sess.Rewound = r.Rewind.Step
			}
		case "change":
			if r.Change != nil {
				t := task(r.Seq)
				t.Changes = append(t.Changes, *r.Change)
			}
		case "result":
			t := task(r.Seq)
			t.Result, t.Ended, t.LastUsage = r.Result, r.Time, r.LastUsage
		}
	})
	if isNotExist(err) {
		return nil, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("session %q: %w", id, err)
	}
	sort.SliceStable(sess.Tasks, func(i, j int) bool { return sess.Tasks[i].Seq < sess.Tasks[j].Seq })
	sess.Messages = Repair(sess.Messages)
	sess.Warnings = warns
	sess.StepList = stepInfos(sess.steps.list)
	if sess.Created.IsZero() && len(sess.Tasks) > 0 {
		sess.Created = sess.Tasks[0].Started
	}
	return sess, nil
}

// Info sums up a session for a list.
type Info struct {
	ID         string    `json:"id"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	Tasks      int       `json:"tasks"`
	LastPrompt string    `json:"lastPrompt"`
	// FirstPrompt names the session (ACP's session title).
	FirstPrompt string `json:"firstPrompt,omitempty"`
	LastStatus  string `json:"lastStatus"`
}

// List returns the workspace's sessions, most recently updated first.
// Unreadable files are reported through Options.Warn and left out.
func (s *Store) List() ([]Info, error) {
	ents, err := os.ReadDir(s.sessionsDir())
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Info
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() || !ValidID(id) {
			continue
		}
		sess, err := s.Load(id)
		if err != nil {
			s.opts.Warn(err.Error())
			continue
		}
		in := Info{ID: id, Created: sess.Created, Updated: sess.Updated, Tasks: len(sess.Tasks)}
		if n := len(sess.Tasks); n > 0 {
			in.LastPrompt, in.LastStatus = sess.Tasks[n-1].Prompt, sess.Tasks[n-1].Status()
			in.FirstPrompt = sess.Tasks[0].Prompt
		}
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// Repair makes a conversation safe to send again: every assistant tool
// call gets a result (a task cancelled or stopped between a call and its
// result leaves it without one, and APIs reject that), and tool results
// whose call is not there are dropped.
func Repair(msgs []agent.Message) []agent.Message {
	out := make([]agent.Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == agent.RoleTool {
			continue // orphan: its assistant message was not before it
		}
		out = append(out, m)
		if m.Role != agent.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		have := map[string]bool{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == agent.RoleTool; j++ {
			if !have[msgs[j].ToolCallID] && hasCall(m.ToolCalls, msgs[j].ToolCallID) {
				have[msgs[j].ToolCallID] = true
				out = append(out, msgs[j])
			}
		}
		for _, c := range m.ToolCalls {
			if !have[c.ID] {
				out = append(out, agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Name: c.Name,
					Content: "(not run: the task ended before this call ran)"})
			}
		}
		i = j - 1
	}
	return out
}

func hasCall(calls []agent.ToolCall, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}
