package driver

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentls/agentls/internal/textcut"
)

// SkillsDir holds a workspace's skills, one directory each with a
// SKILL.md, the layout Claude Code, Zed and Gemini CLI read.
const SkillsDir = ".agents/skills"

// Limits on what skills put in the prompt.
const (
	maxSkills           = 100
	maxSkillDescription = 400
)

// Skill is one of a workspace's skills: its name and description go in
// the prompt; its body (SKILL.md) and the files it names are read on
// demand, with read_file.
type Skill struct {
	Name        string
	Description string
	Path        string // workspace-relative, slash-separated: .agents/skills/<dir>/SKILL.md
}

// Skills are the workspace's skills, sorted by name. Each SKILL.md is
// read as AGENTS.md is, through the one reader (readConfined, wsread):
// beneath the root, without blocking, a regular file, and not a secret by
// its name or by the file a link makes it (a skill linked to .env is left
// out; secret nil: the default secret files). Its front matter gives name (default: the
// directory's) and description.
func Skills(root string, secret func(rel string) bool) []Skill {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	d, err := r.Open(filepath.FromSlash(SkillsDir))
	if err != nil {
		return nil
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out []Skill
	seen := map[string]bool{}
	for _, e := range entries {
		if len(out) == maxSkills {
			break
		}
		rel := path.Join(SkillsDir, e.Name(), "SKILL.md")
		text, _, err := readConfined(root, filepath.FromSlash(rel), maxContextFile, secret)
		if err != nil {
			continue
		}
		s := parseSkill(e.Name(), text)
		s.Path = rel
		if s.Name == "" || seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// parseSkill reads a SKILL.md's front matter: "---", "key: value" lines,
// "---". Only name and description are read.
func parseSkill(dir, text string) Skill {
	s := Skill{Name: dir}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return s
	}
	front, _, ok := strings.Cut(rest, "\n---")
	if !ok {
		return s
	}
	for _, line := range strings.Split(front, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.TrimSpace(k) {
		case "name":
			if validSkillName(v) {
				s.Name = v
			}
		case "description":
			s.Description = v
		}
	}
	s.Description = strings.Join(strings.Fields(s.Description), " ")
	if len(s.Description) > maxSkillDescription {
		s.Description = textcut.Head(s.Description, maxSkillDescription) + "…"
	}
	if !validSkillName(s.Name) {
		s.Name = ""
	}
	return s
}

func validSkillName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for i, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '-' || c == '_' || c == '.')) {
			return false
		}
	}
	return true
}

// skillsSection is the prompt's list of skills ("" without any).
func skillsSection(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n## Skills\nThe workspace has these skills. When a task calls for one, read its SKILL.md with read_file first and follow it; read the files it names only when you need them.\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s (%s)\n", s.Name, orNone(s.Description), s.Path)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func orNone(s string) string {
	if s == "" {
		return "(no description)"
	}
	return s
}
