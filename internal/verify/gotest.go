package verify

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// go test output. A failing test's log lines ("    x_test.go:12: msg") name
// only the file, relative to the package directory, and the package comes
// after them on the "FAIL\timport/path\t0.01s" line. With -v the logs come
// before the "--- FAIL" line that says whether they belong to a failure, so
// the parser reads the whole output before deciding.
var (
	goTestRunRE   = lazyRegexp(`^=== (?:RUN|CONT|NAME|PAUSE)\s+(\S+)`)
	goTestEndRE   = lazyRegexp(`^\s*--- (FAIL|PASS|SKIP): (\S+) \(`)
	goTestLogRE   = lazyRegexp(`^( +)([^\s:/]+\.go):(\d+): ?(.*)$`)
	goPkgResultRE = lazyRegexp(`^(?:FAIL|ok)\s+(\S+)(?:\s|$)`)
	goPanicRE     = lazyRegexp(`^(?:panic|fatal error): (.*)$`)
	goFrameRE     = lazyRegexp(`^\t(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
	goRecoveredRE = lazyRegexp(` \[recovered(?:, repanicked)?\]$`)
)

type goTestLog struct {
	at, end int // first line and one past the last line of the entry
	test    string
	file    string
	line    int
	msg     string
}

func parseGoTest(s *scan) {
	src := goSource(s.cmd)
	if !strings.HasPrefix(src, "go ") {
		src = "go test"
	}
	failed := map[string]bool{}
	located := map[string]bool{}
	var logs []goTestLog
	current := ""
	for i := 0; i < len(s.lines); i++ {
		l := s.lines[i]
		if !strings.HasPrefix(l, "=== ") && !strings.Contains(l, "--- ") && !strings.Contains(l, ".go:") &&
			!strings.HasPrefix(l, "panic: ") && !strings.HasPrefix(l, "fatal error: ") {
			continue
		}
		if m := goTestRunRE.FindStringSubmatch(l); m != nil {
			current = m[1]
			s.used[i] = true
			continue
		}
		if m := goTestEndRE.FindStringSubmatch(l); m != nil {
			current = m[2]
			if m[1] == "FAIL" {
				failed[m[2]] = true
			} else {
				s.used[i] = true
			}
			continue
		}
		if m := goTestLogRE.FindStringSubmatch(l); m != nil {
			indent := m[1]
			e := goTestLog{at: i, test: current, file: m[2], line: atoi(m[3]), msg: m[4]}
			j := i + 1
			for ; j < len(s.lines); j++ {
				c := s.lines[j]
				if strings.HasPrefix(c, indent+"    ") && !goTestEndRE.MatchString(c) {
					e.msg += "\n" + strings.TrimSpace(c)
					continue
				}
				if strings.TrimSpace(c) == "" && len(c) > len(indent) {
					e.msg += "\n"
					continue
				}
				break
			}
			e.end = j
			logs = append(logs, e)
			i = j - 1
			continue
		}
		if goPanicRE.MatchString(l) {
			end, ok := s.goPanic(i, src)
			if ok {
				located[current] = true
			}
			i = end - 1
		}
	}

	// Each entry belongs to the package whose result line follows it.
	pkgAt := make([]string, len(s.lines)+1)
	next := ""
	for i := len(s.lines) - 1; i >= 0; i-- {
		if m := goPkgResultRE.FindStringSubmatch(s.lines[i]); m != nil {
			next = m[1]
		}
		pkgAt[i] = next
	}
	for _, e := range logs {
		for k := e.at; k < e.end; k++ {
			s.used[k] = true // logs of passing tests are noise, not unlocated
		}
		if e.test != "" && !failed[e.test] {
			continue
		}
		rel, ok := s.goTestFile(e.file, pkgAt[e.at], e.at)
		if !ok {
			continue
		}
		msg := strings.TrimRight(e.msg, "\n")
		s.add(rawDiag{at: e.at, rel: rel, line: e.line, sev: Error, msg: msg, source: src})
		located[e.test] = true
	}
	// A "--- FAIL" line whose test (or a subtest of it) left no located
	// message stays unlocated; the others say nothing the diagnostics do not.
	var parents []string
	for name := range located {
		for k := strings.LastIndexByte(name, '/'); k > 0; k = strings.LastIndexByte(name, '/') {
			name = name[:k]
			parents = append(parents, name)
		}
	}
	for _, p := range parents {
		located[p] = true
	}
	for i, l := range s.lines {
		if !strings.Contains(l, "--- FAIL: ") {
			continue
		}
		if m := goTestEndRE.FindStringSubmatch(l); m != nil && located[m[2]] {
			s.used[i] = true
		}
	}
}

// goPanic reads a panic and its goroutine dump starting at line i and
// places it at the first stack frame inside the workspace. It returns the
// index of the first line after the dump and whether it found a frame.
func (s *scan) goPanic(i int, src string) (int, bool) {
	msg := goRecoveredRE.ReplaceAllString(s.lines[i], "")
	j := i + 1
	for ; j < len(s.lines) && strings.TrimSpace(s.lines[j]) != "" && !strings.HasPrefix(s.lines[j], "goroutine "); j++ {
		msg += "\n" + strings.TrimSpace(s.lines[j])
	}
	rel, line := "", 0
	for ; j < len(s.lines); j++ {
		l := s.lines[j]
		if goPkgResultRE.MatchString(l) || l == "FAIL" || strings.HasPrefix(l, "exit status ") ||
			strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "=== ") {
			break
		}
		if m := goFrameRE.FindStringSubmatch(l); m != nil && rel == "" {
			if r, _, ok := s.locate(m[1], j); ok && filepath.IsAbs(m[1]) {
				rel, line = r, atoi(m[2])
			}
		}
	}
	if rel == "" {
		// No frame in the workspace: the panic line itself stays unlocated.
		for k := i + 1; k < j; k++ {
			s.used[k] = true
		}
		return j, false
	}
	for k := i; k < j; k++ {
		s.used[k] = true
	}
	s.add(rawDiag{at: i, rel: rel, line: line, sev: Error, msg: msg, source: src})
	return j, true
}

// goTestFile finds the file a test log names: in the directory of its
// package when go.mod maps the import path, else the only file of that name
// in the workspace.
func (s *scan) goTestFile(name, pkg string, at int) (string, bool) {
	if dir, ok := s.goPkgDir(pkg); ok {
		if rel, exists, ok := s.locate(name, at, dir); ok && exists {
			return rel, true
		}
	}
	if rel, exists, ok := s.locate(name, at); ok && exists {
		return rel, true
	}
	if cands := s.filesNamed(name); len(cands) == 1 {
		return cands[0], true
	}
	if dir, ok := s.goPkgDir(pkg); ok {
		return filepath.Join(dir, name), true
	}
	return "", false
}

var goModuleRE = lazyRegexp(`(?m)^module\s+"?([^\s"]+)"?`)

