package policy

import (
	"fmt"
	"path"
	"strings"
)

// Verdict is what the caller does with a command.
type Verdict int

const (
	// Ask: the user decides (a prompt in the editor or on the terminal;
	// refused when nobody can be asked).
	Ask Verdict = iota
	// Allow: run without asking.
	Allow
	// Deny: refuse without asking.
	Deny
)

// Rules are the tools.allow and tools.deny settings.
//
// A rule is a program followed by arguments, compared word by word after
// the shell's quote removal, so "git  push" and "git 'push'" are "git push".
//
// A deny rule matches every program the command would run: inside
// pipelines, lists, subshells, { } groups, functions, if/for/while/case,
// $(…), `…`, <(…), here-documents, sh/bash/dash/zsh -c strings, and behind
// the wrappers command, builtin, exec, env, nice, nohup, timeout, time,
// stdbuf, setsid, ionice, sudo, doas, xargs, busybox and find -exec. Its
// first word is compared with the program's base name (so "rm" matches
// /bin/rm, ./rm, \rm and 'r”m'); its other words must appear among the
// program's arguments in that order, not necessarily next to each other
// (so "git push" matches "git -C dir push --force"). A rule with * ? or [
// is a glob over "program arguments…", where * also matches spaces and
// slashes. A command that names a denied program as an argument of some
// other program (watch rm, strace rm) is asked about.
//
// An allow rule matches a program as spelled (a rule "go test" does not
// admit ./go), as a prefix on whole words: "go test" allows "go test ./..."
// and not "go testx". A glob rule must match all the words. A rule also
// admits a wrapper chain when it spells the wrapper and the program
// ("timeout 60 go test"); transparent wrappers (env, nice, timeout, xargs,
// …) need no rule of their own, sudo and doas do. Every program of the
// command must be allowed. "*" allows every command the parser can reduce
// to plain programs, except those with an option that runs another program
// (see runsOther): those need a rule that names the option. Output
// redirection to a file is admitted only by "*".
//
// Deny wins over allow. A command the parser cannot reduce to programs (a
// program named by a variable or a substitution, eval, source, alias, a
// parse error) is asked about, never allowed by a rule. No matching rule
// asks too.
type Rules struct {
	Allow, Deny []string
}

// Decision is the policy's answer for one command.
type Decision struct {
	Verdict Verdict
	// Reason is a sentence for the model and the user: which rule denied
	// the command, or why it needs a question and how to allow it.
	Reason string
	// Programs are the programs the command would run, wrappers included,
	// in the order they appear, as spelled after quote removal.
	Programs []string
	// Rule is an allow rule that would admit the first program no rule
	// allows ("" when none could), for an "Always allow" answer.
	Rule string
}

// Check decides whether command may run without asking.
func (r Rules) Check(command string) Decision {
	command = strings.TrimSpace(command)
	if command == "" {
		return Decision{Verdict: Ask, Reason: "the command is empty"}
	}
	a := analyze(command)
	d := Decision{Programs: a.programs()}
	deny, allow := compile(r.Deny), compile(r.Allow)
	for _, inv := range a.invs {
		for _, l := range inv.layers {
			for _, rule := range deny {
				if denies(rule, l) {
					d.Verdict = Deny
					d.Reason = fmt.Sprintf("the command runs %s, which the tools.deny rule %q refuses", l.text(), rule.raw)
					return d
				}
			}
		}
	}
	asks := a.asks
	for _, inv := range a.invs {
		for _, l := range inv.layers {
			for _, rule := range deny {
				if why := mayDeny(rule, l); why != "" {
					asks = append(asks, why)
				}
			}
		}
	}
	star := false
	for _, rule := range allow {
		star = star || rule.raw == "*"
	}
	for _, inv := range a.invs {
		if why, rule := allows(allow, inv, star); why != "" {
			asks = append(asks, why)
			if d.Rule == "" {
				d.Rule = rule
			}
		}
	}
	if len(a.writes) > 0 && !star {
		asks = append(asks, fmt.Sprintf("the command contains output redirection to a file (%s), which only the tools.allow rule \"*\" admits", a.writes[0]))
	}
	if len(asks) > 0 {
		d.Verdict = Ask
		d.Reason = asks[0]
		if len(asks) > 1 {
			d.Reason += fmt.Sprintf(" (and %d more reasons)", len(asks)-1)
		}
		return d
	}
	d.Verdict = Allow
	return d
}

