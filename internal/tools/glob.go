package tools

import (
	"fmt"
	"path"
	"strings"
)

// glob is a file-name pattern as models write them: path.Match syntax, plus
// "**" for any number of directories and one level of braces
// ("*.{ts,tsx}"). A pattern without a slash matches the base name, like
// find -name; one with a slash matches the whole relative path.
type glob struct {
	alts [][]string // per brace alternative, the pattern split on '/'
	base bool
}

func compileGlob(p string) (*glob, error) {
	p = strings.TrimPrefix(p, "./")
	g := &glob{base: !strings.Contains(p, "/")}
	for _, alt := range expandBraces(p) {
		segs := strings.Split(alt, "/")
		for _, s := range segs {
			if s == "**" {
				continue
			}
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("bad glob %q: %v", p, err)
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// expandBraces expands the first {a,b,...} group, recursively for the rest.
func expandBraces(p string) []string {
	i := strings.IndexByte(p, '{')
	if i < 0 {
		return []string{p}
	}
	j := strings.IndexByte(p[i:], '}')
	if j < 0 {
		return []string{p}
	}
	j += i
	var out []string
	for opt := range strings.SplitSeq(p[i+1:j], ",") {
		out = append(out, expandBraces(p[:i]+opt+p[j+1:])...)
	}
	return out
}

// match reports whether the '/'-separated relative path rel matches.
func (g *glob) match(rel string) bool {
	if g.base {
		rel = path.Base(rel)
	}
	parts := strings.Split(rel, "/")
	for _, segs := range g.alts {
		if matchSegs(segs, parts) {
			return true
		}
	}
	return false
}

func matchSegs(segs, parts []string) bool {
	for len(segs) > 0 {
		if segs[0] == "**" {
			rest := segs[1:]
			for i := 0; i <= len(parts); i++ {
				if matchSegs(rest, parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, _ := path.Match(segs[0], parts[0]); !ok {
			return false
		}
		segs, parts = segs[1:], parts[1:]
	}
	return len(parts) == 0
}
