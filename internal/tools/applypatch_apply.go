package tools

import (
	"fmt"
	"slices"
	"strings"
)

// srcLine is a line of a file being patched and its line break ("\n",
// "\r\n", or "" for a last line without one).
type srcLine struct{ text, eol string }

// splitSource cuts text into lines, each keeping its own line break, and
// returns the break of the first line that has one ("\n" if none): the
// file's style, which the lines a patch adds take. A file with mixed
// endings keeps each untouched line as it was.
func splitSource(text string) ([]srcLine, string) {
	var lines []srcLine
	style := ""
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, srcLine{text: text})
			break
		}
		l := srcLine{text: text[:i], eol: "\n"}
		if strings.HasSuffix(l.text, "\r") {
			l.text, l.eol = l.text[:len(l.text)-1], "\r\n"
		}
		if style == "" {
			style = l.eol
		}
		lines = append(lines, l)
		text = text[i+1:]
	}
	if style == "" {
		style = "\n"
	}
	return lines, style
}

// replacement is a hunk placed in the file: lines [at, at+n) become with.
type replacement struct {
	at, n int
	with  []srcLine
}

// applyHunks applies an update's hunks to text. Each hunk is placed in the
// original text, in order, each searched from where the previous one
// ended (a hunk of only added lines goes at the file's end and moves
// nothing); then all are applied at once. A hunk whose lines carry
// read_file's line-number prefix is tried again without it.
func applyHunks(rel, text string, hunks []patchHunk) (string, error) {
	src, style := splitSource(text)
	lines := make([]string, len(src))
	for i, l := range src {
		lines[i] = l.text
	}
	var reps []replacement
	cursor := 0
	for n, h := range hunks {
		if h.anchor != "" {
			at := seek(lines, []string{h.anchor}, cursor, false)
			if at < 0 {
				if s, ok := stripNumber(h.anchor); ok {
					at = seek(lines, []string{s}, cursor, false)
				}
			}
			if at < 0 {
				return "", fmt.Errorf("hunk %d: the @@ line %q is not in %s%s", n+1, h.anchor, rel, after(cursor))
			}
			cursor = at + 1
		}
		if len(h.old) == 0 {
			// Only added lines: at the end, before a last empty line.
			at := len(lines)
			if at > 0 && lines[at-1] == "" {
				at--
			}
			reps = append(reps, replacement{at: at, with: added(h.new, style)})
			continue
		}
		at, h := place(lines, h, cursor)
		if at < 0 {
			return "", fmt.Errorf("hunk %d: its context and removed lines are not in %s%s:\n%s\nread the file again and give lines exactly as they are", n+1, rel, after(cursor), strings.Join(h.old, "\n"))
		}
		with := make([]srcLine, len(h.new))
		for i, l := range h.new {
			if c := h.ctx[i]; c >= 0 {
				with[i] = src[at+c] // a context line stays as the file has it
			} else {
				with[i] = srcLine{text: l, eol: style}
			}
		}
		reps = append(reps, replacement{at: at, n: len(h.old), with: with})
		cursor = at + len(h.old)
	}
	slices.SortStableFunc(reps, func(a, b replacement) int { return a.at - b.at })
	var out []srcLine
	next := 0
	for _, r := range reps {
		if r.at < next {
			return "", fmt.Errorf("two hunks of the patch change the same lines of %s (line %d)", rel, r.at+1)
		}
		out = append(out, src[next:r.at]...)
		out = append(out, r.with...)
		next = r.at + r.n
	}
	out = append(out, src[next:]...)
	var b strings.Builder
	for _, l := range out {
		b.WriteString(l.text)
		if l.eol == "" {
			l.eol = style // an updated file ends with a line break
		}
		b.WriteString(l.eol)
	}
	return b.String(), nil
}

func after(cursor int) string {
	return cond(cursor > 0, fmt.Sprintf(" after line %d", cursor), "")
}

func added(texts []string, style string) []srcLine {
	out := make([]srcLine, len(texts))
	for i, t := range texts {
		out[i] = srcLine{text: t, eol: style}
	}
	return out
}

// place finds where h's old lines are, at or after from, and returns the
// hunk as placed (it may have dropped a trailing empty context line, which
// often stands for the file's end, or read_file's line numbers), or -1.
func place(lines []string, h patchHunk, from int) (int, patchHunk) {
	try := func(h patchHunk) (int, patchHunk) {
		if at := seek(lines, h.old, from, h.eof); at >= 0 {
			return at, h
		}
		if n := len(h.old); n > 0 && h.old[n-1] == "" {
			t := h
			t.old = h.old[:n-1]
			if m := len(h.new); m > 0 && h.new[m-1] == "" {
				t.new, t.ctx = h.new[:m-1], h.ctx[:m-1]
			}
			if at := seek(lines, t.old, from, t.eof); at >= 0 && len(t.old) > 0 {
				return at, t
			}
		}
		return -1, h
	}
	if at, placed := try(h); at >= 0 {
		return at, placed
	}
	if s, ok := withoutNumbers(h); ok {
		if at, placed := try(s); at >= 0 {
			return at, placed
		}
	}
	return -1, h
}

// withoutNumbers is h with read_file's line-number prefix taken off its
// lines, when every context and removed line has one (a uniform prefix is
// a paste, not content); added lines lose it when they all have it too.
func withoutNumbers(h patchHunk) (patchHunk, bool) {
	var old []string
	for _, l := range h.old {
		s, ok := stripNumber(l)
		if !ok {
			return h, false
		}
		old = append(old, s)
	}
	addedAll := true
	for i, l := range h.new {
		if _, ok := stripNumber(l); h.ctx[i] < 0 && !ok {
			addedAll = false
		}
	}
	nw := slices.Clone(h.new)
	for i, l := range nw {
		if c := h.ctx[i]; c >= 0 {
			nw[i] = old[c]
		} else if addedAll {
			nw[i], _ = stripNumber(l)
		}
	}
	h.old, h.new = old, nw
	return h, true
}

func stripNumber(l string) (string, bool) {
	loc := lineNumber.FindStringIndex(l)
	if loc == nil {
		return "", false
	}
	return l[loc[1]:], true
}

// seek finds want in lines at or after from (for eof, only at the very
// end), -1 if nowhere: exactly first, then ignoring trailing whitespace,
// then surrounding whitespace, then also the typographic punctuation
// (dashes, quotes, odd spaces) that ASCII text in a patch stands for.
func seek(lines, want []string, from int, eof bool) int {
	if len(want) == 0 {
		return from
	}
	if len(want) > len(lines) {
		return -1
	}
	start := from
	if eof {
		start = len(lines) - len(want)
	}
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r\v\f") },
		strings.TrimSpace,
		asciiPunct,
	} {
		for i := max(start, 0); i+len(want) <= len(lines); i++ {
			ok := true
			for j, w := range want {
				if norm(lines[i+j]) != norm(w) {
					ok = false
					break
				}
			}
			if ok {
				return i
			}
		}
	}
	return -1
}

// punct maps typographic characters to the ASCII a model types for them.
var punct = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
)

func asciiPunct(s string) string { return punct.Replace(strings.TrimSpace(s)) }
