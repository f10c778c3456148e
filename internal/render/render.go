// Package render turns a task's agent events into the text people read:
// agentls run's output on a terminal, the editor's log (window/logMessage),
// the session's Markdown transcript, and the text parts of ACP's updates
// (tool call titles, tool output, the checks). Each front end used to do
// this on its own; the wording lives here once.
//
// The package is pure: events in, text out. It does no I/O, reads no
// clock and starts no goroutine; the caller writes (and redacts) what it
// returns. It must never import a front end or session.
package render

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/textcut"
)

// Style is how a Renderer lays its text out.
type Style int

const (
	// Plain is a line per tool call, result, check and notice between
	// the model's text as it streams: agentls run's output.
	Plain Style = iota
	// Log is Plain in whole lines only, for a sink that takes one line at
	// a time (the editor's log): a line the model has not finished waits
	// for the next event or Flush.
	Log
	// Markdown is the transcript: a heading per model step, the tool
	// calls and results as lists, the checks and the plan as sections.
	Markdown
)

// Renderer renders one task's events in one style. It keeps the layout
// (where the last text ended, the current step) between calls, so a
// task's events go through one Renderer, in order; it is not safe for
// concurrent use.
type Renderer struct {
	style     Style
	out       strings.Builder
	step      int
	lineStart bool   // the last text written ended a line
	blank     bool   // … and the one before it was empty
	inList    bool   // the last block was a tool line (Markdown)
	partial   string // Log: the start of a line not yet returned
}

// New returns a Renderer at the start of a line.
func New(style Style) *Renderer {
	return &Renderer{style: style, lineStart: true}
}

// AtLineStart reports whether the text returned so far ends a line (a
// terminal can draw its progress line there).
func (r *Renderer) AtLineStart() bool { return r.lineStart && r.partial == "" }

// Event returns the text ev adds.
func (r *Renderer) Event(ev agent.Event) string {
	if r.style == Markdown {
		r.markdown(ev)
	} else {
		r.plain(ev)
	}
	return r.take()
}

// Text returns s as it is (a heading of the front end's own).
func (r *Renderer) Text(s string) string {
	r.write(s)
	return r.take()
}

// Line returns s on a line of its own (a note of the front end's: a check
// starting, the session).
func (r *Renderer) Line(s string) string {
	r.line(s)
	return r.take()
}

// Break returns what ends the current line: "" at a line start (a
// terminal asking a question there).
func (r *Renderer) Break() string {
	if !r.lineStart {
		r.write("\n")
	}
	return r.take()
}

// Block returns s as a Markdown block of its own, after an empty line; in
// the plain styles, on lines of its own.
func (r *Renderer) Block(s string) string {
	r.para()
	r.write(s)
	return r.take()
}

// Flush returns, in the Log style, the line the model has not finished.
func (r *Renderer) Flush() string {
	s := r.partial
	r.partial = ""
	if s != "" {
		s += "\n"
	}
	return s
}

// take returns what the last call wrote; in the Log style, its whole
// lines, keeping the rest for later.
func (r *Renderer) take() string {
	s := r.out.String()
	r.out.Reset()
	if r.style != Log {
		return s
	}
	s = r.partial + s
	i := strings.LastIndexByte(s, '\n')
	r.partial = s[i+1:]
	return s[:i+1]
}

func (r *Renderer) write(s string) {
	if s == "" {
		return
	}
	r.out.WriteString(s)
	r.blank = strings.HasSuffix(s, "\n\n") || (r.lineStart && s == "\n")
	r.lineStart = strings.HasSuffix(s, "\n")
	r.inList = false
}

// line writes s on a line of its own.
func (r *Renderer) line(s string) {
	if !r.lineStart {
		r.write("\n")
	}
	r.write(s + "\n")
}

// para starts a new block: after an empty line in Markdown (the streamed
// text may have stopped mid-line), at a line start otherwise.
func (r *Renderer) para() {
	if !r.lineStart {
		r.write("\n")
	}
	if r.style == Markdown && !r.blank {
		r.write("\n")
	}
}

// item writes a Markdown tool line: consecutive ones form one list.
func (r *Renderer) item(s string) {
	if !r.inList {
		r.para()
	}
	r.write(s)
	r.inList = true
}

