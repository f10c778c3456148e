package verify

import (
	"strings"
)

// TypeScript's tsc: "file(line,col): error TS2322: msg" and, with --pretty
// (the default on a terminal), "file:line:col - error TS2322: msg" followed
// by an excerpt. Chained messages follow indented. Columns count UTF-16
// code units.
var (
	tscRE         = lazyRegexp(`^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$`)
	tscPrettyRE   = lazyRegexp(`^(.+?):(\d+):(\d+) - (error|warning|message) (TS\d+): (.*)$`)
	tscExcerptRE  = lazyRegexp(`^\s*(?:\d+ |~[~\s]*$)|^\s+\S.*:\d+:\d+ - |^\s*$`)
	tscSummaryRE  = lazyRegexp(`^(?:Found \d+ errors?.*|Errors\s+Files|\s+\d+\s+\S+:\d+)$`)
	tscContinueRE = lazyRegexp(`^\s{2,}\S`)
	tscRelatedRE  = lazyRegexp(`^\s+\S.*:\d+:\d+ - `)
)

func parseTSC(s *scan) {
	found := false
	for i := 0; i < len(s.lines); i++ {
		if s.used[i] {
			continue
		}
		l := s.lines[i]
		if !strings.Contains(l, " TS") {
			continue
		}
		m := tscRE.FindStringSubmatch(l)
		pretty := false
		if m == nil {
			if m = tscPrettyRE.FindStringSubmatch(l); m == nil {
				continue
			}
			pretty = true
		}
		rel, _, ok := s.locate(m[1], i)
		if !ok {
			continue
		}
		found = true
		d := rawDiag{at: i, rel: rel, line: atoi(m[2]), col: atoi(m[3]), unit: unitUTF16,
			sev: tscSeverity(m[4]), code: m[5], msg: m[6], source: "tsc"}
		j := i + 1
		for ; j < len(s.lines) && tscContinueRE.MatchString(s.lines[j]) && !tscRelatedRE.MatchString(s.lines[j]); j++ {
			d.msg += "\n" + strings.TrimSpace(s.lines[j])
		}
		if pretty {
			for ; j < len(s.lines) && !s.used[j] && tscExcerptRE.MatchString(s.lines[j]) &&
				!tscPrettyRE.MatchString(s.lines[j]); j++ {
			}
		}
		for k := i; k < j; k++ {
			s.used[k] = true
		}
		s.add(d)
		i = j - 1
	}
	if !found {
		return
	}
	for i, l := range s.lines {
		if !s.used[i] && tscSummaryRE.MatchString(l) {
			s.used[i] = true
		}
	}
}

func tscSeverity(s string) Severity {
	switch s {
	case "warning":
		return Warning
	case "message":
		return Info
	}
	return Error
}