// goPkgDir maps an import path to a workspace-relative directory through
// the go.mod at the root.
func (s *scan) goPkgDir(pkg string) (string, bool) {
	if pkg == "" {
		return "", false
	}
	if s.goMod == nil {
		mod := ""
		if b, err := readManifest(filepath.Join(s.dir, "go.mod")); err == nil {
			if m := goModuleRE.FindSubmatch(b); m != nil {
				mod = string(m[1])
			}
		}
		s.goMod = &mod
	}
	mod := *s.goMod
	switch {
	case mod == "":
		return "", false
	case pkg == mod:
		return ".", true
	case strings.HasPrefix(pkg, mod+"/"):
		return filepath.FromSlash(pkg[len(mod)+1:]), true
	}
	return "", false
}

// filesNamed lists the workspace files with a base name, walking the tree
// once; dependency and VCS directories are not searched.
func (s *scan) filesNamed(base string) []string {
	if s.byBase == nil {
		s.byBase = map[string][]string{}
		n := 0
		_ = filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != s.dir && (skipCopy[d.Name()] || linkDirs[d.Name()]) {
					return filepath.SkipDir
				}
				return nil
			}
			if n++; n > 100000 {
				return filepath.SkipAll
			}
			if rel, err := filepath.Rel(s.dir, p); err == nil {
				s.byBase[d.Name()] = append(s.byBase[d.Name()], rel)
			}
			return nil
		})
	}
	return s.byBase[base]
}
