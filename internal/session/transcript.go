package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/textcut"
)

// Transcript is a task's Markdown account, written as the events arrive
// so that it can be followed (tail -f) and survives a crash: a heading per
// model step, the streamed text, one line per tool call and result
// (abbreviated), the checks, and the result.
type Transcript struct {
	path   string
	redact func(string) string

	mu        sync.Mutex
	f         *os.File
	step      int
	lineStart bool // the last text written ended a line
	blank     bool // … and the one before it was empty
	inList    bool // the last block was a tool line
	buf       []byte
	err       error
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
		return &Transcript{path: p, f: f, redact: redact, lineStart: true}, nil
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
	t.blank = strings.HasSuffix(s, "\n\n") || (t.lineStart && s == "\n")
	t.lineStart = strings.HasSuffix(s, "\n")
	t.inList = false
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

// para starts a new Markdown block after an empty line: the streamed text
// may have stopped mid-line.
func (t *Transcript) para() {
	if !t.lineStart {
		t.write("\n")
	}
	if !t.blank {
		t.write("\n")
	}
}

// item writes a tool line: consecutive ones form one list.
func (t *Transcript) item(s string) {
	if !t.inList {
		t.para()
	}
	t.write(s)
	t.inList = true
}

// header writes the title and the task.
func (t *Transcript) header(taskID, session, root, model, prompt string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.flush()
	t.write(fmt.Sprintf("# agentls task %s\n\n", taskID))
	t.write(fmt.Sprintf("- session: `%s`\n- workspace: `%s`\n- started: %s\n", session, root, at.Format(time.RFC3339)))
	if model != "" {
		t.write(fmt.Sprintf("- model: `%s`\n", model))
	}
	t.write("\n" + quote(prompt) + "\n")
}

// Event adds an agent event.
func (t *Transcript) Event(ev agent.Event) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.flush()
	switch ev.Kind {
	case agent.KindText:
		t.stepHeading(ev.Step)
		t.write(ev.Text)
	case agent.KindToolCall:
		t.stepHeading(ev.Step)
		t.item(fmt.Sprintf("- → `%s`\n", strings.ReplaceAll(CallSummary(ev.Call), "`", "'")))
	case agent.KindToolResult:
		name := ""
		if ev.Call != nil {
			name = ev.Call.Name
		}
		status, out := "ok", ev.Output
		if ev.IsErr {
			status, out = "error", strings.TrimPrefix(out, "error: ")
		}
		t.item(fmt.Sprintf("  - ← %s %s: %s\n", name, status, abbreviate(out, 3, 300)))
	case agent.KindVerify:
		if ev.Verify == nil {
			return
		}
		t.para()
		mark := "✗ failed"
		switch {
		case ev.Verify.Skipped:
			mark = "· skipped" // nothing to check is not a pass
		case ev.Verify.Passed:
			mark = "✓ passed"
		}
		t.write(fmt.Sprintf("### Checks %s\n\n%s\n", mark, ev.Verify.Summary))
		if len(ev.Verify.Located) > 0 {
			t.write("\n")
			for _, l := range ev.Verify.Located {
				t.write("- " + mdLocated(l) + "\n")
			}
			if n := ev.Verify.Problems - len(ev.Verify.Located); n > 0 {
				t.write(fmt.Sprintf("- … and %d more\n", n))
			}
		}
		if len(ev.Verify.Commands) > 0 {
			t.write("\nCommands: `" + strings.Join(ev.Verify.Commands, "`, `") + "`\n")
		}
		if fb := strings.TrimSpace(ev.Verify.Feedback); fb != "" {
			t.write("\n```text\n" + strings.ReplaceAll(abbreviate(fb, 40, 4000), "```", "'''") + "\n```\n")
		}
	case agent.KindPlan:
		if ev.Plan == nil {
			return
		}
		t.para()
		t.write(fmt.Sprintf("### Plan (%d of %d done)\n\n", ev.Plan.Done(), len(ev.Plan.Steps)))
		if ev.Plan.Explanation != "" {
			t.write(oneLine(ev.Plan.Explanation, 500) + "\n\n")
		}
		for _, st := range ev.Plan.Steps {
			t.write("- " + agent.StepMark(st.Status) + " " + oneLine(st.Step, 300) + "\n")
		}
	case agent.KindRetry, agent.KindCompaction, agent.KindBudget:
		t.para()
		t.write(fmt.Sprintf("> %s: %s\n", ev.Kind, oneLine(ev.Text, 500)))
	case agent.KindEnd:
		if ev.Result != nil && ev.Result.Status != agent.StatusOK {
			t.para()
			t.write(fmt.Sprintf("> %s: %s\n", ev.Result.Status, oneLine(ev.Result.Error, 500)))
		}
	}
}

