package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/internal/agent"
)

type editFileArgs struct {
	Path       string     `json:"path" jsonschema:"Relative to the workspace root."`
	OldString  string     `json:"old_string,omitempty" jsonschema:"Exact current text, including whitespace, without read_file's line numbers."`
	NewString  string     `json:"new_string,omitempty" jsonschema:"Replacement text."`
	ReplaceAll bool       `json:"replace_all,omitempty" jsonschema:"Replace every occurrence."`
	Edits      []editItem `json:"edits,omitempty" jsonschema:"Several edits of this file in one call, applied in order, all or none; instead of old_string/new_string."`
}

type editItem struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// editFileDecl is built on first use: inferring and resolving a schema costs start-up time every command would pay.
var editFileDecl = sync.OnceValue(func() *args[editFileArgs] { return declare[editFileArgs](nil) })

func newEditFile(ws agent.Workspace, o Options) agent.Tool {
	t := &tool{
		name: "edit_file",
		description: "Replace exact text in an existing file, through the editor (the user sees and can undo it). " +
			"old_string must occur exactly once unless replace_all is set; read the file first and copy the text without the line-number prefix. " +
			"A pasted line-number prefix or a whitespace-only difference with one unique match is repaired and the result says so. " +
			"After editing a .go file the result lists its syntax errors. Use write_file to create files." +
			cond(o.ReadBeforeEdit, " Edit only files you have read in this task (read_file); others are refused.", ""),
		schema: editFileDecl().schema(),
	}
	t.run = func(ctx context.Context, raw json.RawMessage) (agent.ToolResult, error) {
		a, err := editFileDecl().parse(t.name, raw)
		if err != nil {
			return agent.ToolResult{}, err
		}
		abs, rel, err := writable(ctx, o, a.Path)
		if err != nil {
			return agent.ToolResult{}, err
		}
		list := a.Edits
		switch {
		case len(list) > 0 && (a.OldString != "" || a.NewString != ""):
			return agent.ToolResult{}, fmt.Errorf("give either edits or old_string/new_string, not both")
		case len(list) == 0:
			// new_string is optional only beside edits: a call that
			// forgets it must not delete old_string.
			var present map[string]json.RawMessage
			_ = json.Unmarshal(raw, &present)
			for _, k := range []string{"old_string", "new_string"} {
				if _, ok := present[k]; !ok {
					return agent.ToolResult{}, fmt.Errorf("invalid arguments for %s: missing required field %q (or give edits); expected arguments matching this JSON schema: %s", t.name, k, t.schema)
				}
			}
			list = []editItem{{OldString: a.OldString, NewString: a.NewString, ReplaceAll: a.ReplaceAll}}
		}
		for i, e := range list {
			which := ""
			if len(list) > 1 {
				which = fmt.Sprintf("edit %d of %d: ", i+1, len(list))
			}
			if e.OldString == "" {
				return agent.ToolResult{}, fmt.Errorf("%sold_string is empty; to create a file or replace all of it use write_file", which)
			}
			if e.OldString == e.NewString {
				return agent.ToolResult{}, fmt.Errorf("%sold_string and new_string are the same; nothing to change", which)
			}
		}
		if err := checkRegular(abs, rel, ""); err != nil {
			return agent.ToolResult{}, err
		}
		if err := o.reads.check(rel); err != nil && exists(ctx, ws, rel) {
			return agent.ToolResult{}, err
		}
		var (
			results []replaced
			final   []byte
			terr    error
		)
		err = ws.Edit(ctx, rel, func(old []byte, exists bool) ([]byte, error) {
			results, terr = nil, nil
			if !exists {
				terr = fmt.Errorf("file %s does not exist; use write_file to create it", rel)
				return nil, terr
			}
			cur := old
			for i, e := range list {
				out, res, err := replaceIn(rel, cur, e.OldString, e.NewString, e.ReplaceAll)
				if err != nil {
					if len(list) > 1 {
						err = fmt.Errorf("edit %d of %d failed, so none was applied: %w", i+1, len(list), err)
					}
					terr = err
					return nil, terr
				}
				results = append(results, res)
				cur = out
			}
			final = cur
			return cur, nil
		})
		if terr != nil {
			return agent.ToolResult{}, terr
		}
		if err != nil {
			return agent.ToolResult{}, fmt.Errorf("edit %s: %w", rel, err)
		}
		o.reads.saw(rel)
		var out strings.Builder
		for i, res := range results {
			if i > 0 {
				out.WriteString("\n")
			}
			if len(results) > 1 {
				fmt.Fprintf(&out, "%d. ", i+1)
			}
			out.WriteString(res.summary(rel))
		}
		out.WriteString(syntaxNote(rel, final))
		return agent.ToolResult{Output: out.String(), Changed: []string{rel}}, nil
	}
	return t
}

