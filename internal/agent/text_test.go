package agent

import (
	"testing"
	"unicode/utf8"
)

// firstLine caps a line through textcut.Head: no half characters.
func TestFirstLineKeepsWholeCharacters(t *testing.T) {
	if got := firstLine("ééééé", 5); !utf8.ValidString(got) {
		t.Errorf("firstLine cut a character: %q", got)
	}
}