func (a *analysis) programs() []string {
	var out []string
	seen := map[string]bool{}
	for _, inv := range a.invs {
		for _, l := range inv.layers {
			if p := l.words[0].s; !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// text is the layer's words joined by single spaces, unknown ones as <…>.
func (l layer) text() string {
	return strings.Join(l.strs(0), " ")
}

func (l layer) strs(from int) []string {
	out := make([]string, 0, len(l.words)-from)
	for _, w := range l.words[from:] {
		if w.static() {
			out = append(out, w.s)
		} else {
			out = append(out, "<"+w.dyn+">")
		}
	}
	return out
}

// denies reports whether a deny rule matches the program of layer l.
func denies(r rule, l layer) bool {
	rw := r.words
	name := path.Base(l.words[0].s)
	if r.glob {
		rw = append([]string{path.Base(rw[0])}, rw[1:]...)
		words := append([]string{name}, l.strs(1)...)
		return WildMatch(strings.Join(rw, " "), strings.Join(words, " "))
	}
	if path.Base(rw[0]) != name {
		return false
	}
	next := 1
	for _, w := range rw[1:] {
		for next < len(l.words) && !(l.words[next].static() && l.words[next].s == w) {
			next++
		}
		if next == len(l.words) {
			return false
		}
		next++
	}
	return true
}

// mayDeny explains why a deny rule might match at run time: the program
// matches but an argument is unknown, or an argument names the denied
// program, which the program may run (watch rm, strace rm, ssh host rm).
func mayDeny(r rule, l layer) string {
	rw, rule := r.words, r.raw
	first := path.Base(rw[0])
	name := path.Base(l.words[0].s)
	if (first == name || isGlob(first) && WildMatch(first, name)) && (len(rw) > 1 || r.glob) {
		for _, w := range l.words[1:] {
			if !w.static() {
				return fmt.Sprintf("an argument of %s is a %s, so the tools.deny rule %q might match", name, w.dyn, rule)
			}
		}
	}
	if dataOnly[name] {
		return ""
	}
	end := len(l.words)
	if l.inner > 0 {
		end = l.inner // the inner program is a layer of its own
	}
	for _, w := range l.words[1:end] {
		if !w.static() {
			continue
		}
		for _, tok := range strings.FieldsFunc(w.s, isSep) {
			if b := path.Base(tok); b == first || isGlob(first) && WildMatch(first, b) {
				return fmt.Sprintf("the argument %q of %s names %s, which the tools.deny rule %q refuses, and %s may run it", w.s, name, b, rule, name)
			}
			if b, ok := attachedNames(tok, name, first); ok {
				return fmt.Sprintf("the argument %q of %s holds %s as an option's value, which the tools.deny rule %q refuses, and %s may run it", w.s, name, b, rule, name)
			}
		}
	}
	return ""
}

// attachedNames looks for the denied program first inside a short
// option's attached value (git grep -Orm, rebase -xrm, a cluster -iOrm),
// for the programs whose options run another one (runsOther).
func attachedNames(tok, program, first string) (string, bool) {
	if _, ok := runsOther[program]; !ok || len(tok) < 3 || tok[0] != '-' || tok[1] == '-' {
		return "", false
	}
	for k := 2; k < len(tok); k++ {
		if b := path.Base(tok[k:]); b == first || isGlob(first) && WildMatch(first, b) {
			return b, true
		}
	}
	return "", false
}

// dataOnly are programs that never run their arguments as programs, so a
// denied program's name among them is only text (grep 'rm -rf' file).
var dataOnly = map[string]bool{
	"echo": true, "printf": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true,
	"cat": true, "head": true, "tail": true, "wc": true, "sort": true, "uniq": true, "cut": true, "tr": true,
	"diff": true, "cmp": true, "comm": true, "ls": true, "stat": true, "file": true, "touch": true,
	"mkdir": true, "cp": true, "mv": true, "ln": true, "chmod": true, "test": true, "[": true,
	"true": true, "false": true, "basename": true, "dirname": true, "realpath": true, "readlink": true,
	"which": true, "type": true, "jq": true, "tee": true, "base64": true, "sha256sum": true,
	"md5sum": true, "du": true, "df": true, "tree": true, "column": true, ":": true,
}

func isSep(r rune) bool { return strings.ContainsRune(" \t\n;&|()<>`'\"$={},", r) }

// allows checks inv against the allow rules; it returns "" when allowed,
// else why not and a rule that would allow it.
func allows(rules []rule, inv invocation, star bool) (why, suggestion string) {
	n := len(inv.layers)
	hi := n - 1 // rules may match at layers 0…hi: an opaque wrapper must be spelled
	for k, l := range inv.layers {
		if l.opaque {
			hi = k
			break
		}
	}
	if inv.shellC && hi == n-1 {
		return "", "" // the -c string's programs are checked on their own
	}
	var toks []string
	for k, l := range inv.layers {
		t, dyn := findings(l, inv.open && k == n-1)
		if dyn != "" {
			return dyn + "; a tools.allow rule cannot admit it", ""
		}
		toks = append(toks, t...)
	}
	if star && len(toks) == 0 {
		return "", ""
	}
	off := make([]int, n) // index of the innermost program in layer k's words
	for k := n - 2; k >= 0; k-- {
		off[k] = inv.layers[k].inner + off[k+1]
	}
	for k := 0; k <= hi; k++ {
		words := inv.layers[k].strs(0)
		for _, rule := range rules {
			if rule.raw == "*" {
				continue
			}
			if allowMatches(rule, words, k == n-1, off[k]) && names(rule, toks) {
				return "", ""
			}
		}
	}
	last := inv.last()
	text := last.text()
	if len(toks) > 0 {
		rule := ruleText(inv.layers[0].strs(0))
		return fmt.Sprintf("%s runs another program (%s), which \"*\" and rules that do not name %q do not admit. To allow it, add a tools.allow rule that names it, e.g. %q", inv.layers[0].text(), strings.Join(toks, ", "), toks[0], rule), rule
	}
	if hi < n-1 {
		rule := ruleText(inv.layers[hi].strs(0))
		return fmt.Sprintf("no tools.allow rule matches %q; %s needs a rule that spells it, e.g. {\"tools\": {\"allow\": [%q]}}", rule, path.Base(inv.layers[hi].words[0].s), rule), rule
	}
	rule := suggest(last)
	return fmt.Sprintf("the command %q is not allowed: no tools.allow rule matches %q. To allow it, add a rule to \"tools.allow\" in .agentls.json or in the editor's agentls settings, e.g. {\"tools\": {\"allow\": [%q]}}", text, text, rule), rule
}

// allowMatches matches an allow rule against a layer's words. On a wrapper
// layer (not innermost) only a plain rule that reaches past the wrapper's
// own arguments into the program counts.
func allowMatches(r rule, words []string, innermost bool, inner int) bool {
	if r.glob {
		return innermost && WildMatch(strings.Join(r.words, " "), strings.Join(words, " "))
	}
	rw := r.words
	if len(rw) > len(words) || !innermost && len(rw) <= inner {
		return false
	}
	for i, w := range rw {
		if words[i] != w {
			return false
		}
	}
	return true
}

// names reports whether the rule spells every token.
func names(r rule, toks []string) bool {
	rw, rule := r.words, r.raw
	for _, t := range toks {
		found := false
		for _, w := range rw {
			if w == t || strings.HasPrefix(w, t+"=") || strings.HasPrefix(w, t) && strings.HasSuffix(t, "=") || isShort(t) && inCluster(w, t[1]) {
				found = true
				break
			}
		}
		if !found && !(r.glob && strings.Contains(rule, t)) {
			return false
		}
	}
	return true
}

// suggest proposes an allow rule for a layer: its program and, for tools
// with subcommands, the subcommand.
func suggest(l layer) string {
	w := l.strs(0)
	if len(w) >= 2 && l.words[1].static() && !strings.HasPrefix(w[1], "-") && !strings.ContainsAny(w[1], "/.=$") {
		return ruleText(w[:2])
	}
	return ruleText(w[:1])
}
