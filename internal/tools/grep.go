package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/agent"
)

const (
	grepLineChars = 300
	// grepMaxFile skips files no model needs searched line by line (logs,
	// dumps) and bounds a worker's buffer.
	grepMaxFile = 32 << 20
)

type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"Regular expression (Go RE2 syntax; ^ and $ match at line ends)."`
	Path       string `json:"path,omitempty" jsonschema:"File or directory (default: the workspace root)."`
	Glob       string `json:"glob,omitempty" jsonschema:"Only files matching this glob, e.g. \"*.go\"."`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"Match case-insensitively."`
	Context    int    `json:"context,omitempty" jsonschema:"Lines to show before and after each match." minimum:"0" maximum:"10"`
	Output     string `json:"output,omitempty" jsonschema:"\"lines\" (default): matching lines; \"files\": only the paths of files that match; \"count\": path:number of matching lines."`
}

// grepDecl is built on first use: inferring and resolving a schema costs start-up time every command would pay.
var grepDecl = sync.OnceValue(func() *args[grepArgs] { return declare[grepArgs](nil) })

func newGrep(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "grep",
		description: "Search file contents under the workspace (and the editor's unsaved buffers); prints matching lines as path:line: text, context lines as path-line- text. Skips .gitignored, binary and secret files. Shows at most " + fmt.Sprint(o.MaxGrepMatches) + " matching lines and says how many were cut.",
		schema:      grepDecl().schema(),
		readOnly:    true,
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := grepDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		switch a.Output {
		case "", "lines", "files", "count":
		default:
			return agent.ToolResult{}, fmt.Errorf("output must be \"lines\", \"files\" or \"count\", got %q", a.Output)
		}
		pattern := a.Pattern
		if a.IgnoreCase {
			pattern = "(?i)" + pattern
		}
		m, err := compileMatcher(pattern)
		if err != nil {
			return agent.ToolResult{}, err
		}
		m.context, m.mode = a.Context, a.Output
		var g *glob
		if a.Glob != "" {
			if g, err = compileGlob(a.Glob); err != nil {
				return agent.ToolResult{}, err
			}
		}
		res, err := grep(ctx, ws, o.Policy, m, a.Path, g, o.MaxGrepMatches)
		if err != nil {
			return agent.ToolResult{}, err
		}
		return agent.ToolResult{Output: res.render(o.MaxGrepMatches, a.Output)}, nil
	}
	return t
}

// matcher finds the first match in a buffer: bytes.Index for a pattern that
// is a plain literal, else the regexp (which itself skips ahead with
// strings.Index when the pattern starts with a literal).
type matcher struct {
	lit []byte
	re  *regexp.Regexp
	// context is the number of lines shown around each match.
	context int
	// mode is grep's output: "files" and "count" keep no lines, and every
	// matching file.
	mode string
}

func (m *matcher) perFile() bool { return m.mode == "files" || m.mode == "count" }

