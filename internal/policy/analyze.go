package policy

// This file is over 400 lines because it is one walk over the shell syntax
// tree: every node kind that can run a program is handled here, so that a
// reader sees in one place what the policy looks through.

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds nested sh -c strings, so a deeply quoted command asks
// instead of recursing without end.
const maxDepth = 8

// layer is one program in a chain of wrappers: words is its argv (program
// first), inner the index in words of the program it runs (0 when it runs
// none), and opaque marks a wrapper that no allow rule sees through (sudo).
type layer struct {
	words  []word
	inner  int
	opaque bool
}

// invocation is one program the command runs, with the wrappers that run it
// (outermost first; the last layer is the program itself). open means more
// arguments come from input (xargs), so flags it would get are unknown.
type invocation struct {
	layers []layer
	open   bool
	shellC bool // the last layer is sh -c STRING, whose programs are invocations of their own
}

func (inv invocation) last() layer { return inv.layers[len(inv.layers)-1] }

// analysis is what the parser found in a command.
type analysis struct {
	invs   []invocation
	asks   []string // reasons the command cannot be vetted by rules
	writes []string // output redirections to files
}

func (a *analysis) ask(format string, args ...any) {
	a.asks = append(a.asks, fmt.Sprintf(format, args...))
}

// parsers are reused: a new parser allocates its buffers, which cost more
// than the parse of a short command. The syntax package's parsers are not
// safe for concurrent use, hence the pool.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func parse(src string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

func analyze(command string) *analysis {
	a := &analysis{}
	a.script(command, 0)
	return a
}

// script parses shell text and records every program it runs.
func (a *analysis) script(src string, depth int) {
	if depth > maxDepth {
		a.ask("the command nests shell strings more than %d levels deep", maxDepth)
		return
	}
	f, err := parse(src)
	if err != nil {
		a.ask("the policy cannot parse the command (%v)", err)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			a.call(n, depth)
		case *syntax.DeclClause:
			a.decl(n)
		case *syntax.CoprocClause:
			// "coproc /bin/rm x": bash takes a NAME only before a compound
			// command; before a simple one it is the program.
			st := n.Stmt
			for st != nil {
				b, ok := st.Cmd.(*syntax.BinaryCmd)
				if !ok {
					break
				}
				st = b.X // the parser puts a following pipeline inside
			}
			if c, ok := st.Cmd.(*syntax.CallExpr); ok && n.Name != nil {
				ws := []word{wordOf(n.Name)}
				for _, w := range c.Args {
					ws = append(ws, wordOf(w))
				}
				a.resolve(ws, nil, false, depth)
			}
		case *syntax.Stmt:
			a.redirects(n.Redirs)
		case *syntax.ArithmCmd:
			a.arithm(n.X)
		case *syntax.ArithmExp:
			a.arithm(n.X)
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				a.arithm(x)
			}
		case *syntax.CStyleLoop:
			a.arithm(n.Init)
			a.arithm(n.Cond)
			a.arithm(n.Post)
		case *syntax.Assign:
			a.arithm(n.Index)
		case *syntax.ParamExp:
			a.param(n)
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
				// [[ a -eq b ]] evaluates both sides as arithmetic.
				a.arithm(n.X)
				a.arithm(n.Y)
			}
		}
		return true
	})
}

// arithm asks about arithmetic that reads a variable: bash evaluates a
// variable's value in arithmetic as an expression, and a value such as
// a[$(rm x)] runs a command.
func (a *analysis) arithm(x syntax.Node) {
	if x == nil {
		return
	}
	found := ""
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			found = "$" + n.Param.Value
		case *syntax.CmdSubst:
			found = "a command substitution"
		case *syntax.Lit:
			if v := n.Value; v != "" && !isNumber(v) && found == "" {
				found = v
			}
		}
		return found == ""
	})
	if found != "" {
		a.ask("bash evaluates %s in arithmetic as code, which can run a command the policy cannot see", found)
	}
}

func isNumber(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '#' || c == 'x' || c == 'X' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}