// replaced describes what replaceIn did, in lines of the new text.
type replaced struct {
	starts, ends []int
	repairs      []string // what was repaired to make old_string match
}

func (r replaced) summary(rel string) string {
	s := r.where(rel)
	for _, rep := range r.repairs {
		s += " (" + rep + ")"
	}
	return s
}

func (r replaced) where(rel string) string {
	if len(r.starts) == 1 {
		if r.starts[0] == r.ends[0] {
			return fmt.Sprintf("edited %s: 1 replacement, line %d", rel, r.starts[0])
		}
		return fmt.Sprintf("edited %s: 1 replacement, lines %d–%d", rel, r.starts[0], r.ends[0])
	}
	return fmt.Sprintf("edited %s: %d replacements, at lines %s", rel, len(r.starts), lineList(r.starts))
}

// replaceIn applies one edit_file call to a file's current text. A file
// whose line breaks are all CRLF is edited as LF text and converted back, so
// old_string copied from read_file (which shows no \r) matches and the file
// keeps its endings.
func replaceIn(rel string, data []byte, oldS, newS string, all bool) ([]byte, replaced, error) {
	if len(data) > maxEditSize {
		return nil, replaced{}, fmt.Errorf("%s is %d bytes; edit_file takes files up to %d bytes (32 MiB), since each edit holds and diffs the whole text several times over; a file this large is usually data or generated: change what generates it, or edit it with run_command (sed, a script)", rel, len(data), maxEditSize)
	}
	if isBinary(data) {
		return nil, replaced{}, fmt.Errorf("%s is a binary file; edit_file edits text only", rel)
	}
	text := string(data)
	crlf := isCRLF(text)
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		oldS = strings.ReplaceAll(oldS, "\r\n", "\n")
		newS = strings.ReplaceAll(newS, "\r\n", "\n")
	}
	offs := findAll(text, oldS)
	var repairs []string
	if len(offs) == 0 {
		// Repairs, each only when unambiguous: a read_file line-number
		// prefix pasted into old_string (and new_string), then a unique
		// match that differs only in whitespace.
		if o2, n2, ok := stripLineNumbers(oldS, newS); ok {
			if offs = findAll(text, o2); len(offs) > 0 {
				both := n2 != newS
				oldS, newS = o2, n2
				repairs = append(repairs, "repaired: removed the read_file line-number prefix pasted into old_string"+cond(both, " and new_string", ""))
			}
		}
	}
	if len(offs) == 0 {
		if off, end, n2, ok := wsMatch(text, oldS, newS); ok {
			offs, oldS, newS = []int{off}, text[off:end], n2
			repairs = append(repairs, "repaired: old_string matched lines that differ only in whitespace; they were replaced")
		}
	}
	switch {
	case len(offs) == 0:
		return nil, replaced{}, notFound(rel, text, oldS)
	case len(offs) > 1 && !all:
		lines := make([]int, len(offs))
		for i, off := range offs {
			lines[i] = lineAt(text, off)
		}
		return nil, replaced{}, fmt.Errorf("old_string occurs %d times in %s (at lines %s); include more surrounding lines to make it unique, or set replace_all to change every one",
			len(offs), rel, lineList(lines))
	}

	var sb strings.Builder
	sb.Grow(len(text) + len(offs)*(len(newS)-len(oldS)))
	res := replaced{repairs: repairs}
	prev, line := 0, 1
	span := strings.Count(strings.TrimSuffix(newS, "\n"), "\n")
	for _, off := range offs {
		seg := text[prev:off]
		line += strings.Count(seg, "\n")
		sb.WriteString(seg)
		sb.WriteString(newS)
		res.starts = append(res.starts, line)
		res.ends = append(res.ends, line+span)
		line += strings.Count(newS, "\n")
		prev = off + len(oldS)
	}
	sb.WriteString(text[prev:])
	out := sb.String()
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return []byte(out), res, nil
}

