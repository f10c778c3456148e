package driver

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/agentls/agentls/internal/textcut"
)

// A task may mention workspace files: "@path" attaches the file, and
// "@path:10-40" (or "@path:12") lines of it. The files are read through an
// os.Root opened on the workspace, so a mention cannot leave it (no "..",
// no absolute path, no symlink out), only regular ones, and never a secret
// file, by the name given or by the file it turns out to be (readConfined).
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
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil
	}
	defer r.Close()
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
		text, more, ok := readConfined(r, rel, maxMentionSize, secret)
		if !ok {
			if why := missReason(r, rel, secret); why != "" {
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
func missReason(r *os.Root, rel string, secret func(string) bool) string {
	if secret != nil && secret(filepath.ToSlash(rel)) {
		return "a secret file (tools.secretFiles)"
	}
	st, err := r.Stat(rel)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		if strings.ContainsAny(rel, "./"+string(filepath.Separator)) {
			return "no such file in the workspace"
		}
		return ""
	case err != nil:
		return "outside the workspace or unreadable"
	case !st.Mode().IsRegular():
		return "not a regular file"
	}
	return "a secret file (tools.secretFiles) or outside the workspace"
}

// readConfined reads a regular file inside r: at most limit bytes, and
// whether it holds more. It opens without blocking, because opening a
// named pipe waits for a writer that may never come, and reads nothing but
// a regular file. A file that secret names is not read, whether by the
// name given or by where the opened file really lies (AGENTS.md as a
// symlink to .env, a mention of a directory link into .git).
func readConfined(r *os.Root, rel string, limit int, secret func(string) bool) (text string, more, ok bool) {
	if secret != nil && secret(filepath.ToSlash(rel)) {
		return "", false, false
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", false, false
	}
	if secret != nil {
		real, ok := openedRel(r.Name(), f, rel)
		if !ok || secret(real) {
			return "", false, false
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", false, false
	}
	if len(b) > limit {
		return string(textcut.Head(b, limit)), true, true
	}
	return string(b), false, true
}

// openedRel is where the opened file f (opened as rel below root) lies,
// relative to root and '/'-separated: read from the descriptor where the
// system says (so a link swapped after the open changes nothing), else
// by resolving the name's symlinks. ok is false when it lies outside.
func openedRel(root string, f *os.File, rel string) (string, bool) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || !filepath.IsAbs(target) {
		if target, err = filepath.EvalSymlinks(filepath.Join(root, rel)); err != nil {
			return "", false
		}
	}
	out, err := filepath.Rel(realRoot, target)
	if err != nil || !filepath.IsLocal(out) {
		return "", false
	}
	return filepath.ToSlash(out), true
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
