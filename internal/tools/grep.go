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
	Pattern string `json:"pattern" jsonschema:"Regular expression (Go RE2 syntax; ^ and $ match at line ends)."`
	Path    string `json:"path,omitempty" jsonschema:"File or directory (default: the workspace root)."`
	Glob    string `json:"glob,omitempty" jsonschema:"Only files matching this glob, e.g. \"*.go\"."`
}

// grepDecl is built on first use: inferring and resolving a schema costs start-up time every command would pay.
var grepDecl = sync.OnceValue(func() *args[grepArgs] { return declare[grepArgs](nil) })

func newGrep(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name:        "grep",
		description: "Search file contents; prints matching lines as path:line: text. Skips .gitignored and binary files.",
		schema:      grepDecl().schema(),
		readOnly:    true,
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := grepDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		m, err := compileMatcher(a.Pattern)
		if err != nil {
			return agent.ToolResult{}, err
		}
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
		return agent.ToolResult{Output: res.render(o.MaxGrepMatches)}, nil
	}
	return t
}

// matcher finds the first match in a buffer: bytes.Index for a pattern that
// is a plain literal, else the regexp (which itself skips ahead with
// strings.Index when the pattern starts with a literal).
type matcher struct {
	lit []byte
	re  *regexp.Regexp
}

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
}

func (r *grepResult) add(f grepFile, max int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += f.total
	r.dropped += f.total - len(f.lines)
	r.files = append(r.files, f)
	r.stored += len(f.lines)
	if r.stored > 4*max {
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

func (r *grepResult) render(max int) string {
	r.prune(max)
	var sb strings.Builder
	sb.WriteString(r.note)
	if r.total == 0 {
		sb.WriteString("(no matches)\n")
		return sb.String()
	}
	shown := 0
	for _, f := range r.files {
		for _, l := range f.lines {
			if shown == max {
				break
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
		if len(f.lines) < max {
			f.lines = append(f.lines, grepLine{line, clipLine(b[ls:le])})
		}
		// Next search starts on the next line: one report per line.
		line++
		counted = min(le+1, len(b))
		pos = le + 1
	}
	return f, true
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
	res := &grepResult{}
	keep := func(f string) bool {
		return g == nil || g.match(f) || g.match(relTo(f, rel))
	}
	open := map[string]bool{}
	if bl, ok := ws.(BufferLister); ok {
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
