package verify

import (
	"strings"
)

// The fallback for any other tool: "path:line[:col]: message" at the start
// of a line. Only files that exist in the workspace count, which keeps
// timestamps and URLs out.
var genericRE = lazyRegexp(`^([^\s:]+):(\d+)(?::(\d+))?:\s*(.+)$`)

func parseGeneric(s *scan) {
	src := toolName(s.cmd)
	for i, l := range s.lines {
		if s.used[i] {
			continue
		}
		m := genericRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rel, exists, ok := s.locate(m[1], i)
		if !ok || !exists {
			continue
		}
		s.used[i] = true
		sev, msg := Error, m[4]
		lower := strings.ToLower(msg)
		for _, p := range []struct {
			prefix string
			sev    Severity
		}{{"error:", Error}, {"warning:", Warning}, {"warn:", Warning}, {"note:", Info}, {"info:", Info}, {"hint:", Hint}} {
			if strings.HasPrefix(lower, p.prefix) {
				sev, msg = p.sev, strings.TrimSpace(msg[len(p.prefix):])
				break
			}
		}
		s.add(rawDiag{at: i, rel: rel, line: atoi(m[2]), col: atoi(m[3]), sev: sev, msg: msg, source: src})
	}
}
