package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/render"
)

// Recall's defaults.
const (
	DefaultRecallLimit  = 5
	DefaultRecallMaxAge = 7 * 24 * time.Hour
)

// memory file upkeep: past maxMemoryBytes the file is rewritten with the
// newest keepMemoryEntries entries, so it never grows without bound.
const (
	maxMemoryBytes    = 256 << 10
	keepMemoryEntries = 200
)

// MemoryEntry is one remembered task.
type MemoryEntry struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Task    string    `json:"task"`
	Prompt  string    `json:"prompt"`
	Summary string    `json:"summary"` // one paragraph
}

// Memory is a workspace's memory of finished tasks, one JSON line each.
// A nil *Memory remembers and recalls nothing.
type Memory struct {
	path   string
	now    func() time.Time
	redact func(string) string
	warn   func(string)
	// Limit and MaxAge bound Recall [DefaultRecallLimit,
	// DefaultRecallMaxAge].
	Limit  int
	MaxAge time.Duration

	mu sync.Mutex // serialises this process's appends and rewrites
}

// Add appends an entry. The line is written whole before Add returns, so a
// killed process keeps it; it is not fsynced: memory is a hint for later
// tasks, derived from the session file, which End has synced, and a power
// loss that takes the last entry loses nothing a task needs. (The fsync
// was a third of the disk waits at the end of a one-turn run.)
func (m *Memory) Add(e MemoryEntry) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(m.path), 0o700); err != nil {
		return err
	}
	a, err := openAppend(m.path, m.redact)
	if err != nil {
		return err
	}
	err = a.append(e)
	if cerr := a.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if fi, err := os.Stat(m.path); err == nil && fi.Size() > maxMemoryBytes {
		return m.trim()
	}
	return nil
}

// trim rewrites the file with its newest entries, in at most half the
// size limit so that it is not rewritten again at once; the caller holds
// m.mu.
func (m *Memory) trim() error {
	ents, _, err := m.entries()
	if err != nil {
		return err
	}
	var lines [][]byte
	size := 0
	for i := len(ents) - 1; i >= 0 && len(lines) < keepMemoryEntries; i-- {
		b, err := json.Marshal(ents[i])
		if err != nil {
			return err
		}
		if size+len(b)+1 > maxMemoryBytes/2 {
			break
		}
		size += len(b) + 1
		lines = append(lines, b)
	}
	var buf bytes.Buffer
	for i := len(lines) - 1; i >= 0; i-- {
		buf.Write(lines[i])
		buf.WriteByte('\n')
	}
	return writeFileAtomic(m.path, buf.Bytes())
}

// Entries returns every entry in the order they were added, and warnings
// for skipped lines.
func (m *Memory) Entries() ([]MemoryEntry, []string, error) {
	if m == nil {
		return nil, nil, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entries()
}

func (m *Memory) entries() ([]MemoryEntry, []string, error) {
	var out []MemoryEntry
	warns, err := readLines(m.path, func(e MemoryEntry) { out = append(out, e) })
	if isNotExist(err) {
		err = nil
	}
	return out, warns, err
}

// Recall returns the summaries of the earlier tasks most relevant to task,
// for driver.WorkspacePlanner.Recall: at most Limit entries from the last
// MaxAge, ranked by how many words they share with task, then newest
// first. Each is prefixed with its date. Errors are reported through the
// store's Warn and recall nothing.
func (m *Memory) Recall(_ context.Context, task string) []string {
	if m == nil {
		return nil
	}
	ents, warns, err := m.Entries()
	for _, w := range warns {
		m.warn(w)
	}
	if err != nil {
		m.warn(fmt.Sprintf("memory: %v", err))
		return nil
	}
	limit, maxAge := m.Limit, m.MaxAge
	if limit <= 0 {
		limit = DefaultRecallLimit
	}
	if maxAge <= 0 {
		maxAge = DefaultRecallMaxAge
	}
	return rank(ents, task, m.now().Add(-maxAge), limit)
}

// rank picks the entries since `since` sharing the most words with task,
// then the newest.
func rank(ents []MemoryEntry, task string, since time.Time, limit int) []string {
	want := words(task)
	type scored struct {
		e     MemoryEntry
		score int
		order int
	}
	var cands []scored
	for i, e := range ents {
		if e.Time.Before(since) {
			continue
		}
		n := 0
		for w := range words(e.Prompt + " " + e.Summary) {
			if want[w] {
				n++
			}
		}
		cands = append(cands, scored{e, n, i})
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if !a.e.Time.Equal(b.e.Time) {
			return a.e.Time.After(b.e.Time)
		}
		return a.order > b.order
	})
	if len(cands) > limit {
		cands = cands[:limit]
	}
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.e.Time.Format("2006-01-02") + ": " + c.e.Summary
	}
	return out
}

// stopWords carry no topic; sharing them says nothing about relevance.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "from": true,
	"into": true, "are": true, "was": true, "were": true, "not": true, "but": true, "you": true,
	"all": true, "can": true, "has": true, "have": true, "its": true, "use": true, "add": true,
	"make": true, "task": true, "file": true, "files": true, "please": true, "should": true,
	"when": true, "then": true, "them": true, "there": true, "what": true, "which": true,
	"done": true, "changed": true, "checks": true, "passed": true,
}

// words is the set of lower-cased words of three or more letters or
// digits (identifiers count whole: greet_test stays one word), less stop
// words.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if len([]rune(w)) >= 3 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}

// Summarize is the one paragraph remembered of a task: what was asked
// and what happened, from the task's end status, the files it changed
// and the checks, never from the model's answer (a model that changed
// nothing and said "Done." would be remembered as having done the task,
// and the next task told so). A task that changed no file is not "done".
func Summarize(prompt string, res agent.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task %q ", render.OneLine(prompt, 200))
	files := ""
	if n := len(res.FilesChanged); n > 0 {
		list := res.FilesChanged
		if n > 8 {
			list = list[:8]
		}
		files = strings.Join(list, ", ")
		if n > 8 {
			files += fmt.Sprintf(" and %d more", n-8)
		}
	}
	switch {
	case res.Cancelled || res.Status == agent.StatusCancelled:
		b.WriteString("was cancelled")
		if files != "" {
			b.WriteString(" after changing " + files)
		}
	case res.Status == agent.StatusError:
		fmt.Fprintf(&b, "failed (%s): %s", res.Reason, render.OneLine(res.Error, 200))
		if files != "" {
			b.WriteString("; it had changed " + files)
		}
	case files == "":
		b.WriteString("ended without changing any file")
	default:
		b.WriteString("changed " + files)
		switch {
		case res.Reason == "verifyFailed":
			b.WriteString("; the checks still failed")
		case res.Verified:
			b.WriteString("; the checks passed")
		default:
			b.WriteString("; no check ran")
		}
		if res.Outcome != "" {
			b.WriteString(" (" + res.Outcome + ")")
		}
	}
	b.WriteString(".")
	return b.String()
}
