package verify

import (
	"strings"
)

// pytest's FAILURES and ERRORS sections. In the long traceback form (the
// default) a frame's "E   " lines come before its "path.py:NN: ExcType"
// line; with --tb=short they follow "path.py:NN: in func"; with --tb=line
// each failure is one "path.py:NN: message" line. A failure is placed at
// the frame that raised, or, when that frame is outside the workspace (a
// library), at the last frame before it that is inside.
var (
	pytestBannerRE  = lazyRegexp(`^={3,} (.*?) ={3,}$`)
	pytestSectionRE = lazyRegexp(`^_{3,} (.+?) _{3,}$`)
	pytestSepRE     = lazyRegexp(`^(?:_ ){3,}_?$`)
	pytestLocRE     = lazyRegexp(`^(\S+\.py):(\d+): ?(.*)$`)
	pytestELineRE   = lazyRegexp(`^E(?:\s+(.*))?$`)
	pyFileInERE     = lazyRegexp(`^\s*File "(.+)", line (\d+)`)
)

type pyFrame struct {
	at     int
	path   string
	line   int
	short  bool // "in func" form: E lines follow
	eLines []string
	text   string // --tb=line message or long-form exception type
}

func parsePytest(s *scan) {
	inFailures := false
	var frames []pyFrame
	var pending []string
	flush := func() {
		s.pytestFailures(frames)
		frames, pending = nil, nil
	}
	for i, l := range s.lines {
		if m := pytestBannerRE.FindStringSubmatch(l); m != nil {
			flush()
			inFailures = m[1] == "FAILURES" || m[1] == "ERRORS"
			if inFailures {
				s.used[i] = true
			}
			continue
		}
		if !inFailures || s.used[i] {
			continue
		}
		switch {
		case pytestSectionRE.MatchString(l):
			flush()
			s.used[i] = true
		case pytestSepRE.MatchString(l):
			s.used[i] = true
		case pytestELineRE.MatchString(l):
			t := strings.TrimSpace(strings.TrimPrefix(l, "E"))
			if n := len(frames); n > 0 && frames[n-1].short {
				frames[n-1].eLines = append(frames[n-1].eLines, t)
			} else {
				pending = append(pending, t)
			}
			s.used[i] = true
		default:
			m := pytestLocRE.FindStringSubmatch(l)
			if m == nil {
				s.used[i] = true // source lines of the traceback
				continue
			}
			f := pyFrame{at: i, path: m[1], line: atoi(m[2])}
			switch {
			case strings.HasPrefix(m[3], "in "):
				f.short = true
			case len(pending) > 0:
				f.eLines, pending = pending, nil
				f.text = m[3]
			default:
				f.text = m[3]
			}
			frames = append(frames, f)
			s.used[i] = true
		}
	}
	flush()
}

// pytestFailures places the failures read from one section: each frame
// that carries a message ends one chain of frames.
func (s *scan) pytestFailures(frames []pyFrame) {
	start := 0
	for k, f := range frames {
		msg := strings.Join(f.eLines, "\n")
		if msg == "" && !f.short {
			msg = f.text
		}
		if msg == "" {
			continue
		}
		chain := frames[start : k+1]
		start = k + 1
		rel, line := "", 0
		// A syntax error in a collected module names its file inside the
		// E lines.
		for _, e := range f.eLines {
			if m := pyFileInERE.FindStringSubmatch(e); m != nil {
				if r, _, ok := s.locate(m[1], f.at); ok {
					rel, line = r, atoi(m[2])
					msg = f.eLines[len(f.eLines)-1]
				}
			}
		}
		for c := len(chain) - 1; c >= 0 && rel == ""; c-- {
			if r, _, ok := s.locate(chain[c].path, chain[c].at); ok {
				rel, line = r, chain[c].line
			}
		}
		if rel == "" {
			s.used[f.at] = false // no frame in the workspace: keep the line
			continue
		}
		s.add(rawDiag{at: f.at, rel: rel, line: line, sev: Error, msg: msg, source: "pytest"})
	}
}
