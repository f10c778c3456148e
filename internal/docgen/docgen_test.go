package docgen

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

const root = "../.."

// The committed reference pages are what the code generates: a hand edit
// of a page, or a setting, command or event kind added to the code
// without regenerating, fails here.
func TestPagesMatchTheCode(t *testing.T) {
	pages := Pages()
	for rel, want := range pages {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s: %v; run `make docs`", rel, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the code generates (line %d); run `make docs` (go generate ./internal/docgen) and commit the page", rel, firstDiff(got, want))
		}
	}
	// No page left behind by a table that is gone.
	ents, err := os.ReadDir(filepath.Join(root, Dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if _, ok := pages[Dir+"/"+e.Name()]; !ok {
			t.Errorf("%s/%s is not generated; remove it or generate it", Dir, e.Name())
		}
	}
}

func firstDiff(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// Every setting has its meaning written in the code's table, so no
// setting reaches the reference page without documentation.
func TestEverySettingIsDocumented(t *testing.T) {
	page := string(Pages()[Dir+"/settings.md"])
	for _, sec := range strings.Split(page, "\n## ")[1:] {
		title, body, _ := strings.Cut(sec, "\n\n")
		if doc, _, _ := strings.Cut(body, "\n\n"); strings.HasPrefix(doc, "- type:") || strings.TrimSpace(doc) == "" {
			t.Errorf("setting %s has no documentation in internal/config's table (field.doc)", title)
		}
	}
}

// The pages name the tests that hold what they say (docs/security.md) and
// the benchmarks that reproduce their figures (docs/performance.md): every
// Test and Benchmark named in README.md or docs/ is defined, so a reader
// can run it and a renamed test cannot leave a dead name behind.
func TestDocsNameTestsThatExist(t *testing.T) {
	defined := map[string]bool{}
	fn := regexp.MustCompile(`(?m)^func ((?:Benchmark|Test)\w+)\(`)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range fn.FindAllSubmatch(b, -1) {
				defined[string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Benchmark|Test)[A-Z0-9]\\w*)")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, p := range append(pages, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			seen[filepath.Base(p)]++
			if !defined[m[1]] {
				t.Errorf("%s names %s, which no test file defines", filepath.Base(p), m[1])
			}
		}
	}
	if seen["performance.md"] < 10 || seen["security.md"] < 5 {
		t.Fatalf("found too few test names: %v", seen)
	}
	// Every figure of docs/performance.md's tables says how it is
	// reproduced: its "reproduce" cell names a benchmark or test that
	// exists (checked above), or a make target the Makefile has.
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([\w.-]+):`).FindAllStringSubmatch(string(b), -1) {
		targets[m[1]] = true
	}
	perf, err := os.ReadFile(filepath.Join(root, "docs", "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	makeRE := regexp.MustCompile("`make ([\\w.-]+)")
	rows := 0
	col := -1
	for _, line := range strings.Split(string(perf), "\n") {
		if !strings.HasPrefix(line, "|") {
			col = -1
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if col < 0 {
			for i, c := range cells {
				if strings.TrimSpace(c) == "reproduce" {
					col = i
				}
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		if col >= len(cells) {
			t.Errorf("docs/performance.md: a row without its reproduce cell: %s", line)
			continue
		}
		rows++
		cell := cells[col]
		ok := false
		for _, m := range named.FindAllStringSubmatch(cell, -1) {
			ok = ok || defined[m[1]]
		}
		for _, m := range makeRE.FindAllStringSubmatch(cell, -1) {
			ok = ok || targets[m[1]]
		}
		if !ok {
			t.Errorf("docs/performance.md: a figure names no benchmark, test or make target that reproduces it: %s", strings.TrimSpace(cell))
		}
	}
	if rows < 20 {
		t.Fatalf("read only %d rows of docs/performance.md's tables", rows)
	}
}

// Every relative link of the README, docs/ and the editors' READMEs leads
// to a file that exists and, with a #fragment, to a heading it has: the
// pages were split and are generated, and a moved section must not leave
// a dead link behind.
func TestDocLinksResolve(t *testing.T) {
	var pages []string
	for _, g := range []string{"README.md", "docs/*.md", "docs/reference/*.md", "editors/*/README.md"} {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	if len(pages) < 15 {
		t.Fatalf("found only %d pages", len(pages))
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := p
			if file != "" {
				dest = filepath.Join(filepath.Dir(p), filepath.FromSlash(file))
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s links to %s, which does not exist", p, target)
				continue
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !hasHeading(t, dest, frag) {
				t.Errorf("%s links to %s, which has no heading #%s", p, file, frag)
			}
		}
	}
}

var heading = regexp.MustCompile(`(?m)^#+ (.*)$`)

// hasHeading reports whether a Markdown page has a heading whose GitHub
// anchor is frag: lower case, punctuation but - and _ dropped, spaces as -.
func hasHeading(t *testing.T, page, frag string) bool {
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range heading.FindAllStringSubmatch(string(b), -1) {
		var a strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && unicode.IsLetter(r):
				a.WriteRune(r)
			}
		}
		if a.String() == frag {
			return true
		}
	}
	return false
}