func lineList(lines []int) string {
	const max = 20
	var parts []string
	for i, l := range lines {
		if i == max {
			parts = append(parts, fmt.Sprintf("… %d more", len(lines)-max))
			break
		}
		parts = append(parts, fmt.Sprint(l))
	}
	return strings.Join(parts, ", ")
}

// notFound explains a missing old_string by showing the current text where
// the model most likely meant: a whitespace-insensitive match of the whole
// old_string if there is one, else the line most similar to its first line.
func notFound(rel, text, oldS string) error {
	lines := splitLines(text)
	if len(lines) == 0 {
		return fmt.Errorf("old_string not found: %s is empty; use write_file to give it content", rel)
	}
	want := splitLines(oldS)
	for len(want) > 0 && strings.TrimSpace(want[0]) == "" {
		want = want[1:]
	}
	for len(want) > 0 && strings.TrimSpace(want[len(want)-1]) == "" {
		want = want[:len(want)-1]
	}
	var sb strings.Builder
	if len(want) == 0 {
		return fmt.Errorf("old_string (only whitespace) not found in %s", rel)
	}
	if at := matchIgnoringSpace(lines, want); at > 0 {
		end := at + len(want) - 1
		fmt.Fprintf(&sb, "old_string not found in %s, but lines %d–%d match it except for whitespace or indentation. Current text:\n", rel, at, end)
		numbered(&sb, lines, max(1, at-2), min(len(lines), end+2))
	} else {
		best, score := mostSimilar(lines, strings.TrimSpace(want[0]))
		fmt.Fprintf(&sb, "old_string not found in %s. ", rel)
		if score < 0.3 {
			fmt.Fprintf(&sb, "No line resembles its first line; the closest is line %d:\n", best)
		} else {
			fmt.Fprintf(&sb, "The line most like its first line is %d:\n", best)
		}
		numbered(&sb, lines, max(1, best-5), min(len(lines), best+5))
	}
	sb.WriteString("Read the file again and copy old_string exactly, including whitespace.")
	return fmt.Errorf("%s", sb.String())
}

// matchIgnoringSpace returns the 1-based line where want matches lines with
// each line trimmed, or 0.
func matchIgnoringSpace(lines, want []string) int {
	for i := 0; i+len(want) <= len(lines); i++ {
		ok := true
		for j, w := range want {
			if strings.Join(strings.Fields(lines[i+j]), " ") != strings.Join(strings.Fields(w), " ") {
				ok = false
				break
			}
		}
		if ok {
			return i + 1
		}
	}
	return 0
}

// mostSimilar returns the 1-based line most similar to s by the Dice
// coefficient of character bigrams: linear in the line length, so it stays
// fast on a 2 MB file, and forgiving of small typos and renamed identifiers.
func mostSimilar(lines []string, s string) (int, float64) {
	want := bigrams(s)
	best, bestScore := 1, -1.0
	for i, l := range lines {
		got := bigrams(strings.TrimSpace(l))
		score := dice(want, got)
		if score > bestScore {
			best, bestScore = i+1, score
		}
	}
	return best, bestScore
}

func bigrams(s string) map[[2]rune]int {
	m := map[[2]rune]int{}
	var prev rune = -1
	for _, r := range s {
		if prev >= 0 {
			m[[2]rune{prev, r}]++
		}
		prev = r
	}
	return m
}

func dice(a, b map[[2]rune]int) float64 {
	na, nb, common := 0, 0, 0
	for k, n := range a {
		na += n
		common += min(n, b[k])
	}
	for _, n := range b {
		nb += n
	}
	if na+nb == 0 {
		return 0
	}
	return 2 * float64(common) / float64(na+nb)
}
