package verify

import (
	"strings"
)

// Go compiler and vet findings: "./x.go:3:2: msg", with "vet: " in front of
// the type errors vet reports itself, and related lines indented by a tab
// ("\thave (int)", "\t./a.go:3:6: other declaration of f").
var (
	goLineRE   = lazyRegexp(`^(vet: )?(\S+\.go):(\d+)(?::(\d+))?: (.+)$`)
	goHeaderRE = lazyRegexp(`^# (?:\S+(?: \[\S+\])?|\[\S+\])$`)
)

func parseGoBuild(s *scan) {
	src := goSource(s.cmd)
	for i := 0; i < len(s.lines); i++ {
		if s.used[i] {
			continue
		}
		l := s.lines[i]
		if strings.HasPrefix(l, "# ") && goHeaderRE.MatchString(l) {
			s.used[i] = true
			continue
		}
		if !strings.Contains(l, ".go:") {
			continue
		}
		m := goLineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rel, _, ok := s.locate(m[2], i)
		msg := m[5]
		j := i + 1
		for ; j < len(s.lines) && !s.used[j] && strings.HasPrefix(s.lines[j], "\t"); j++ {
			msg += "\n" + strings.TrimPrefix(s.lines[j], "\t")
		}
		if !ok {
			continue // outside the workspace: left for the unlocated lines
		}
		for k := i; k < j; k++ {
			s.used[k] = true
		}
		source := src
		if m[1] != "" {
			source = "go vet"
		}
		s.add(rawDiag{at: i, rel: rel, line: atoi(m[3]), col: atoi(m[4]), sev: Error, msg: msg, source: source})
		i = j - 1
	}
}

// goSource names the go subcommand that ran ("go build", "go vet"), or
// just "go" when a script ran it.
func goSource(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) >= 2 && f[0] == "go" {
		return "go " + f[1]
	}
	return "go"
}