func (a *analysis) param(p *syntax.ParamExp) {
	if p.Excl {
		a.ask("an indirect expansion ${!…} can run a command the policy cannot see")
	}
	if p.Exp != nil && strings.HasPrefix(p.Exp.Op.String(), "@") {
		a.ask("a ${…@…} transformation can run a command the policy cannot see")
	}
	if p.Index != nil {
		a.arithm(p.Index)
	}
	if p.Slice != nil {
		a.arithm(p.Slice.Offset)
		a.arithm(p.Slice.Length)
	}
}

func (a *analysis) decl(d *syntax.DeclClause) {
	for _, as := range d.Args {
		if as.Name != nil && dangerousVar(as.Name.Value) && (!as.Naked || d.Variant.Value == "export") {
			a.ask("the command sets %s, which decides which programs run", as.Name.Value)
		}
		if as.Naked && as.Name == nil && as.Value != nil {
			if w := wordOf(as.Value); !w.static() || strings.ContainsAny(w.s, "inI") && strings.HasPrefix(w.s, "-") {
				a.ask("%s %s can run a command the policy cannot see", d.Variant.Value, w.s)
			}
		}
	}
}

// redirects records output redirections to files; a protected target is
// asked about even under "*".
func (a *analysis) redirects(rs []*syntax.Redirect) {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		case syntax.DplOut:
			// >&2, >&- and >&2- duplicate or close a descriptor; bash
			// takes any other word as a file for stdout and stderr, like &>.
			if w := wordOf(r.Word); w.static() && isFD(w.s) {
				continue
			}
		default:
			continue // input, here-documents and input duplication write nothing
		}
		w := wordOf(r.Word)
		if w.static() {
			switch w.s {
			case "/dev/null", "/dev/stdout", "/dev/stderr":
				continue
			}
			if p, why := Protected(w.s); p {
				a.ask("the command writes a protected file: %s", why)
			}
			a.writes = append(a.writes, w.s)
			continue
		}
		a.writes = append(a.writes, "a file named by a "+w.dyn)
	}
}

// isFD reports whether the word of a >& redirection names a descriptor
// ("2", "2-") or closes one ("-") rather than a file.
func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	return strings.Trim(s, "0123456789") == ""
}

func (a *analysis) call(c *syntax.CallExpr, depth int) {
	for _, as := range c.Assigns {
		if as.Name != nil && dangerousVar(as.Name.Value) {
			a.ask("the command sets %s, which decides which programs run", as.Name.Value)
		}
	}
	if len(c.Args) == 0 {
		return
	}
	ws := make([]word, len(c.Args))
	for i, w := range c.Args {
		ws[i] = wordOf(w)
	}
	a.resolve(ws, nil, false, depth)
}

// resolve follows wrappers (env, sudo, xargs, sh -c, …) from argv ws down to
// the program that runs, and records the chain.
func (a *analysis) resolve(ws []word, outer []layer, open bool, depth int) {
	record := func(l layer) {
		layers := append(append([]layer(nil), outer...), l)
		a.invs = append(a.invs, invocation{layers: layers, open: open})
	}
	for len(outer) < 32 {
		if len(ws) == 0 {
			if open {
				a.ask("xargs takes the program to run from its input")
			}
			return
		}
		p := ws[0]
		if !p.static() {
			a.ask("the program name comes from a %s, so the policy cannot tell what runs", p.dyn)
			return
		}
		if p.s == "" {
			a.ask("the program name is empty")
			return
		}
		name := path.Base(p.s)
		if why, ok := opaqueBuiltins[name]; ok {
			a.ask("%s %s", name, why)
			record(layer{words: ws})
			return
		}
		w, isWrapper := wrappers[name]
		if !isWrapper {
			if sh, ok := shells[name]; ok && sh {
				a.shell(ws, outer, open, depth, record)
				return
			}
			a.special(name, ws, open, depth)
			record(layer{words: ws})
			return
		}
		inner, why := w.parse(ws)
		if why != "" {
			a.ask("%s: %s", name, why)
			record(layer{words: ws})
			return
		}
		if inner <= 0 || inner >= len(ws) {
			if open && inner != -1 {
				a.ask("%s under xargs takes the program to run from xargs's input", name)
			}
			record(layer{words: ws})
			return
		}
		outer = append(outer, layer{words: ws, inner: inner, opaque: w.opaque})
		if name == "xargs" {
			open = true
		}
		ws = ws[inner:]
	}
	a.ask("the command nests too many wrappers")
}

