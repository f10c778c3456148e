package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/render"
)

// renderer shows a headless task on stderr. Every method may be called
// from any goroutine; everything written is redacted.
type renderer interface {
	start(info startInfo)
	event(ev agent.Event)
	// note is a line from the CLI itself (a check starting, the session).
	note(msg string)
	warn(msg string)
	close()
}

type startInfo struct {
	Session    string `json:"session,omitempty"`
	TaskID     string `json:"taskId,omitempty"`
	Workspace  string `json:"workspace"`
	Model      string `json:"model"`
	Transcript string `json:"transcript,omitempty"`
	DryRun     bool   `json:"dryRun,omitempty"`
	Replay     bool   `json:"replay,omitempty"`
	// NoProject: no project marker in the workspace or above it, so the
	// current directory is the workspace (firsthour.go).
	NoProject bool `json:"noProject,omitempty"`
}

// jsonRenderer writes one JSON object per line: a "start" line, the
// agent's events (as in agentls/event notifications, with taskId and
// session), and "note"/"warning" lines.
type jsonRenderer struct {
	mu      sync.Mutex
	w       io.Writer
	redact  func(string) string
	session string
	taskID  string
}

type jsonEvent struct {
	TaskID  string `json:"taskId,omitempty"`
	Session string `json:"session,omitempty"`
	render.Words
	agent.Event
}

func (r *jsonRenderer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(r.w, r.redact(string(b)))
}

func (r *jsonRenderer) start(info startInfo) {
	r.mu.Lock()
	r.session, r.taskID = info.Session, info.TaskID
	r.mu.Unlock()
	r.line(struct {
		Kind string `json:"kind"`
		startInfo
	}{"start", info})
}

func (r *jsonRenderer) event(ev agent.Event) {
	r.mu.Lock()
	s, t := r.session, r.taskID
	r.mu.Unlock()
	r.line(jsonEvent{TaskID: t, Session: s, Words: render.WordsOf(ev), Event: ev})
}

func (r *jsonRenderer) note(msg string) {
	r.line(map[string]string{"kind": "note", "text": msg})
}

func (r *jsonRenderer) warn(msg string) {
	r.line(map[string]string{"kind": "warning", "text": msg})
}

func (r *jsonRenderer) close() {}

// textRenderer writes what a person reads: the model's text as it
// streams, a line per tool call and result, the checks, and a summary.
// On a terminal a progress line sits below the output and is redrawn
// while nothing else is written.
type textRenderer struct {
	w      io.Writer
	redact func(string) string
	tty    bool

	mu       sync.Mutex
	text     *render.Renderer // what the events say (render.Plain)
	shown    bool             // the progress line is on screen
	status   string
	step     int
	maxSteps int
	plan     string // the model's plan in brief: "2/5 current step"
	tokens   int
	began    time.Time
	frame    int
	held     int // questions being asked: the progress line stays off
	stop     chan struct{}
	done     chan struct{}
}

func newTextRenderer(w io.Writer, redact func(string) string, tty bool, maxSteps int) *textRenderer {
	r := &textRenderer{w: w, redact: redact, tty: tty, text: render.New(render.Plain), maxSteps: maxSteps, began: time.Now(), status: "starting"}
	if tty {
		r.stop, r.done = make(chan struct{}), make(chan struct{})
		go r.spin()
	}
	return r
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (r *textRenderer) spin() {
	defer close(r.done)
	defer recoverTo(r.w, "the progress line")
	t := time.NewTicker(120 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.mu.Lock()
			r.frame++
			r.drawLocked()
			r.mu.Unlock()
		}
	}
}

