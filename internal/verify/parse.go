package verify

// This file is over 400 lines because it is the dispatch of every output
// format to its parser and the path mapping they share; the parsers
// themselves live one per file.

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentls/agentls/internal/textcut"
)

// colUnit is how a tool counts columns. Diagnostic.Col is always a byte
// column, so columns in other units are converted against the file text the
// tool saw.
type colUnit int

const (
	unitBytes   colUnit = iota // Go, clang
	unitRunes                  // rustc
	unitUTF16                  // tsc, ESLint (JavaScript string indices)
	unitDisplay                // gcc ≥ 11: tabs expand to 8, wide characters count 2
)

// rawDiag is a finding before its column is converted and it is deduplicated.
type rawDiag struct {
	at                         int    // index of the output line it came from
	rel                        string // workspace-relative path
	line, col, endLine, endCol int
	unit                       colUnit
	sev                        Severity
	msg, code, source          string
}

// scan is the state shared by the parsers over one command's output. Each
// parser marks the lines it understood as used, so that later, looser
// parsers (the generic one last) do not read them again and only lines no
// parser understood are reported as unlocated.
type scan struct {
	lines []string
	used  []bool
	root  string // real workspace root
	dir   string // where the command ran: root, or a CheckDir copy of it
	cmd   string
	// prefixes are absolute directories whose contents map onto root: the
	// run directory, root, and their symlink-resolved forms.
	prefixes []string
	makeDir  []string // per line: the workspace-relative directory make entered, or ""
	diags    []rawDiag

	exists map[string]bool
	files  map[string][]string
	goMod  *string
	byBase map[string][]string
}

// parseOutput turns a check's output, produced in dir (a CheckDir copy of
// root) by cmd, into diagnostics located in root and the meaningful lines
// that name no file in the workspace; cmd names the tool when the output
// alone cannot.
func parseOutput(output, root, dir, cmd string) ([]Diagnostic, []string) {
	s := newScan(output, root, dir, cmd)
	for _, p := range parsers {
		p(s)
	}
	return s.finish()
}

// parsers run in this order: specific formats first, the generic
// path:line: message last.
var parsers = []func(*scan){
	parseMakeDirs,
	parseGoTest,
	parseGoBuild,
	parseRust,
	parseGCC,
	parseTSC,
	parseESLint,
	parsePytest,
	parsePyTrace,
	parseGeneric,
}

func newScan(output, root, dir, cmd string) *scan {
	root = absClean(root)
	if dir == "" {
		dir = root
	}
	dir = absClean(dir)
	s := &scan{
		lines:  splitLines(stripANSI(output)),
		root:   root,
		dir:    dir,
		cmd:    cmd,
		exists: map[string]bool{},
		files:  map[string][]string{},
	}
	s.used = make([]bool, len(s.lines))
	s.makeDir = make([]string, len(s.lines))
	for _, p := range []string{dir, root} {
		s.prefixes = append(s.prefixes, p)
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			s.prefixes = append(s.prefixes, r)
		}
	}
	return s
}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

