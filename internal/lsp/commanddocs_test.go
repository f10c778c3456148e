package lsp

import (
	"regexp"
	"testing"
)

// Every command is documented, and its documented argument shape names
// exactly the fields its arguments decode into: a field added to an
// argument struct, or a documented one that is not there, fails here
// before the reference page (generated from this table) could mislead.
func TestCommandDocsMatchTheirArguments(t *testing.T) {
	word := regexp.MustCompile(`[A-Za-z]+`)
	docs := CommandDocs()
	if len(docs) < 20 {
		t.Fatalf("CommandDocs lists %d commands", len(docs))
	}
	for _, c := range docs {
		if c.Doc == "" {
			t.Errorf("%s has no documentation (command.documented)", c.Name)
		}
		named := map[string]bool{}
		for _, w := range word.FindAllString(c.Args, -1) {
			if w != "or" {
				named[w] = true
			}
		}
		have := map[string]bool{}
		for _, f := range c.Fields {
			have[f.Name] = true
			if !named[f.Name] {
				t.Errorf("%s: its arguments take %q, which %q does not name", c.Name, f.Name, c.Args)
			}
		}
		for w := range named {
			if !have[w] {
				t.Errorf("%s: %q names %q, which its arguments do not take", c.Name, c.Args, w)
			}
		}
	}
}