func (t *Transcript) stepHeading(step int) {
	if step <= t.step {
		return
	}
	t.step = step
	t.para()
	t.write(fmt.Sprintf("## Step %d\n\n", step))
}

// end writes the result and the changed files.
func (t *Transcript) end(res agent.Result, changes []Change) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.flush()
	t.para()
	t.write("## Result\n\n")
	t.write("- " + ResultLine(res) + "\n")
	for _, c := range changes {
		verb := "changed"
		if c.Created {
			verb = "created"
		}
		t.write(fmt.Sprintf("- %s `%s`\n", verb, c.Path))
	}
	if s := strings.TrimSpace(res.Summary); s != "" {
		t.write("\n" + s + "\n")
	}
}

// ResultLine is a result in one line: status, files, steps, tokens, cost.
func ResultLine(r agent.Result) string {
	var parts []string
	status := r.Status
	switch {
	case r.Cancelled:
		status = "cancelled"
	case r.Reason == "verifyFailed":
		status = "done, checks failing"
	case r.Status == agent.StatusOK && r.Verified:
		status = "ok, verified"
	case r.Reason == "maxSteps" || r.Reason == "budget":
		// A graceful end at the task's limit: summarised and checked.
		status = "stopped at the limit (" + r.Reason + ")"
		if r.Verified {
			status += ", verified"
		}
	case r.Status == agent.StatusError && r.Reason != "":
		status = "error (" + r.Reason + ")"
	}
	parts = append(parts, status)
	n := len(r.FilesChanged)
	switch n {
	case 0:
		parts = append(parts, "no files changed")
	case 1:
		parts = append(parts, "1 file changed")
	default:
		parts = append(parts, fmt.Sprintf("%d files changed", n))
	}
	if r.Steps == 1 {
		parts = append(parts, "1 step")
	} else {
		parts = append(parts, fmt.Sprintf("%d steps", r.Steps))
	}
	tok := fmt.Sprintf("%d in / %d out tokens", r.Usage.InputTokens, r.Usage.OutputTokens)
	if r.Usage.Estimated {
		tok = "~" + tok
	}
	parts = append(parts, tok)
	if r.Cost > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", r.Cost))
	}
	return strings.Join(parts, " · ")
}

// CallSummary renders a tool call in a few words: "read_file hello.txt".
func CallSummary(c *agent.ToolCall) string {
	if c == nil {
		return ""
	}
	var args map[string]any
	_ = json.Unmarshal([]byte(c.Arguments), &args)
	for _, k := range []string{"path", "pattern", "command"} {
		if v, ok := args[k].(string); ok && v != "" {
			return c.Name + " " + oneLine(v, 80)
		}
	}
	return c.Name
}

// abbreviate keeps the first lines of s within max bytes, one line per
// line of s joined by " ⏎ " when lines is small.
func abbreviate(s string, lines, max int) string {
	s = strings.TrimSpace(s)
	ls := strings.Split(s, "\n")
	more := len(ls) > lines
	if more {
		ls = ls[:lines]
	}
	sep := "\n"
	if lines <= 3 {
		sep = " ⏎ "
	}
	out := strings.Join(ls, sep)
	if len(out) > max {
		out = textcut.Head(out, max)
		more = true
	}
	if more {
		out += " …"
	}
	return out
}

func quote(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range ls {
		ls[i] = "> " + l
	}
	return strings.Join(ls, "\n") + "\n"
}

// mdLocated renders "file:line: message" with the place as code.
func mdLocated(l string) string {
	if i := strings.Index(l, ": "); i > 0 {
		return "`" + strings.ReplaceAll(l[:i], "`", "'") + "` " + l[i+2:]
	}
	return l
}
