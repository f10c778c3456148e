package verify

import (
	"strings"
)

// rustc and cargo: the short form "src/lib.rs:3:21: error[E0308]: msg", the
// human form "error[E0308]: msg" followed by " --> src/lib.rs:3:21" and an
// excerpt, and test panics "thread 'name' panicked at src/lib.rs:12:9:".
// rustc counts columns in characters.
var (
	rustShortRE    = lazyRegexp(`^(\S.*?\.rs):(\d+):(\d+): (error|warning|note|help)(?:\[(\w+)\])?: (.*)$`)
	rustHeadRE     = lazyRegexp(`^(error|warning)(?:\[(\w+)\])?: (.*)$`)
	rustArrowRE    = lazyRegexp(`^\s*--> (.+?):(\d+):(\d+)$`)
	rustPanicRE    = lazyRegexp(`^thread '(.*?)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$`)
	rustPanicOldRE = lazyRegexp(`^thread '(.*?)'(?: \(\d+\))? panicked at '(.*)', (.+?):(\d+):(\d+)$`)
)

func parseRust(s *scan) {
	for i := 0; i < len(s.lines); i++ {
		if s.used[i] {
			continue
		}
		l := s.lines[i]
		if !strings.Contains(l, ".rs:") && !strings.HasPrefix(l, "error") && !strings.HasPrefix(l, "warning") && !strings.HasPrefix(l, "thread '") {
			continue
		}
		if m := rustShortRE.FindStringSubmatch(l); m != nil {
			if rel, _, ok := s.locate(m[1], i); ok {
				s.used[i] = true
				s.add(rawDiag{at: i, rel: rel, line: atoi(m[2]), col: atoi(m[3]), unit: unitRunes,
					sev: rustSeverity(m[4]), code: m[5], msg: m[6], source: "rustc"})
			}
			continue
		}
		if m := rustHeadRE.FindStringSubmatch(l); m != nil && i+1 < len(s.lines) {
			a := rustArrowRE.FindStringSubmatch(s.lines[i+1])
			if a == nil {
				continue // "error: could not compile ...": unlocated
			}
			rel, _, ok := s.locate(a[1], i)
			if !ok {
				continue
			}
			line, col := atoi(a[2]), atoi(a[3])
			d := rawDiag{at: i, rel: rel, line: line, col: col, unit: unitRunes,
				sev: rustSeverity(m[1]), code: m[2], msg: m[3], source: "rustc"}
			// The excerpt runs to the next blank line.
			j := i + 1
			for ; j < len(s.lines) && strings.TrimSpace(s.lines[j]) != ""; j++ {
			}
			if end, label := rustPrimary(s.lines[i+2:j], line, col); end > 0 {
				d.endCol = end
				if label != "" {
					d.msg += ": " + label
				}
			}
			for k := i; k < j; k++ {
				s.used[k] = true
			}
			s.add(d)
			i = j - 1
			continue
		}
		if m := rustPanicRE.FindStringSubmatch(l); m != nil {
			rel, _, ok := s.locate(m[2], i)
			if !ok {
				continue
			}
			msg := ""
			j := i + 1
			for ; j < len(s.lines); j++ {
				t := s.lines[j]
				if strings.TrimSpace(t) == "" || t == "stack backtrace:" || strings.HasPrefix(t, "note: ") {
					break
				}
				msg += t + "\n"
			}
			for k := i; k < j; k++ {
				s.used[k] = true
			}
			msg = strings.TrimSpace(msg)
			if msg == "" {
				msg = "panicked"
			}
			s.add(rawDiag{at: i, rel: rel, line: atoi(m[3]), col: atoi(m[4]), unit: unitRunes,
				msg: msg + " (thread '" + m[1] + "')", source: "cargo test"})
			continue
		}
		if m := rustPanicOldRE.FindStringSubmatch(l); m != nil {
			if rel, _, ok := s.locate(m[3], i); ok {
				s.used[i] = true
				s.add(rawDiag{at: i, rel: rel, line: atoi(m[4]), col: atoi(m[5]), unit: unitRunes,
					msg: m[2] + " (thread '" + m[1] + "')", source: "cargo test"})
			}
		}
	}
}

func rustSeverity(s string) Severity {
	switch s {
	case "warning":
		return Warning
	case "note", "help":
		return Info
	}
	return Error
}

var rustSourceLineRE = lazyRegexp(`^\s*(\d+) \| `)

// rustPrimary finds, in a human-form excerpt, the "^^^^ label" under the
// primary line and returns the span's exclusive end column and its label.
// It gives up (0) when the carets do not start at col, as happens for spans
// over several lines.
func rustPrimary(excerpt []string, line, col int) (int, string) {
	for k, e := range excerpt {
		m := rustSourceLineRE.FindStringSubmatchIndex(e)
		if m == nil || atoi(e[m[2]:m[3]]) != line {
			continue
		}
		gutter := m[1] // the code starts after "N | "
		for _, u := range excerpt[k+1:] {
			if len(u) < gutter || !strings.HasSuffix(strings.TrimRight(u[:gutter], " "), "|") {
				return 0, ""
			}
			body := u[gutter:]
			c := strings.IndexByte(body, '^')
			if c < 0 {
				continue
			}
			if c != col-1 {
				return 0, ""
			}
			n := c
			for n < len(body) && body[n] == '^' {
				n++
			}
			return col + (n - c), strings.TrimSpace(body[n:])
		}
		return 0, ""
	}
	return 0, ""
}
