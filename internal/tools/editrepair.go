package tools

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"regexp"
	"strings"
)

// findAll returns the offsets of the non-overlapping occurrences of sub.
func findAll(text, sub string) []int {
	var offs []int
	for i := 0; ; {
		j := strings.Index(text[i:], sub)
		if j < 0 {
			return offs
		}
		offs = append(offs, i+j)
		i += j + len(sub)
	}
}

// lineNumber is read_file's prefix ("%d\t"; "%6d\t" before), as models paste it.
var lineNumber = regexp.MustCompile(`^ *[0-9]+\t`)

// stripLineNumbers removes read_file's line-number prefix from every line
// of oldS, when every line has one (a uniform prefix is a paste, not
// content), and from newS when every line of it has one too.
func stripLineNumbers(oldS, newS string) (string, string, bool) {
	o, ok := stripEach(oldS)
	if !ok {
		return "", "", false
	}
	if n, ok := stripEach(newS); ok {
		newS = n
	}
	return o, newS, true
}

func stripEach(s string) (string, bool) {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return "", false
	}
	for i, l := range lines {
		loc := lineNumber.FindStringIndex(l)
		if loc == nil {
			return "", false
		}
		lines[i] = l[loc[1]:]
	}
	return strings.Join(lines, ""), true
}

// wsMatch finds the one run of whole lines of text that equals oldS's lines
// but for whitespace (indentation, spaces between tokens, trailing
// spaces). It returns the span to replace and newS re-indented the way
// the match differs from oldS in its first line (tabs for spaces, say).
// Several matches, or none, are not repaired.
func wsMatch(text, oldS, newS string) (start, end int, repl string, ok bool) {
	want := strings.Split(strings.TrimSuffix(oldS, "\n"), "\n")
	if len(want) == 0 || strings.TrimSpace(want[0]) == "" || strings.TrimSpace(want[len(want)-1]) == "" {
		return 0, 0, "", false
	}
	lines := strings.SplitAfter(text, "\n")
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	found, at := 0, 0
	for i := 0; i+len(want) <= len(lines); i++ {
		match := true
		for j, w := range want {
			if norm(lines[i+j]) != norm(w) {
				match = false
				break
			}
		}
		if match {
			found++
			at = i
		}
	}
	if found != 1 {
		return 0, 0, "", false
	}
	for _, l := range lines[:at] {
		start += len(l)
	}
	end = start
	for _, l := range lines[at : at+len(want)] {
		end += len(l)
	}
	if !strings.HasSuffix(oldS, "\n") && strings.HasSuffix(text[:end], "\n") {
		end--
	}
	// Re-indent newS: an indentation of old_string's lines becomes the
	// indentation of the file's line it matched (four spaces → a tab),
	// longest first, so new lines written in the same style fit.
	remap := map[string]string{}
	for j, w := range want {
		if from, to := indentOf(w), indentOf(lines[at+j]); from != to && strings.TrimSpace(w) != "" {
			remap[from] = to
		}
	}
	if len(remap) > 0 {
		nl := strings.SplitAfter(newS, "\n")
		for i, l := range nl {
			best := -1
			for from := range remap {
				if strings.HasPrefix(l, from) && len(from) > best && (from == indentOf(l) || len(from) > 0) {
					best = len(from)
				}
			}
			if best >= 0 {
				for from, to := range remap {
					if len(from) == best && strings.HasPrefix(l, from) {
						nl[i] = to + l[best:]
						break
					}
				}
			}
		}
		newS = strings.Join(nl, "")
	}
	return start, end, newS, true
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

func cond(b bool, s, alt string) string {
	if b {
		return s
	}
	return alt
}

// maxSyntaxErrors caps the errors syntaxNote lists.
const maxSyntaxErrors = 10

// syntaxNote checks a file just edited with a parser that costs next to
// nothing (Go's; JSON files are often JSON with comments, so not those) and words its errors for the tool result, so the
// model fixes them in its next edit rather than after the checks run.
// Empty for a file that parses or has no cheap check.
func syntaxNote(rel string, text []byte) string {
	switch strings.ToLower(path.Ext(rel)) {
	case ".go":
		_, err := parser.ParseFile(token.NewFileSet(), rel, text, parser.AllErrors|parser.SkipObjectResolution)
		if err == nil {
			return ""
		}
		var b strings.Builder
		b.WriteString("\nsyntax errors in " + rel + " after this edit (fix them):")
		if list, ok := err.(scanner.ErrorList); ok {
			for i, e := range list {
				if i == maxSyntaxErrors {
					fmt.Fprintf(&b, "\n… %d more", len(list)-i)
					break
				}
				fmt.Fprintf(&b, "\n%s", e)
			}
		} else {
			fmt.Fprintf(&b, "\n%v", err)
		}
		return b.String()
	}
	return ""
}
