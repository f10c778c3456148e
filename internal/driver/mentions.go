package driver

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/textcut"
	"github.com/agentls/agentls/internal/wsread"
)

// A task may mention workspace files: "@path" attaches the file, and
// "@path:10-40" (or "@path:12") lines of it. The files are read through
// the one reader of workspace text (internal/wsread), so a mention cannot
// leave the workspace (no "..", no absolute path, no symlink out), only
// regular ones, and never a secret file, by the name given or by the file
// it turns out to be (readConfined).
// A mention that names no readable file is left as plain text: "@someone"
// in a prompt is not an error.

// mentionRE matches a mention at the start or after white space or an
// opening bracket; the path has no spaces and no trailing punctuation.
var mentionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s(\[])@([A-Za-z0-9_./-]*[A-Za-z0-9_/-])(?::(\d+)(?:-(\d+))?)?`)
})

const (
	maxMentions    = 10
	maxMentionSize = 64 << 10
)

// Mention is one resolved "@path" of a task.
type Mention struct {
	Path       string // workspace-relative, slash-separated
	Start, End int    // 1-based inclusive lines; 0, 0: the whole file
	Text       string
}

// Mentions resolves the mentions in prompt against root, in order, each
// file range once. secret says whether a workspace-relative,
// '/'-separated path names a secret file (tools.secretFiles); nil: none
// does.
func Mentions(root, prompt string, secret func(rel string) bool) []Mention {
	ms, _ := MentionsAndMisses(root, prompt, secret)
	return ms
}

// MentionsAndMisses is Mentions, and a line for the user about each
// mention of a file that was not read, saying why ("@../x.txt: outside
// the workspace"). A word that names no file and looks like no path
// ("@someone") is no miss.
func MentionsAndMisses(root, prompt string, secret func(rel string) bool) ([]Mention, []string) {
	if root == "" || !strings.Contains(prompt, "@") {
		return nil, nil
	}
	var out []Mention
	var misses []string
	miss := func(m []string, why string) {
		label := "@" + m[1]
		if m[2] != "" {
			label += ":" + m[2]
			if m[3] != "" {
				label += "-" + m[3]
			}
		}
		misses = append(misses, label+" was not read: "+why)
	}
	seen := map[string]bool{}
	for _, m := range mentionRE().FindAllStringSubmatch(prompt, -1) {
		key := m[1] + ":" + m[2] + "-" + m[3]
		if seen[key] {
			continue
		}
		seen[key] = true
		if len(out) == maxMentions {
			miss(m, fmt.Sprintf("more than %d files mentioned", maxMentions))
			continue
		}
		rel := filepath.Clean(filepath.FromSlash(m[1]))
		if !filepath.IsLocal(rel) {
			miss(m, "outside the workspace")
			continue
		}
		text, more, err := readConfined(root, rel, maxMentionSize, secret)
		if err != nil {
			if why := missReason(rel, err); why != "" {
				miss(m, why)
			}
			continue
		}
		if more {
			text += "\n[file truncated]"
		}
		mn := Mention{Path: filepath.ToSlash(rel)}
		if m[2] != "" {
			mn.Start, _ = strconv.Atoi(m[2])
			mn.End = mn.Start
			if m[3] != "" {
				mn.End, _ = strconv.Atoi(m[3])
			}
			if mn.Start < 1 || mn.End < mn.Start {
				miss(m, "not a line range")
				continue
			}
			text = lineRange(text, mn.Start, mn.End)
		}
		mn.Text = text
		out = append(out, mn)
	}
	return out, misses
}

// missReason says why readConfined did not read rel, for the user; ""
// when rel is no file and does not look like a path ("@someone").
func missReason(rel string, err error) string {
	switch {
	case errors.Is(err, wsread.ErrSecret):
		return "a secret file (tools.secretFiles)"
	case errors.Is(err, fs.ErrNotExist):
		if strings.ContainsAny(rel, "./"+string(filepath.Separator)) {
			return "no such file in the workspace"
		}
		return ""
	case errors.Is(err, wsread.ErrNotRegular):
		return "not a regular file"
	case errors.Is(err, wsread.ErrOutside):
		return "outside the workspace"
	}
	return "unreadable"
}

// readConfined reads a workspace file for the model through the one
// reader (internal/wsread): beneath root, without blocking, a regular
// file only, never a secret one by the name given or by where it really
// lies (AGENTS.md as a symlink to .env); at most limit bytes, and whether
// it holds more. secret nil: the default secret files.
func readConfined(root, rel string, limit int, secret func(string) bool) (text string, more bool, err error) {
	f, err := wsread.Reader{Root: root, Secret: secret}.Read(rel, limit)
	if err != nil {
		return "", false, err
	}
	if f.More {
		return textcut.Head(string(f.Data), limit), true, nil
	}
	return string(f.Data), false, nil
}

// lineRange returns lines start..end (1-based, inclusive) of text.
func lineRange(text string, start, end int) string {
	lines := strings.SplitAfter(text, "\n")
	if start > len(lines) {
		return ""
	}
	end = min(end, len(lines))
	return strings.Join(lines[start-1:end], "")
}

// MentionsMessage renders resolved mentions for the model; "" for none.
func MentionsMessage(ms []Mention) string {
	if len(ms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Files the user mentioned with @:")
	for _, m := range ms {
		if m.Start > 0 {
			fmt.Fprintf(&b, "\n\n%s, lines %d–%d:\n```\n%s\n```", m.Path, m.Start, m.End, strings.TrimRight(m.Text, "\n"))
		} else {
			fmt.Fprintf(&b, "\n\n%s:\n```\n%s\n```", m.Path, strings.TrimRight(m.Text, "\n"))
		}
	}
	return b.String()
}
