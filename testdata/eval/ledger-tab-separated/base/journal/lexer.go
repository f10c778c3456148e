package journal

import (
	"strings"
	"unicode"
)

// lineKind classifies a line of a journal file.
type lineKind int

const (
	blankLine lineKind = iota
	commentLine
	headerLine
	postingLine
	directiveLine
)

func classify(line string) lineKind {
	trimmed := strings.TrimSpace(line)
	switch {
	case trimmed == "":
		return blankLine
	case strings.HasPrefix(trimmed, ";") || strings.HasPrefix(trimmed, "#"):
		return commentLine
	case unicode.IsSpace(rune(line[0])):
		return postingLine
	case line[0] >= '0' && line[0] <= '9':
		return headerLine
	}
	return directiveLine
}

// splitComment cuts a line at its first ";" (outside quotes).
func splitComment(s string) (text, comment string) {
	inQuote := false
	for i, r := range s {
		switch r {
		case '"':
			inQuote = !inQuote
		case ';':
			if !inQuote {
				return strings.TrimRight(s[:i], " \t"), strings.TrimSpace(s[i+1:])
			}
		}
	}
	return strings.TrimRight(s, " \t"), ""
}

// splitPosting cuts a posting's text into account and amount: they are
// separated by two spaces or a tab.
func splitPosting(s string) (account, amount string) {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "  "); i >= 0 {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+2:])
	}
	return s, ""
}

// tags reads "key: value" pairs from a comment ("trip: paris, receipt:").
func tags(comment string) map[string]string {
	var out map[string]string
	for _, part := range strings.Split(comment, ",") {
		k, v, ok := strings.Cut(part, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = strings.TrimSpace(v)
	}
	return out
}
