package tools

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

var heredoc = regexp.MustCompile(`^(?:apply_patch\s+)?<<(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)$`)

// The patch language, as the models trained on it write it and as Codex's
// own apply_patch reads it (the cases of its tests are table-tested in
// applypatch_codex_test.go):
//
//   - the text is trimmed; its first line must be *** Begin Patch and its
//     last *** End Patch, each allowed surrounding spaces; a patch wrapped
//     in a bare heredoc (<<EOF, <<'EOF' or <<"EOF" … EOF) is unwrapped;
//   - a file section starts with a header, allowed leading spaces:
//     *** Add File: p (then its lines, each starting with +),
//     *** Delete File: p, or *** Update File: p (then an optional
//     *** Move to: q and one or more hunks);
//   - a hunk starts with @@ or "@@ text" (the first may leave it out), then
//     lines starting with " " (context), "-" (removed) or "+" (added); an
//     empty line is an empty context line; *** End of File ends a hunk that
//     must match at the file's end. A hunk needs at least one line.

// patchGrammar is the language above as a Lark grammar, the form the
// Responses API takes for a custom tool's format: the model's sampling is
// held to it.
const patchGrammar = `start: "*** Begin Patch" NL section+ "*** End Patch" NL?

section: added | deleted | updated
added: "*** Add File: " LINE NL plus+
deleted: "*** Delete File: " LINE NL
updated: "*** Update File: " LINE NL renamed? body?
renamed: "*** Move to: " LINE NL
body: (anchor | edit)+ at_end?
anchor: "@@" NL | "@@ " LINE NL
plus: "+" REST NL
edit: /[ +-]/ REST NL
at_end: "*** End of File" NL

LINE: /.+/
REST: /.*/
NL: /\n/
`

const (
	markBegin  = "*** Begin Patch"
	markEnd    = "*** End Patch"
	markAdd    = "*** Add File: "
	markDelete = "*** Delete File: "
	markUpdate = "*** Update File: "
	markMove   = "*** Move to: "
	markEOF    = "*** End of File"
)

// patchOp is one file's part of a patch.
type patchOp struct {
	kind   string // "add", "delete", "update"
	path   string
	moveTo string
	lines  []string    // add: the new file's lines
	hunks  []patchHunk // update
}

type patchHunk struct {
	anchor   string // the text after "@@ ", "" for none
	old, new []string
	// ctx[i] is the index in old of new[i] when it is a context line
	// (kept as the file has it: matching may be lenient, and the line
	// keeps its own line ending), else -1.
	ctx []int
	eof bool
}

// patchLines splits a patch into lines, a CR before a line break dropped.
func patchLines(text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// envelope returns the lines between *** Begin Patch and *** End Patch,
// unwrapping a heredoc.
func envelope(lines []string) ([]string, error) {
	strict := func(ls []string) ([]string, error) {
		switch {
		case len(ls) == 0 || strings.TrimSpace(ls[0]) != markBegin:
			return nil, errors.New("the first line of the patch must be *** Begin Patch")
		case len(ls) < 2 || strings.TrimSpace(ls[len(ls)-1]) != markEnd:
			return nil, errors.New("the last line of the patch must be *** End Patch")
		}
		return ls[1 : len(ls)-1], nil
	}
	body, err := strict(lines)
	if err == nil {
		return body, nil
	}
	// A heredoc: <<EOF, <<'EOF' or <<"EOF" (any word, the quotes
	// matching), perhaps after "apply_patch ", a shell command some models
	// keep, closed by the word.
	if n := len(lines); n >= 4 {
		if m := heredoc.FindStringSubmatch(strings.TrimSpace(lines[0])); m != nil && m[1] == m[3] && strings.HasSuffix(strings.TrimSpace(lines[n-1]), m[2]) {
			return strict(lines[1 : n-1])
		}
	}
	return nil, err
}

// parsePatch reads a patch. Its errors name the line at fault, numbered
// from the patch's first line.
func parsePatch(text string) ([]patchOp, error) {
	lines, err := envelope(patchLines(text))
	if err != nil {
		return nil, err
	}
	var ops []patchOp
	for i := 0; i < len(lines); {
		header := strings.TrimSpace(lines[i])
		at := i + 2 // the line's number in the patch
		switch {
		case header == "":
			i++
		case strings.HasPrefix(header, markAdd):
			op := patchOp{kind: "add", path: strings.TrimSpace(header[len(markAdd):])}
			for i++; i < len(lines) && strings.HasPrefix(lines[i], "+"); i++ {
				op.lines = append(op.lines, lines[i][1:])
			}
			ops = append(ops, op)
		case strings.HasPrefix(header, markDelete):
			ops = append(ops, patchOp{kind: "delete", path: strings.TrimSpace(header[len(markDelete):])})
			i++
		case strings.HasPrefix(header, markUpdate):
			op := patchOp{kind: "update", path: strings.TrimSpace(header[len(markUpdate):])}
			i++
			if i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), markMove) {
				op.moveTo = strings.TrimSpace(strings.TrimSpace(lines[i])[len(markMove):])
				i++
			}
			for i < len(lines) {
				if strings.TrimSpace(lines[i]) == "" {
					i++
					continue
				}
				if strings.HasPrefix(lines[i], "*") {
					break
				}
				h, n, err := parseHunk(lines[i:], i+2, len(op.hunks) == 0)
				if err != nil {
					return nil, err
				}
				op.hunks = append(op.hunks, h)
				i += n
			}
			if len(op.hunks) == 0 && op.moveTo == "" {
				return nil, fmt.Errorf("patch line %d: *** Update File: %s has no hunk", at, op.path)
			}
			ops = append(ops, op)
		default:
			return nil, fmt.Errorf("patch line %d: %q is not a file header; expected *** Add File: path, *** Delete File: path or *** Update File: path", at, header)
		}
	}
	if len(ops) == 0 {
		return nil, errors.New("the patch changes no file")
	}
	return ops, nil
}

// parseHunk reads one hunk from lines (line numbered at); first says it
// is the file's first hunk, which may leave out its @@. It returns the
// number of lines read.
func parseHunk(lines []string, at int, first bool) (patchHunk, int, error) {
	var h patchHunk
	start := 0
	switch l := lines[0]; {
	case l == "@@":
		start = 1
	case strings.HasPrefix(l, "@@ "):
		h.anchor = l[3:]
		start = 1
	case !first:
		return h, 0, fmt.Errorf("patch line %d: a hunk starts with @@, got %q", at, l)
	}
	n := 0 // lines of the hunk's body read
	for _, l := range lines[start:] {
		if l == markEOF {
			if n == 0 {
				break
			}
			h.eof = true
			n++
			break
		}
		switch {
		case l == "":
			h.ctx = append(h.ctx, len(h.old))
			h.old, h.new = append(h.old, ""), append(h.new, "")
		case l[0] == ' ':
			h.ctx = append(h.ctx, len(h.old))
			h.old, h.new = append(h.old, l[1:]), append(h.new, l[1:])
		case l[0] == '-':
			h.old = append(h.old, l[1:])
		case l[0] == '+':
			h.ctx = append(h.ctx, -1)
			h.new = append(h.new, l[1:])
		default:
			if n == 0 {
				return h, 0, fmt.Errorf("patch line %d: a hunk line starts with a space, - or +, got %q", at+start, l)
			}
			return h, start + n, nil // the next hunk or file starts here
		}
		n++
	}
	if n == 0 {
		return h, 0, fmt.Errorf("patch line %d: the hunk has no lines", at+start)
	}
	return h, start + n, nil
}
