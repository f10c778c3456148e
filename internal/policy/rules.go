package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// rule is a tools.allow or tools.deny entry, split once per Check.
type rule struct {
	raw   string
	words []string
	glob  bool
}

func compile(rules []string) []rule {
	out := make([]rule, 0, len(rules))
	for _, r := range rules {
		r = strings.TrimSpace(r)
		if w := ruleWords(r); len(w) > 0 {
			out = append(out, rule{raw: r, words: w, glob: isGlob(r)})
		}
	}
	return out
}

// ruleWords splits a rule into words the way the shell would ("go test
// -exec 'touch m'" has four), keeping glob characters as written.
func ruleWords(rule string) []string {
	if !strings.ContainsAny(rule, "'\"\\$`") {
		return strings.Fields(rule) // nothing to unquote: skip the parser
	}
	f, err := parse(rule)
	if err == nil && len(f.Stmts) == 1 {
		if c, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(c.Assigns) == 0 && len(c.Args) > 0 {
			out := make([]string, len(c.Args))
			for i, w := range c.Args {
				out[i] = wordOf(w).s
			}
			return out
		}
	}
	return strings.Fields(rule)
}

// ruleText spells words as a rule, quoting the ones the shell would split.
func ruleText(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`;&|()<>*?[]{}#~") {
			if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
				out[i] = q
			}
		}
	}
	return strings.Join(out, " ")
}

func isGlob(rule string) bool { return strings.ContainsAny(rule, "*?[") }

// WildMatch matches a glob where * matches any run of characters (spaces
// and slashes included), ? one character and [...] a class ([!...] or
// [^...] negated). A [ without a closing ] is literal.
func WildMatch(pattern, s string) bool {
	p, str := []rune(pattern), []rune(s)
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(str) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				star, mark = pi, si
				pi++
				continue
			case '?':
				pi++
				si++
				continue
			case '[':
				if ok, next, valid := matchClass(p, pi, str[si]); valid {
					if ok {
						pi, si = next, si+1
						continue
					}
				} else if str[si] == '[' {
					pi++
					si++
					continue
				}
			default:
				if p[pi] == str[si] {
					pi++
					si++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		mark++
		pi, si = star+1, mark
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchClass matches c against the class starting at p[i] == '['; valid is
// false when the class has no closing bracket.
func matchClass(p []rune, i int, c rune) (ok bool, next int, valid bool) {
	end := i + 1
	if end < len(p) && (p[end] == '!' || p[end] == '^') {
		end++
	}
	if end < len(p) && p[end] == ']' {
		end++
	}
	for end < len(p) && p[end] != ']' {
		end++
	}
	if end >= len(p) {
		return false, 0, false
	}
	class, neg := p[i+1:end], false
	if len(class) > 0 && (class[0] == '!' || class[0] == '^') {
		class, neg = class[1:], true
	}
	in := false
	for k := 0; k < len(class); k++ {
		if k+2 < len(class) && class[k+1] == '-' {
			in = in || class[k] <= c && c <= class[k+2]
			k += 2
		} else if class[k] == c {
			in = true
		}
	}
	return in != neg, end + 1, true
}