var ansiRE = lazyRegexp(`\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiRE.ReplaceAllString(s, "")
}

// splitLines splits on newlines and keeps, for lines redrawn with carriage
// returns (progress bars), only what was drawn last.
func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if k := strings.LastIndexByte(l, '\r'); k >= 0 {
			l = l[k+1:]
		}
		lines[i] = l
	}
	return lines
}

// relOf maps an absolute path printed by a tool to a workspace-relative
// path, if it lies inside the run directory or the root.
func (s *scan) relOf(abs string) (string, bool) {
	abs = filepath.Clean(abs)
	for _, p := range s.prefixes {
		if strings.HasPrefix(abs, p+string(filepath.Separator)) {
			rel := abs[len(p)+1:]
			if filepath.IsLocal(rel) {
				return rel, true
			}
		}
	}
	return "", false
}

// locate resolves a path printed on output line at. Relative paths are tried
// against each of bases (workspace-relative directories), the directory make
// had entered, and the root; the first that names an existing file wins,
// else the first that stays inside the workspace. ok is false for paths
// outside the workspace.
func (s *scan) locate(p string, at int, bases ...string) (rel string, exists, ok bool) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", false, false
	}
	if filepath.IsAbs(p) {
		rel, ok := s.relOf(p)
		if !ok {
			return "", false, false
		}
		return rel, s.fileExists(rel), true
	}
	cands := make([]string, 0, len(bases)+2)
	for _, b := range bases {
		if b != "" {
			cands = append(cands, b)
		}
	}
	if at >= 0 && at < len(s.makeDir) && s.makeDir[at] != "" {
		cands = append(cands, s.makeDir[at])
	}
	cands = append(cands, ".")
	first := ""
	for _, b := range cands {
		rel := filepath.Join(b, p)
		if !filepath.IsLocal(rel) || rel == "." {
			continue
		}
		if s.fileExists(rel) {
			return rel, true, true
		}
		if first == "" {
			first = rel
		}
	}
	if first == "" {
		return "", false, false
	}
	return first, false, true
}

func (s *scan) fileExists(rel string) bool {
	if e, ok := s.exists[rel]; ok {
		return e
	}
	fi, err := os.Stat(filepath.Join(s.dir, rel))
	e := err == nil && !fi.IsDir()
	s.exists[rel] = e
	return e
}

func (s *scan) add(d rawDiag) {
	if d.line <= 0 || d.rel == "" {
		return
	}
	if d.sev == 0 {
		d.sev = Error
	}
	d.msg = strings.TrimSpace(d.msg)
	if len(d.msg) > maxMessage {
		d.msg = textcut.Head(d.msg, maxMessage) + "…"
	}
	s.diags = append(s.diags, d)
}

const (
	maxMessage   = 4000
	maxUnlocated = 200
	maxLineBytes = 500
)

// finish converts columns, drops duplicates and collects unlocated lines.
func (s *scan) finish() ([]Diagnostic, []string) {
	sort.SliceStable(s.diags, func(i, j int) bool { return s.diags[i].at < s.diags[j].at })
	type key struct {
		rel       string
		line, col int
		sev       Severity
		msg       string
	}
	seen := map[key]bool{}
	var out []Diagnostic
	for _, r := range s.diags {
		col, endCol := r.col, r.endCol
		if r.unit != unitBytes && (col > 0 || endCol > 0) {
			text, ok := s.fileLine(r.rel, r.line)
			if ok {
				col = byteColumn(text, col, r.unit)
				endLine := r.endLine
				if endLine == 0 || endLine == r.line {
					endCol = byteColumn(text, endCol, r.unit)
				} else if t2, ok := s.fileLine(r.rel, endLine); ok {
					endCol = byteColumn(t2, endCol, r.unit)
				}
			}
		}
		k := key{r.rel, r.line, col, r.sev, r.msg}
		if seen[k] {
			continue
		}
		seen[k] = true
		endLine := r.endLine
		if endCol > 0 && endLine == 0 {
			endLine = r.line
		}
		out = append(out, Diagnostic{
			Path:     filepath.Join(s.root, r.rel),
			Line:     r.line,
			Col:      col,
			EndLine:  endLine,
			EndCol:   endCol,
			Severity: r.sev,
			Message:  r.msg,
			Code:     r.code,
			Source:   r.source,
		})
	}

	var unloc []string
	seenLine := map[string]bool{}
	for i, l := range s.lines {
		if s.used[i] || isNoise(l) {
			continue
		}
		t := strings.TrimSpace(l)
		if len(t) > maxLineBytes {
			t = textcut.Head(t, maxLineBytes) + "…"
		}
		if seenLine[t] {
			continue
		}
		seenLine[t] = true
		if len(unloc) == maxUnlocated {
			unloc = append(unloc, "… (more lines omitted)")
			break
		}
		unloc = append(unloc, t)
	}
	return out, unloc
}

// fileLine returns line n (1-based) of a workspace file as the tool saw it,
// that is, from the run directory.
func (s *scan) fileLine(rel string, n int) (string, bool) {
	lines, ok := s.files[rel]
	if !ok {
		lines = readLines(filepath.Join(s.dir, rel))
		s.files[rel] = lines
	}
	if n < 1 || n > len(lines) {
		return "", false
	}
	return lines[n-1], true
}

const maxSourceBytes = 8 << 20

func readLines(path string) []string {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi.Size() > maxSourceBytes {
		return nil
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxSourceBytes)
	for sc.Scan() {
		lines = append(lines, string(bytes.TrimSuffix(sc.Bytes(), []byte("\r"))))
	}
	return lines
}

// makeDirRE matches GNU make's notes on recursive invocations, whose
// commands print paths relative to the directory entered.
var makeDirRE = lazyRegexp("^\\S*make(?:\\[\\d+\\])?: (Entering|Leaving) directory [`'‘](.*)['’]$")

func parseMakeDirs(s *scan) {
	var stack []string
	for i, l := range s.lines {
		if m := makeDirMatch(l); m != nil {
			s.used[i] = true
			if m[1] == "Entering" {
				// The root itself, or a directory outside it, leaves
				// paths relative to the root.
				rel, _ := s.relOf(m[2])
				stack = append(stack, rel)
			} else if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if len(stack) > 0 {
			s.makeDir[i] = stack[len(stack)-1]
		}
	}
}

func makeDirMatch(l string) []string {
	if !strings.Contains(l, " directory ") {
		return nil
	}
	return makeDirRE.FindStringSubmatch(l)
}

// atoi parses the digits the regular expressions matched; it returns 0 for
// an empty or absurd number, which add treats as no location.
func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1e8 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// toolName is the program a shell command runs, for diagnostics whose
// output does not name its tool.
func toolName(cmd string) string {
	f := strings.Fields(cmd)
	for len(f) > 0 && strings.Contains(f[0], "=") {
		f = f[1:] // VAR=value prefixes
	}
	if len(f) == 0 {
		return "check"
	}
	return filepath.Base(f[0])
}