func compileMatcher(pattern string) (*matcher, error) {
	plain, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v (Go RE2 syntax: escape ( [ { . * + ? | \\ with a backslash to match them literally)", pattern, err)
	}
	if lit, complete := plain.LiteralPrefix(); complete && lit != "" {
		return &matcher{lit: []byte(lit)}, nil
	}
	return &matcher{re: regexp.MustCompile("(?m)" + pattern)}, nil
}

func (m *matcher) find(b []byte) int {
	if m.lit != nil {
		return bytes.Index(b, m.lit)
	}
	loc := m.re.FindIndex(b)
	if loc == nil {
		return -1
	}
	return loc[0]
}

type grepLine struct {
	line int
	text string
	ctx  bool // a context line, not a match
}

type grepFile struct {
	rel   string
	lines []grepLine // at most the cap
	total int
}

// grepResult gathers matches from the workers, keeping only what can still
// be among the first max lines in path order, so memory stays bounded when a
// pattern matches everything.
type grepResult struct {
	mu      sync.Mutex
	files   []grepFile
	stored  int
	dropped int // matches counted but no longer kept
	total   int
	note    string
	keepAll bool // files or count: never prune files
}

func (r *grepResult) add(f grepFile, max int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += f.total
	r.dropped += f.total - len(f.lines)
	r.files = append(r.files, f)
	r.stored += len(f.lines)
	if r.stored > 4*max && !r.keepAll {
		r.prune(max)
	}
}

func (r *grepResult) prune(max int) {
	slices.SortFunc(r.files, func(a, b grepFile) int { return strings.Compare(a.rel, b.rel) })
	n := 0
	for i, f := range r.files {
		if n >= max {
			for _, d := range r.files[i:] {
				r.dropped += len(d.lines)
				r.stored -= len(d.lines)
			}
			r.files = r.files[:i]
			return
		}
		n += len(f.lines)
	}
}

func (r *grepResult) render(max int, mode string) string {
	if mode == "files" || mode == "count" {
		// Every matching file, however many lines matched.
		slices.SortFunc(r.files, func(a, b grepFile) int { return strings.Compare(a.rel, b.rel) })
	} else {
		r.prune(max)
	}
	var sb strings.Builder
	sb.WriteString(r.note)
	if r.total == 0 {
		sb.WriteString("(no matches)\n")
		return sb.String()
	}
	switch mode {
	case "files":
		for _, f := range r.files {
			sb.WriteString(f.rel + "\n")
		}
		return sb.String()
	case "count":
		for _, f := range r.files {
			fmt.Fprintf(&sb, "%s:%d\n", f.rel, f.total)
		}
		return sb.String()
	}
	shown := 0
	for _, f := range r.files {
		prev := 0
		for _, l := range f.lines {
			if shown == max {
				break
			}
			if prev > 0 && l.line > prev+1 {
				sb.WriteString("--\n")
			}
			prev = l.line
			if l.ctx {
				fmt.Fprintf(&sb, "%s-%d- %s\n", f.rel, l.line, l.text)
				continue
			}
			fmt.Fprintf(&sb, "%s:%d: %s\n", f.rel, l.line, l.text)
			shown++
		}
	}
	if shown < r.total {
		fmt.Fprintf(&sb, "[%d of %d matching lines shown, %d cut; narrow the pattern, path or glob]\n", shown, r.total, r.total-shown)
	}
	return sb.String()
}

// searchText finds the matching lines of one file. It returns ok=false for
// text the tools treat as binary.
func searchText(m *matcher, rel string, b []byte, max int) (grepFile, bool) {
	f := grepFile{rel: rel}
	if hasNUL(b) {
		return f, false
	}
	line, counted := 1, 0
	for pos := 0; pos <= len(b); {
		i := m.find(b[pos:])
		if i < 0 {
			break
		}
		if f.total == 0 && !utf8.Valid(b) {
			return grepFile{rel: rel}, false
		}
		start := pos + i
		line += bytes.Count(b[counted:start], []byte{'\n'})
		ls := bytes.LastIndexByte(b[:start], '\n') + 1
		le := len(b)
		if j := bytes.IndexByte(b[start:], '\n'); j >= 0 {
			le = start + j
		}
		f.total++
		if m.mode == "files" {
			break
		}
		if len(f.lines) < max && !m.perFile() {
			f.lines = append(f.lines, grepLine{line: line, text: clipLine(b[ls:le])})
		}
		// Next search starts on the next line: one report per line.
		line++
		counted = min(le+1, len(b))
		pos = le + 1
	}
	if m.context > 0 && len(f.lines) > 0 {
		f.lines = withContext(b, f.lines, m.context)
	}
	return f, true
}

// withContext adds the n lines around each match, once each, in order.
func withContext(b []byte, matches []grepLine, n int) []grepLine {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var out []grepLine
	next := 1 // the first line not yet emitted
	for i, m := range matches {
		from := max(m.line-n, next)
		for l := from; l < m.line; l++ {
			out = append(out, grepLine{line: l, text: clipLine([]byte(lines[l-1])), ctx: true})
		}
		out = append(out, m)
		next = m.line + 1
		to := min(m.line+n, len(lines))
		if i+1 < len(matches) {
			to = min(to, matches[i+1].line-1)
		}
		for l := next; l <= to; l++ {
			out = append(out, grepLine{line: l, text: clipLine([]byte(lines[l-1])), ctx: true})
		}
		next = max(next, to+1)
	}
	return out
}

func clipLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if utf8.RuneCount(b) <= grepLineChars {
		return string(b)
	}
	n := 0
	for i := range string(b) {
		if n == grepLineChars {
			return string(b[:i]) + "…"
		}
		n++
	}
	return string(b)
}

func grep(ctx context.Context, ws agent.Workspace, pol Policy, m *matcher, dir string, g *glob, max int) (*grepResult, error) {
	abs, rel, err := pol.ResolveRead(dir)
	if err != nil {
		return nil, err
	}
	res := &grepResult{keepAll: m.perFile()}
	keep := func(f string) bool {
		return g == nil || g.match(f) || g.match(relTo(f, rel))
	}
	open := map[string]bool{}
	if bl, ok := As[BufferLister](ws); ok {
		for _, f := range bl.OpenFiles() {
			open[f] = true
		}
	}
	fromBuffer := func(f string) {
		b, err := ws.ReadFile(ctx, f)
		if err != nil {
			return
		}
		if r, ok := searchText(m, f, b, max); ok && r.total > 0 {
			res.add(r, max)
		}
	}

	fi, err := os.Stat(abs)
	if err != nil && !open[rel] {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s does not exist", displayRel(rel))
		}
		return nil, fmt.Errorf("grep %s: %w", displayRel(rel), err)
	}
	if err != nil || !fi.IsDir() {
		// One file, asked for by name: searched even if git-ignored.
		if err == nil && !fi.Mode().IsRegular() && !open[rel] {
			return nil, notRegularError(rel, fi.Mode())
		}
		b, err := ws.ReadFile(ctx, rel)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		r, ok := searchText(m, rel, b, max)
		if !ok {
			res.note = fmt.Sprintf("(%s is a binary file; not searched)\n", rel)
		} else if r.total > 0 {
			res.add(r, max)
		}
		return res, nil
	}

	root := rootOf(abs, rel)
	rootFD := openRootFD(root)
	defer closeRootFD(rootFD)
	w := &walker{
		root:     root,
		policy:   pol,
		batch:    true,
		newState: func() any { return new([]byte) },
		visit: func(state any, e walkEntry) {
			if e.symlink || !keep(e.rel) {
				return
			}
			if open[e.rel] {
				fromBuffer(e.rel)
				return
			}
			buf := state.(*[]byte)
			b, ok := readInto(buf, rootFD, root, e.rel)
			if !ok {
				return
			}
			if r, ok := searchText(m, e.rel, b, max); ok && r.total > 0 {
				res.add(r, max)
			}
		},
	}
	ignored, err := w.walk(ctx, rel)
	if err != nil {
		return nil, err
	}
	for _, f := range unsavedBuffers(ws, pol, rel, keep) {
		fromBuffer(f)
	}
	if ignored {
		res.note = fmt.Sprintf("(%s is git-ignored; searched because it was asked for by path)\n", rel)
	}
	return res, nil
}
