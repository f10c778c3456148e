package verify

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentls/agentls/internal/textcut"
)

// DefaultFeedbackBytes caps Feedback when maxBytes is not positive.
const DefaultFeedbackBytes = 8 << 10

// Feedback is the failure text for the model: which checks passed, then for
// each failing check its located findings as workspace-relative
// "path:line:col: message" lines (errors first), then the tail of its raw
// output, all within maxBytes. It is empty when every check passed.
func Feedback(results []Result, maxBytes int) string {
	if maxBytes <= 0 {
		maxBytes = DefaultFeedbackBytes
	}
	var passed []string
	var failed []Result
	var before []string
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if d.PreExisting && len(before) < 5 {
				before = append(before, diagnosticLine(d, r.Root))
			}
		}
		switch {
		case r.Passed:
			passed = append(passed, "`"+r.Command+"`")
		case !r.PreExisting:
			failed = append(failed, r)
		}
	}
	if len(failed) == 0 {
		return ""
	}

	var b strings.Builder
	if len(passed) > 0 {
		fmt.Fprintf(&b, "Passed: %s.\n", strings.Join(passed, ", "))
	}
	// Each failure gets an equal share; within it the findings may take
	// two thirds and the raw output's tail the rest.
	share := (maxBytes - b.Len()) / len(failed)
	for _, r := range failed {
		start := b.Len()
		b.WriteString(failureHeader(r))
		writeDiagnostics(&b, r, start+share*2/3)
		if room := start + share - b.Len(); room > 200 {
			writeTail(&b, withoutPreExisting(r), room)
		}
	}
	if len(before) > 0 {
		// Labelled apart, so the model leaves them: they were there
		// before the task (the user's unfinished text, an old failure).
		b.WriteString("There before this task, not yours to fix (leave them):\n" + strings.Join(before, ""))
	}
	return textcut.Head(b.String(), maxBytes)
}

func failureHeader(r Result) string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("`%s` timed out after %s and was killed.\n", r.Command, r.Duration.Round(1e9))
	case r.ExitCode == -1:
		return fmt.Sprintf("`%s` did not finish.\n", r.Command)
	}
	return fmt.Sprintf("`%s` failed (exit %d).\n", r.Command, r.ExitCode)
}

const maxFeedbackEntry = 600

func writeDiagnostics(b *strings.Builder, r Result, limit int) {
	var diags []Diagnostic
	for _, d := range r.Diagnostics {
		if !d.PreExisting {
			diags = append(diags, d)
		}
	}
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Severity < diags[j].Severity })
	for i, d := range diags {
		line := diagnosticLine(d, r.Root)
		if b.Len()+len(line) > limit {
			fmt.Fprintf(b, "… and %d more findings\n", len(diags)-i)
			return
		}
		b.WriteString(line)
	}
}

func diagnosticLine(d Diagnostic, root string) string {
	p := d.Path
	if root != "" {
		if rel, err := filepath.Rel(root, d.Path); err == nil && filepath.IsLocal(rel) {
			p = filepath.ToSlash(rel)
		}
	}
	loc := fmt.Sprintf("%s:%d", p, d.Line)
	if d.Col > 0 {
		loc += fmt.Sprintf(":%d", d.Col)
	}
	msg := d.Message
	if d.Severity != Error {
		msg = d.Severity.String() + ": " + msg
	}
	if d.Code != "" && !strings.Contains(msg, d.Code) {
		msg += " [" + d.Code + "]"
	}
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\n", "\n    ")
	line := loc + ": " + msg
	if len(line) > maxFeedbackEntry {
		line = textcut.Head(line, maxFeedbackEntry) + " …"
	}
	return line + "\n"
}

// writeTail writes the end of the output, from a line start, in about room
// bytes.
func writeTail(b *strings.Builder, output string, room int) {
	out := strings.TrimRight(stripANSI(output), "\n")
	if out == "" {
		return
	}
	header := "Output (end):\n"
	room -= len(header) + 1
	if len(out) > room {
		cut := len(out) - room
		if k := strings.IndexByte(out[cut:], '\n'); k >= 0 && k < room/2 {
			cut += k + 1
		}
		out = out[textcut.Ceil(out, cut):]
	}
	b.WriteString(header)
	b.WriteString(out)
	b.WriteString("\n")
}

// withoutPreExisting is r's output without the lines that locate a
// finding that was there before the task: the model is told of those
// apart.
func withoutPreExisting(r Result) string {
	var locs []string
	for _, d := range r.Diagnostics {
		if !d.PreExisting {
			continue
		}
		p := d.Path
		if rel, err := filepath.Rel(r.Root, d.Path); err == nil && filepath.IsLocal(rel) {
			p = filepath.ToSlash(rel)
		}
		locs = append(locs, fmt.Sprintf("%s:%d:", p, d.Line))
	}
	if len(locs) == 0 {
		return r.Output
	}
	lines := strings.SplitAfter(r.Output, "\n")
	out := lines[:0]
	for _, l := range lines {
		drop := false
		for _, loc := range locs {
			if strings.Contains(l, loc) {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
