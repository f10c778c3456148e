package verify

import (
	"path/filepath"
	"strings"
)

// gcc and clang: "file:line:col: error: msg [-Wflag]", with warning, note
// and fatal error severities, context lines ("In function ‘main’:") and
// source excerpts. gcc counts columns in display cells (a tab reaches the
// next multiple of 8), clang in bytes; the output tells them apart.
var (
	gccRE        = lazyRegexp(`^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note|remark): (.*)$`)
	gccFlagRE    = lazyRegexp(`\s\[(-W[^\]]*|-f[^\]]*)\]$`)
	gccContextRE = lazyRegexp(`^(?:In file included from .+[:,]|\s+from .+[:,]|.+: In (?:function|member function|static member function|constructor|destructor|copy constructor|lambda function|instantiation of|substitution of) .*:|.+: At (?:top level|global scope):)$`)
	gccGutterRE  = lazyRegexp(`^\s*\d*\s+\|`)
	gccCaretRE   = lazyRegexp(`^[\s~^|_\-]*\^[\s~^|_\-]*$`)
	clangTailRE  = lazyRegexp(`^\d+ (?:warnings?|errors?)(?: and \d+ (?:warnings?|errors?))? generated\.$`)
)

// gccSources are the extensions of files gcc and clang compile.
var gccSources = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cp": true, ".cpp": true, ".cxx": true, ".c++": true,
	".hh": true, ".hpp": true, ".hxx": true, ".h++": true, ".inl": true, ".ipp": true, ".tcc": true,
	".m": true, ".mm": true, ".i": true, ".ii": true, ".s": true, ".sx": true,
	".f": true, ".for": true, ".f90": true, ".f95": true, ".f03": true, ".f08": true,
}

func parseGCC(s *scan) {
	clang := strings.Contains(s.cmd, "clang")
	for _, l := range s.lines {
		if strings.HasSuffix(l, " generated.") && clangTailRE.MatchString(l) {
			clang = true
			break
		}
	}
	source, unit := "gcc", unitDisplay
	if clang {
		source, unit = "clang", unitBytes
	}
	for i := 0; i < len(s.lines); i++ {
		if s.used[i] {
			continue
		}
		l := s.lines[i]
		if !gccMaybe(l) {
			continue
		}
		m := gccRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rel, _, ok := s.locate(m[1], i)
		if !ok {
			continue
		}
		s.used[i] = true
		sev := Error
		switch m[4] {
		case "warning":
			sev = Warning
		case "note":
			sev = Info
		case "remark":
			sev = Hint
		}
		msg, code := m[5], ""
		if f := gccFlagRE.FindStringSubmatchIndex(msg); f != nil {
			code = msg[f[2]:f[3]]
			msg = msg[:f[0]]
		}
		col := atoi(m[3])
		d := rawDiag{at: i, rel: rel, line: atoi(m[2]), col: col, unit: unit, sev: sev, msg: msg, code: code, source: source}
		if !gccSources[strings.ToLower(filepath.Ext(rel))] {
			// The same format from another tool (shellcheck -f gcc, a
			// linter): its own name, and no display columns.
			d.source, d.unit = toolName(s.cmd), unitBytes
		}
		// The excerpt: gcc's carries a "  5 | " gutter; clang's is the
		// source line followed by a caret line.
		j := i + 1
		for ; j < len(s.lines) && j <= i+4; j++ {
			e := s.lines[j]
			if gccGutterRE.MatchString(e) {
				s.used[j] = true
				if k := strings.IndexByte(e, '|'); k >= 0 && d.endCol == 0 && col > 0 && !clang {
					d.endCol = caretEnd(e[k+1:], col)
				}
				continue
			}
			if clang && j == i+1 && j+1 < len(s.lines) && gccCaretRE.MatchString(s.lines[j+1]) {
				s.used[j], s.used[j+1] = true, true
				j++
				continue
			}
			break
		}
		s.add(d)
		i = j - 1
	}
	for i, l := range s.lines {
		if s.used[i] || !strings.HasSuffix(l, ":") && !strings.HasSuffix(l, ",") && !strings.HasSuffix(l, " generated.") {
			continue
		}
		if gccContextRE.MatchString(l) || clangTailRE.MatchString(l) {
			s.used[i] = true
		}
	}
}

// gccMaybe is a cheap test that spares most lines the regular expression.
func gccMaybe(l string) bool {
	return strings.Contains(l, "error: ") || strings.Contains(l, "warning: ") ||
		strings.Contains(l, "note: ") || strings.Contains(l, "remark: ")
}

// caretEnd reads a gcc caret line (after its gutter, which ends with one
// space) and returns the exclusive end column of the range that starts at
// col, or 0 when the caret is not at col.
func caretEnd(line string, col int) int {
	line = strings.TrimPrefix(line, " ")
	if strings.Trim(line, " ^~") != "" {
		return 0 // the source line of the excerpt, not its caret line
	}
	k := strings.IndexByte(line, '^')
	if k < 0 || k != col-1 {
		return 0
	}
	n := k + 1
	for n < len(line) && line[n] == '~' {
		n++
	}
	return n + 1
}