// plain renders ev for the Plain and Log styles.
func (r *Renderer) plain(ev agent.Event) {
	switch ev.Kind {
	case agent.KindText:
		r.write(ev.Text)
	case agent.KindToolCall:
		r.line("→ " + CallSummary(ev.Call))
	case agent.KindToolResult:
		mark, out := "←", ev.Output
		if ev.IsErr {
			mark, out = "✗", strings.TrimPrefix(out, "error: ")
		}
		if ev.Run != nil {
			// A command: how it ran and how it ended, before its output.
			r.line(fmt.Sprintf("  %s %s: %s: %s", mark, callName(ev.Call), RunNote(ev.Run), FirstLine(out, 120)))
			return
		}
		r.line(fmt.Sprintf("  %s %s: %s", mark, callName(ev.Call), FirstLine(out, 120)))
	case agent.KindVerify:
		if ev.Verify == nil {
			return
		}
		if ev.Verify.Skipped {
			r.line("· " + ev.Verify.Summary)
			return
		}
		mark := "✗ checks failed"
		if ev.Verify.Passed {
			mark = "✓ checks passed"
		}
		r.line(fmt.Sprintf("%s: %s", mark, ev.Verify.Summary))
		for _, l := range ev.Verify.Located {
			r.line("    " + l)
		}
		if n := ev.Verify.Problems - len(ev.Verify.Located); n > 0 {
			r.line(fmt.Sprintf("    … and %d more", n))
		}
	case agent.KindRetry, agent.KindCompaction, agent.KindBudget, agent.KindNotice:
		r.line("· " + ev.Text)
	case agent.KindNested:
		if t := NestedLine(ev); t != "" {
			r.line("    │ " + t)
		}
	case agent.KindPlan:
		if ev.Plan == nil {
			return
		}
		r.line(fmt.Sprintf("· plan (%d of %d done):", ev.Plan.Done(), len(ev.Plan.Steps)))
		for _, st := range ev.Plan.Steps {
			r.line("    " + agent.StepMark(st.Status) + " " + FirstLine(st.Step, 100))
		}
	case agent.KindUsage:
		// A model call ended: in the Log style its last line goes out.
		if r.style == Log && r.partial != "" {
			r.write("\n")
		}
	case agent.KindEnd:
		if ev.Result == nil {
			return
		}
		switch {
		case ev.Result.Reason == "maxSteps" || ev.Result.Reason == "budget":
			r.line(ev.Result.Error)
		case ev.Result.Status == agent.StatusError:
			r.line("error: " + ev.Result.Error)
		}
		r.line("── " + ResultLine(*ev.Result))
	}
}

