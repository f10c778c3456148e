package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/render"
)

// Transcript is a task's Markdown account, written as the events arrive
// so that it can be followed (tail -f) and survives a crash: a heading per
// model step, the streamed text, one line per tool call and result
// (abbreviated), the checks, and the result.
type Transcript struct {
	path   string
	redact func(string) string

	mu  sync.Mutex
	f   *os.File
	md  *render.Renderer // the layout so far (render.Markdown)
	buf []byte
	err error
}

// createTranscript creates dir/name.md, never overwriting: a name taken
// (two processes numbering tasks alike) gets a suffix.
func createTranscript(dir, name string, redact func(string) string) (*Transcript, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for i := 0; i < 100; i++ {
		p := filepath.Join(dir, name+".md")
		if i > 0 {
			p = filepath.Join(dir, fmt.Sprintf("%s.%d.md", name, i))
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &Transcript{path: p, f: f, redact: redact, md: render.New(render.Markdown)}, nil
	}
	return nil, fmt.Errorf("transcript %s: too many files of that name", name)
}

// Path is the transcript's file.
func (t *Transcript) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

// Close closes the file; events after it are dropped.
func (t *Transcript) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return t.err
	}
	err := t.f.Close()
	t.f = nil
	if t.err == nil {
		t.err = err
	}
	return t.err
}

// write adds s, redacted, to what flush writes; the caller holds t.mu.
func (t *Transcript) write(s string) {
	if t.f == nil || t.err != nil || s == "" {
		return
	}
	t.buf = append(t.buf, t.redact(s)...)
}

// flush writes what one event (or the header, or the end) produced in one
// write(2), before the call returns: the file still follows the task event
// by event, with a fraction of the system calls. The caller holds t.mu.
func (t *Transcript) flush() {
	if len(t.buf) > 0 && t.f != nil && t.err == nil {
		if _, err := t.f.Write(t.buf); err != nil {
			t.err = err
		}
	}
	t.buf = t.buf[:0]
}

// header writes the title and the task.
func (t *Transcript) header(taskID, session, root, model, prompt string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.flush()
	h := fmt.Sprintf("# agentls task %s\n\n- session: `%s`\n- workspace: `%s`\n- started: %s\n", taskID, session, root, at.Format(time.RFC3339))
	if model != "" {
		h += fmt.Sprintf("- model: `%s`\n", model)
	}
	t.write(t.md.Text(h + "\n" + quote(prompt) + "\n"))
}

// Event adds an agent event.
func (t *Transcript) Event(ev agent.Event) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.flush()
	t.write(t.md.Event(ev))
}

// end writes the result and the changed files.
func (t *Transcript) end(res agent.Result, changes []Change) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.flush()
	var b strings.Builder
	b.WriteString("## Result\n\n- " + render.ResultLine(res) + "\n")
	for _, c := range changes {
		verb := "changed"
		if c.Created {
			verb = "created"
		}
		fmt.Fprintf(&b, "- %s `%s`\n", verb, c.Path)
	}
	if s := strings.TrimSpace(res.Summary); s != "" {
		b.WriteString("\n" + s + "\n")
	}
	t.write(t.md.Block(b.String()))
}

func quote(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range ls {
		ls[i] = "> " + l
	}
	return strings.Join(ls, "\n") + "\n"
}
