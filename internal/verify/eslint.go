package verify

import (
	"strings"
)

// ESLint. The default "stylish" format prints each file's absolute path on
// a line of its own, then "  line:col  error|warning  message  rule-id"
// rows; the "unix" format prints "path:line:col: message [Error/rule-id]".
// Columns count UTF-16 code units.
var (
	eslintFileRE    = lazyRegexp(`^(?:/|[A-Za-z]:\\)\S.*$`)
	eslintRowRE     = lazyRegexp(`^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)\s*$`)
	eslintRuleRE    = lazyRegexp(`^(.*?)\s{2,}(@?[a-z0-9][\w\-./@]*)$`)
	eslintUnixRE    = lazyRegexp(`^(.+?):(\d+):(\d+): (.*) \[(Error|Warning)(?:/([^\]]+))?\]$`)
	eslintSummaryRE = lazyRegexp(`^(?:✖ \d+ problems? \(.*\)|\s*\d+ errors? and \d+ warnings? potentially fixable with the .*|\d+ problems?)$`)
)

func parseESLint(s *scan) {
	found := false
	for i := 0; i < len(s.lines); i++ {
		if s.used[i] {
			continue
		}
		l := s.lines[i]
		if m := eslintUnix(l); m != nil {
			if rel, _, ok := s.locate(m[1], i); ok {
				found = true
				s.used[i] = true
				s.add(rawDiag{at: i, rel: rel, line: atoi(m[2]), col: atoi(m[3]), unit: unitUTF16,
					sev: eslintSeverity(m[5]), msg: m[4], code: m[6], source: "eslint"})
			}
			continue
		}
		if !eslintFileRE.MatchString(l) || i+1 >= len(s.lines) || !eslintRowRE.MatchString(s.lines[i+1]) {
			continue
		}
		rel, _, ok := s.locate(strings.TrimSpace(l), i)
		if !ok {
			continue
		}
		found = true
		s.used[i] = true
		j := i + 1
		for ; j < len(s.lines); j++ {
			m := eslintRowRE.FindStringSubmatch(s.lines[j])
			if m == nil {
				break
			}
			if atoi(m[1]) == 0 {
				continue // "0:0  warning  File ignored ...": no line to point at
			}
			s.used[j] = true
			msg, rule := m[4], ""
			if r := eslintRuleRE.FindStringSubmatch(msg); r != nil {
				msg, rule = r[1], r[2]
			}
			s.add(rawDiag{at: j, rel: rel, line: atoi(m[1]), col: atoi(m[2]), unit: unitUTF16,
				sev: eslintSeverity(m[3]), msg: msg, code: rule, source: "eslint"})
		}
		i = j - 1
	}
	if !found {
		return
	}
	for i, l := range s.lines {
		if !s.used[i] && eslintSummaryRE.MatchString(l) {
			s.used[i] = true
		}
	}
}

func eslintUnix(l string) []string {
	if !strings.HasSuffix(l, "]") {
		return nil
	}
	return eslintUnixRE.FindStringSubmatch(l)
}

func eslintSeverity(s string) Severity {
	if strings.EqualFold(s, "warning") {
		return Warning
	}
	return Error
}