// markdown renders ev for the transcript.
func (r *Renderer) markdown(ev agent.Event) {
	switch ev.Kind {
	case agent.KindText:
		r.stepHeading(ev.Step)
		r.write(ev.Text)
	case agent.KindToolCall:
		r.stepHeading(ev.Step)
		r.item(fmt.Sprintf("- → `%s`\n", strings.ReplaceAll(CallSummary(ev.Call), "`", "'")))
	case agent.KindToolResult:
		status, out := "ok", ev.Output
		if ev.IsErr {
			status, out = "error", strings.TrimPrefix(out, "error: ")
		}
		if ev.Run != nil {
			status += " (" + RunNote(ev.Run) + ")"
		}
		r.item(fmt.Sprintf("  - ← %s %s: %s\n", callName(ev.Call), status, Abbreviate(out, 3, 300)))
	case agent.KindVerify:
		v := ev.Verify
		if v == nil {
			return
		}
		r.para()
		mark := "✗ failed"
		switch {
		case v.Skipped:
			mark = "· skipped" // nothing to check is not a pass
		case v.Passed:
			mark = "✓ passed"
		}
		r.write(fmt.Sprintf("### Checks %s\n\n%s\n", mark, v.Summary))
		if len(v.Located) > 0 {
			r.write("\n")
			for _, l := range v.Located {
				r.write("- " + mdLocated(l) + "\n")
			}
			if n := v.Problems - len(v.Located); n > 0 {
				r.write(fmt.Sprintf("- … and %d more\n", n))
			}
		}
		if len(v.Commands) > 0 {
			r.write("\nCommands: `" + strings.Join(v.Commands, "`, `") + "`\n")
		}
		if fb := strings.TrimSpace(v.Feedback); fb != "" {
			r.write("\n```text\n" + strings.ReplaceAll(Abbreviate(fb, 40, 4000), "```", "'''") + "\n```\n")
		}
	case agent.KindPlan:
		if ev.Plan == nil {
			return
		}
		r.para()
		r.write(fmt.Sprintf("### Plan (%d of %d done)\n\n", ev.Plan.Done(), len(ev.Plan.Steps)))
		if ev.Plan.Explanation != "" {
			r.write(OneLine(ev.Plan.Explanation, 500) + "\n\n")
		}
		for _, st := range ev.Plan.Steps {
			r.write("- " + agent.StepMark(st.Status) + " " + OneLine(st.Step, 300) + "\n")
		}
	case agent.KindRetry, agent.KindCompaction, agent.KindBudget, agent.KindNotice:
		r.para()
		r.write(fmt.Sprintf("> %s: %s\n", ev.Kind, OneLine(ev.Text, 500)))
	case agent.KindNested:
		if t := NestedLine(ev); t != "" {
			r.item("    - " + strings.ReplaceAll(t, "`", "'") + "\n")
		}
	case agent.KindEnd:
		if ev.Result != nil && ev.Result.Status != agent.StatusOK {
			r.para()
			r.write(fmt.Sprintf("> %s: %s\n", ev.Result.Status, OneLine(ev.Result.Error, 500)))
		}
	}
}

func (r *Renderer) stepHeading(step int) {
	if step <= r.step {
		return
	}
	r.step = step
	r.para()
	r.write(fmt.Sprintf("## Step %d\n\n", step))
}

func callName(c *agent.ToolCall) string {
	if c == nil {
		return ""
	}
	return c.Name
}

// CallSummary is a tool call in a few words: "read_file hello.txt".
func CallSummary(c *agent.ToolCall) string {
	if c == nil {
		return ""
	}
	var args map[string]any
	_ = json.Unmarshal([]byte(c.Arguments), &args)
	for _, k := range []string{"path", "pattern", "command", "question"} {
		if v, ok := args[k].(string); ok && v != "" {
			return c.Name + " " + OneLine(v, 80)
		}
	}
	return c.Name
}

// RunNote says how a command ran and ended, in a few words:
// "exit 0 · in the sandbox, unasked", "exit 1 · approved by you, outside
// the sandbox".
func RunNote(run *agent.CommandRun) string {
	if run == nil {
		return ""
	}
	end := fmt.Sprintf("exit %d", run.ExitCode)
	switch {
	case run.TimedOut:
		end = "timed out"
	case run.ExitCode < 0:
		end = "killed"
	}
	how := []string{}
	if run.Sandboxed {
		how = append(how, "in the sandbox")
	} else {
		how = append(how, "outside the sandbox")
	}
	switch run.Approval {
	case agent.RanUnasked:
		how = append(how, "unasked")
	case agent.RanAllowed:
		how = append(how, "allowed by your rules")
	case agent.RanApproved:
		how = append(how, "approved by you")
	}
	if run.Network {
		how = append(how, "with network")
	}
	return end + " · " + strings.Join(how, ", ")
}

// EndWord is how a task ended, in words: "ok", "cancelled by you",
// "stopped: step limit", "edits failed", "done, checks failing". A task
// that changed nothing while its edits failed did not end "ok", whatever
// its answer says.
func EndWord(r agent.Result) string {
	switch {
	case r.Cancelled || r.Status == agent.StatusCancelled:
		return "cancelled by you"
	case r.Outcome != "":
		return r.Outcome
	case r.Reason == "maxSteps":
		return "stopped: step limit"
	case r.Reason == "budget":
		return "stopped: cost limit"
	case r.Reason == "verifyFailed":
		return "done, checks failing"
	case r.Status == agent.StatusOK && r.FailedEdits > 0 && len(r.FilesChanged) == 0:
		return fmt.Sprintf("edits failed (%d), nothing changed", r.FailedEdits)
	case r.Status == agent.StatusError && r.Reason != "":
		return "error (" + reasonWords(r.Reason) + ")"
	}
	return r.Status
}

