package verify

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled on first use. The parsers'
// expressions took about a millisecond to compile at every start of the
// binary, `agentls version` included, while most runs never parse a
// checker's output. TestRegexpsCompile compiles them all, so a bad pattern
// still fails in tests rather than at first use.
type lazyRE struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// allRegexps lists every lazyRE, for TestRegexpsCompile.
var allRegexps []*lazyRE

func lazyRegexp(src string) *lazyRE {
	l := &lazyRE{src: src}
	allRegexps = append(allRegexps, l)
	return l
}

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRE) MatchString(s string) bool { return l.get().MatchString(s) }

func (l *lazyRE) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

func (l *lazyRE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}

func (l *lazyRE) FindStringSubmatchIndex(s string) []int { return l.get().FindStringSubmatchIndex(s) }

func (l *lazyRE) FindSubmatch(b []byte) [][]byte { return l.get().FindSubmatch(b) }

func (l *lazyRE) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}
