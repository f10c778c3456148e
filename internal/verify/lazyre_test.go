package verify

import (
	"regexp"
	"testing"
)

// Every parser expression compiles (they are compiled on first use).
func TestRegexpsCompile(t *testing.T) {
	if len(allRegexps) < 40 {
		t.Fatalf("only %d expressions registered", len(allRegexps))
	}
	for _, l := range allRegexps {
		if _, err := regexp.Compile(l.src); err != nil {
			t.Errorf("%q: %v", l.src, err)
		}
	}
}