// reasonWords is an end reason a person reads.
func reasonWords(reason string) string {
	switch reason {
	case "llm":
		return "the model failed"
	case "stuck":
		return "stuck in a loop"
	case "context":
		return "context full"
	case "timeout":
		return "timed out"
	}
	return reason
}

// NestedLine is a step of a sub-agent (an agent.KindNested event) in one
// line of its parent call's short trace, prefixed by the call's name: its
// tool calls, its refusals and failures, its notices and its end. A
// result that went well is left out ("": nothing to show), as are its
// text and states.
func NestedLine(ev agent.Event) string {
	n := ev.Nested
	if n == nil {
		return ""
	}
	who := callName(ev.Call)
	var a struct{ Question string }
	if ev.Call != nil && json.Unmarshal([]byte(ev.Call.Arguments), &a) == nil && a.Question != "" {
		// Helpers of one turn run at once: each line says whose it is.
		who += " (" + OneLine(a.Question, 40) + ")"
	}
	switch n.Kind {
	case agent.KindToolCall:
		return who + " → " + CallSummary(n.Call)
	case agent.KindToolResult:
		if !n.IsErr {
			return ""
		}
		return who + " ✗ " + callName(n.Call) + ": " + FirstLine(strings.TrimPrefix(n.Output, "error: "), 120)
	case agent.KindRetry, agent.KindBudget, agent.KindNotice:
		return who + " · " + OneLine(n.Text, 200)
	case agent.KindEnd:
		if n.Result == nil {
			return ""
		}
		return who + " ── " + ResultLine(*n.Result)
	}
	return ""
}

// ResultLine is a result in one line: status, files, steps, tokens, cost.
func ResultLine(r agent.Result) string {
	var parts []string
	status := EndWord(r)
	switch {
	case r.Outcome != "" || r.Cancelled || r.Reason == "verifyFailed":
	case r.Verified && (r.Status == agent.StatusOK || r.Reason == "maxSteps" || r.Reason == "budget"):
		// Checked, also at a graceful end at the task's limit.
		status += ", verified"
	}
	parts = append(parts, status)
	switch n := len(r.FilesChanged); {
	case n == 0 && r.Outcome != "":
		// Nothing landed, and the front end says what became of the
		// change (it waits in a worktree, or for review).
		parts = append(parts, r.Outcome)
	case n == 0:
		parts = append(parts, "no files changed")
	case n == 1:
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

// Checks is a check run's outcome as a tool's text (ACP's verify tool
// call): the mark and summary, and for a failure the feedback the model
// got.
func Checks(rep agent.VerifyReport) string {
	if rep.Passed {
		return "✓ " + rep.Summary
	}
	text := "✗ " + rep.Summary
	if rep.Feedback != "" {
		text += "\n\n" + rep.Feedback
	}
	return text
}

// FirstLine is s's first line within max bytes, "…" marking a cut, or
// "(no output)".
func FirstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no output)"
	}
	more := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, more = s[:i], true
	}
	if len(s) > max {
		s, more = textcut.Head(s, max), true
	}
	if more {
		s += " …"
	}
	return s
}

// OneLine folds s's white space into single spaces, within max bytes.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	return textcut.Head(s, max) + "…"
}

// Abbreviate keeps the first lines of s within max bytes, one line per
// line of s joined by " ⏎ " when lines is small.
func Abbreviate(s string, lines, max int) string {
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

// Clip keeps s's first max bytes and says how many it left out.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := textcut.Head(s, max)
	return cut + fmt.Sprintf("\n… (%d more bytes)", len(s)-len(cut))
}

// mdLocated renders "file:line: message" with the place as code.
func mdLocated(l string) string {
	if i := strings.Index(l, ": "); i > 0 {
		return "`" + strings.ReplaceAll(l[:i], "`", "'") + "` " + l[i+2:]
	}
	return l
}

// Plural is "s" unless n is 1: "%d file%s".
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
