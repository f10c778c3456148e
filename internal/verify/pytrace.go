package verify

import (
	"strings"
)

// Python tracebacks: "Traceback (most recent call last):", frames
// `  File "x.py", line N, in f` with their source lines, and the exception
// line at the traceback's own indentation. The failure is placed at the
// last frame inside the workspace, where the user's code was running.
// SyntaxErrors print a single `  File "x.py", line N` with no "in".
var (
	pyTracebackRE = lazyRegexp(`^(\s*)Traceback \(most recent call last\):$`)
	pyFrameRE     = lazyRegexp(`^(\s*)File "(.+)", line (\d+)(?:, in (.+))?$`)
	pyExceptionRE = lazyRegexp(`^[A-Za-z_][\w.]*(?::|$)`)
	pyChainRE     = lazyRegexp(`^(?:During handling of the above exception, another exception occurred:|The above exception was the direct cause of the following exception:)$`)
)

func parsePyTrace(s *scan) {
	for i := 0; i < len(s.lines); i++ {
		if s.used[i] {
			continue
		}
		l := s.lines[i]
		if !strings.Contains(l, "File \"") && !strings.Contains(l, "Traceback") && !strings.Contains(l, " exception") {
			continue
		}
		if pyChainRE.MatchString(l) {
			s.used[i] = true
			continue
		}
		if m := pyTracebackRE.FindStringSubmatch(l); m != nil {
			i = s.pyTraceback(i, i+1, len(m[1])) - 1
			continue
		}
		if m := pyFrameRE.FindStringSubmatch(l); m != nil && m[4] == "" {
			// A bare SyntaxError report: the frame, its source and caret,
			// then the error at the outer indentation.
			indent := len(m[1]) - 2
			if indent < 0 {
				indent = 0
			}
			i = s.pyTraceback(i, i, indent) - 1
		}
	}
}

// pyTraceback reads the traceback that starts at line start and whose
// frames start at first, and returns the index of the line after it.
func (s *scan) pyTraceback(start, first, indent int) int {
	type frame struct {
		at   int
		path string
		line int
	}
	var frames []frame
	j := first
	exc := -1
	for ; j < len(s.lines); j++ {
		l := s.lines[j]
		if m := pyFrameRE.FindStringSubmatch(l); m != nil && len(m[1]) > indent {
			frames = append(frames, frame{j, m[2], atoi(m[3])})
			continue
		}
		if lead(l) > indent {
			continue // source, caret, or "  [Previous line repeated N more times]"
		}
		if pyExceptionRE.MatchString(strings.TrimSpace(l)) {
			exc = j
		}
		break
	}
	if exc < 0 || len(frames) == 0 {
		return max(j, start+1)
	}
	msg := strings.TrimSpace(s.lines[exc])
	end := exc + 1
	for ; end < len(s.lines) && end < exc+5; end++ {
		l := s.lines[end]
		if strings.TrimSpace(l) == "" || pyTracebackRE.MatchString(l) || pyChainRE.MatchString(l) || lead(l) < indent {
			break
		}
		if lead(l) == indent && pyExceptionRE.MatchString(strings.TrimSpace(l)) {
			break
		}
		msg += "\n" + strings.TrimSpace(l)
	}
	for k := len(frames) - 1; k >= 0; k-- {
		f := frames[k]
		if rel, _, ok := s.locate(f.path, f.at); ok {
			for u := start; u < end; u++ {
				s.used[u] = true
			}
			s.add(rawDiag{at: exc, rel: rel, line: f.line, sev: Error, msg: msg, source: "python"})
			return end
		}
	}
	// Nothing in the workspace: the frames are noise, the exception is not.
	for u := start; u < exc; u++ {
		s.used[u] = true
	}
	return end
}

func lead(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}