// shell handles sh/bash/… : -c strings are parsed like the command itself;
// a shell reading commands from its input or interactively is asked about.
func (a *analysis) shell(ws []word, outer []layer, open bool, depth int, record func(layer)) {
	name := path.Base(ws[0].s)
	hasC := false
	i := 1
	for ; i < len(ws); i++ {
		w := ws[i]
		if !w.static() {
			a.ask("an option of %s comes from a %s", name, w.dyn)
			record(layer{words: ws})
			return
		}
		s := w.s
		if s == "--" || s == "-" {
			i++
			break
		}
		if strings.HasPrefix(s, "--") {
			if s == "--rcfile" || s == "--init-file" {
				i++
			}
			continue
		}
		if len(s) < 2 || (s[0] != '-' && s[0] != '+') {
			break
		}
		if strings.ContainsAny(s[1:], "si") {
			a.ask("%s %s reads commands from its input, which the policy cannot see", name, s)
			record(layer{words: ws})
			return
		}
		if strings.ContainsRune(s[1:], 'c') {
			hasC = true
		}
		if strings.ContainsAny(s[1:], "oO") {
			i++ // -o option / -O shopt take a value
		}
	}
	if hasC && i < len(ws) {
		a.invs = append(a.invs, invocation{layers: append(append([]layer(nil), outer...), layer{words: ws}), open: open, shellC: true})
	} else {
		record(layer{words: ws})
	}
	switch {
	case hasC && i < len(ws):
		if open {
			a.ask("%s -c under xargs gets text from xargs's input", name)
			return
		}
		if !ws[i].static() {
			a.ask("the %s -c string comes from a %s", name, ws[i].dyn)
			return
		}
		a.script(ws[i].s, depth+1)
	case hasC:
		// "sh -c" without a string is an error; nothing runs.
	case i >= len(ws):
		a.ask("%s without a script reads commands from its input, which the policy cannot see", name)
	}
	// Otherwise it runs a script file: opaque to any command policy, like
	// ./script; the sandbox confines it.
}

// special handles programs that run a string or a program given as an
// argument without being wrappers: find -exec, trap.
func (a *analysis) special(name string, ws []word, open bool, depth int) {
	switch name {
	case "find":
		for i := 1; i < len(ws); i++ {
			switch ws[i].s {
			case "-exec", "-execdir", "-ok", "-okdir":
				end := i + 1
				for end < len(ws) && ws[end].s != ";" && ws[end].s != "+" {
					end++
				}
				sub := append([]word(nil), ws[i+1:end]...)
				for k := range sub {
					if strings.Contains(sub[k].s, "{}") {
						sub[k].dyn = "file name found by find"
					}
				}
				a.resolve(sub, []layer{{words: ws, inner: i + 1, opaque: true}}, open, depth)
				i = end
			}
		}
	case "trap":
		if len(ws) > 2 && !strings.HasPrefix(ws[1].s, "-") {
			if !ws[1].static() {
				a.ask("the trap action comes from a %s", ws[1].dyn)
				return
			}
			a.script(ws[1].s, depth+1)
		}
	case "export", "declare", "typeset", "local", "readonly":
		for _, w := range ws[1:] {
			if n, ok := assignment(w.s); ok && dangerousVar(n) {
				a.ask("the command sets %s, which decides which programs run", n)
			}
			if !w.static() || strings.HasPrefix(w.s, "-") && strings.ContainsAny(w.s, "inI") {
				a.ask("%s %s can run a command the policy cannot see", name, w.s)
			}
		}
	}
}

// opaqueBuiltins run text or change what a name means in ways a parser
// cannot follow.
var opaqueBuiltins = map[string]string{
	"eval":      "runs a string as a command, which the policy cannot vet",
	"source":    "runs a file's commands, which the policy cannot see",
	".":         "runs a file's commands, which the policy cannot see",
	"alias":     "can make a name run a different program",
	"unalias":   "can make a name run a different program",
	"hash":      "can make a name run a different program",
	"enable":    "can load or unload shell builtins",
	"fc":        "re-runs commands from history",
	"mapfile":   "can run a callback (-C)",
	"readarray": "can run a callback (-C)",
	"complete":  "can run a command (-C)",
	"compgen":   "can run a command (-C)",
	"bind":      "can run a command (-x)",
}