// drawLocked redraws the progress line when the cursor is at a line start.
func (r *textRenderer) drawLocked() {
	if !r.tty || !r.text.AtLineStart() || r.held > 0 {
		return
	}
	step := ""
	if r.step > 0 && r.step <= r.maxSteps {
		step = fmt.Sprintf(" · step %d/%d", r.step, r.maxSteps)
	} else if r.step > r.maxSteps {
		step = " · summary (step limit reached)"
	}
	tok := ""
	if r.tokens > 0 {
		tok = fmt.Sprintf(" · %s tokens", compact(r.tokens))
	}
	plan := ""
	if r.plan != "" {
		plan = " · plan " + r.plan
	}
	line := fmt.Sprintf("%s %s%s%s%s · %s", spinner[r.frame%len(spinner)], r.status, step, plan, tok, time.Since(r.began).Round(time.Second))
	fmt.Fprint(r.w, "\r\x1b[K"+line)
	r.shown = true
}

func compact(n int) string {
	if n >= 10_000 {
		return fmt.Sprintf("%dk", n/1000)
	}
	if n >= 1000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

// writeLocked writes s, clearing the progress line first.
func (r *textRenderer) writeLocked(s string) {
	if s == "" {
		return
	}
	if r.shown {
		fmt.Fprint(r.w, "\r\x1b[K")
		r.shown = false
	}
	fmt.Fprint(r.w, r.redact(s))
}

// lineLocked writes s on a line of its own.
func (r *textRenderer) lineLocked(s string) {
	r.writeLocked(r.text.Line(s))
}

func (r *textRenderer) start(info startInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	what := "agentls"
	if info.DryRun {
		what += " (dry run: nothing is written)"
	}
	if info.Replay {
		what += " (replaying a recording)"
	}
	ws := info.Workspace
	if info.NoProject {
		ws += " (no project marker here or above: this folder is the workspace)"
	}
	r.lineLocked(fmt.Sprintf("%s · %s · model %s · session %s", what, ws, info.Model, orNone(info.Session)))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func (r *textRenderer) event(ev agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Kind {
	case agent.KindState:
		switch ev.To {
		case agent.Planning:
			r.status = "planning"
		case agent.Executing:
			r.status, r.step = "calling the model", ev.Step+1
		case agent.Tools:
			r.status = "running tools"
		case agent.Verifying:
			r.status = "running the checks"
		case agent.Reporting:
			r.status = "reporting"
		}
	case agent.KindPlan:
		if ev.Plan != nil {
			r.plan = fmt.Sprintf("%d/%d", ev.Plan.Done(), len(ev.Plan.Steps))
			if cur := ev.Plan.Current(); cur != "" {
				r.plan += " " + render.FirstLine(cur, 40)
			}
		}
	case agent.KindUsage:
		if ev.TaskUsage != nil {
			r.tokens = ev.TaskUsage.InputTokens + ev.TaskUsage.OutputTokens
		}
	}
	r.writeLocked(r.text.Event(ev))
	r.drawLocked()
}

func (r *textRenderer) note(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lineLocked(msg)
	r.drawLocked()
}

func (r *textRenderer) warn(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lineLocked("agentls: warning: " + msg)
	r.drawLocked()
}

// close stops the progress line and leaves the cursor on a fresh line.
func (r *textRenderer) close() {
	if r.stop != nil {
		close(r.stop)
		<-r.done
		r.stop = nil
	}
	r.pause()
}

// hold clears the progress line and keeps it off until the returned
// resume is called, so a question written meanwhile (a command approval)
// stays on screen while it waits for its answer.
func (r *textRenderer) hold() (resume func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held++
	r.clearLocked()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.held--
		})
	}
}

// pause clears the progress line and keeps it off for good, for the
// review questions.
func (r *textRenderer) pause() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
	r.tty = false
}

// clearLocked clears the progress line and leaves the cursor at the start
// of a line, for a question.
func (r *textRenderer) clearLocked() {
	if r.shown {
		fmt.Fprint(r.w, "\r\x1b[K")
		r.shown = false
	}
	fmt.Fprint(r.w, r.text.Break())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// recoverTo is the panic barrier of the CLI's own goroutines: the panic is
// reported on w (stderr) and that goroutine ends, not the run.
func recoverTo(w io.Writer, what string) {
	if p := recover(); p != nil {
		fmt.Fprintf(w, "\nagentls: internal error in %s: %v\n", what, p)
	}
}
