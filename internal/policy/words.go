package policy

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word after quote removal. A word the shell builds at run
// time (a variable, a command substitution, a glob, a brace expansion) is not
// static: its text is unknown, and dyn says what it is, for reasons.
type word struct {
	s   string
	dyn string // "" when static
}

func (w word) static() bool { return w.dyn == "" }

// wordOf removes quotes the way the shell does and reports whether the result
// is fixed before the command runs.
func wordOf(w *syntax.Word) word {
	var b strings.Builder
	dyn := ""
	for _, part := range w.Parts {
		d := partOf(part, &b)
		if dyn == "" {
			dyn = d
		}
	}
	return word{s: b.String(), dyn: dyn}
}

func partOf(part syntax.WordPart, b *strings.Builder) string {
	switch p := part.(type) {
	case *syntax.Lit:
		return unescapeLit(p.Value, b)
	case *syntax.SglQuoted:
		if !p.Dollar {
			b.WriteString(p.Value)
			return ""
		}
		s, ok := ansiC(p.Value)
		if !ok {
			return "$'…' string the policy cannot decode"
		}
		b.WriteString(s)
		return ""
	case *syntax.DblQuoted:
		dyn := ""
		for _, in := range p.Parts {
			var d string
			if lit, ok := in.(*syntax.Lit); ok {
				unescapeDbl(lit.Value, b)
			} else {
				d = partOf(in, b)
			}
			if dyn == "" {
				dyn = d
			}
		}
		return dyn
	case *syntax.ParamExp:
		return "variable"
	case *syntax.CmdSubst:
		return "command substitution"
	case *syntax.ArithmExp:
		return "arithmetic expansion"
	case *syntax.ProcSubst:
		return "process substitution"
	case *syntax.ExtGlob:
		return "glob"
	default:
		return "shell expansion"
	}
}

// unescapeLit removes backslashes from unquoted text and reports a glob or a
// brace expansion, which make the word's final text unknown.
func unescapeLit(v string, b *strings.Builder) string {
	dyn := ""
	open := -1 // index in b of an unescaped '{', for brace expansion
	start := b.Len()
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' {
			if i+1 < len(v) {
				i++
				if v[i] != '\n' {
					b.WriteByte(v[i])
				}
			}
			continue
		}
		switch c {
		case '*', '?':
			dyn = "glob"
		case '[':
			if strings.IndexByte(v[i+1:], ']') >= 0 {
				dyn = "glob"
			}
		case '{':
			open = b.Len()
		case '}':
			if open >= 0 {
				inner := b.String()[open:]
				if strings.Contains(inner, ",") || strings.Contains(inner, "..") {
					dyn = "brace expansion"
				}
			}
		}
		b.WriteByte(c)
	}
	_ = start
	return dyn
}

// unescapeDbl removes the backslashes that escape inside double quotes.
func unescapeDbl(v string, b *strings.Builder) {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
			i++
			if v[i] != '\n' {
				b.WriteByte(v[i])
			}
			continue
		}
		b.WriteByte(v[i])
	}
}

// ansiC decodes the body of a $'…' string. Escapes it does not know make the
// word undecodable rather than guessed.
func ansiC(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(v) {
			return "", false
		}
		switch e := v[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(v) && j-i-1 < max && isHex(v[j]) {
				j++
			}
			if j == i+1 {
				return "", false
			}
			n, err := strconv.ParseUint(v[i+1:j], 16, 32)
			if err != nil {
				return "", false
			}
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				if !utf8.ValidRune(rune(n)) {
					return "", false
				}
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(v) && j-i < 3 && v[j] >= '0' && v[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(v[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			return "", false // \cX and anything else: do not guess
		}
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// dangerousVar reports whether setting the environment variable name can
// change which program runs or make a program run another one (PATH, LD_*,
// GIT_*, *FLAGS, …). Such an assignment makes a command Ask.
func dangerousVar(name string) bool {
	u := strings.ToUpper(name)
	switch u {
	case "PATH", "ENV", "BASH_ENV", "SHELL", "SHELLOPTS", "BASHOPTS", "IFS", "PS4", "PROMPT_COMMAND",
		"EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "CC", "CXX", "CPP", "LD", "AR", "AS", "FC",
		"HOME", "XDG_CONFIG_HOME", "ZDOTDIR", "GOFLAGS", "GOENV", "GOROOT", "GOTOOLCHAIN",
		"PYTHONSTARTUP", "PYTHONHOME", "PERL5LIB", "RUBYLIB", "MAKE", "MAKEFILES":
		return true
	}
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "NPM_CONFIG_", "YARN_", "PNPM_"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	for _, s := range []string{"FLAGS", "OPT", "OPTS", "OPTIONS", "PATH", "_HOME", "_COMMAND", "_CMD",
		"_EDITOR", "_PAGER", "_SHELL", "_RUNNER", "_WRAPPER", "_PROGRAM", "_HOOK"} {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return false
}

// assignment splits a static NAME=VALUE argument (env, sudo, export).
func assignment(s string) (name string, ok bool) {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return "", false
	}
	for i, c := range s[:eq] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return "", false
		}
	}
	return s[:eq], true
}
