package session

import (
	"regexp"
	"strings"
	"testing"
)

// ValidID accepts exactly what the expression it replaced accepted.
func TestValidIDMatchesItsExpression(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	want := func(id string) bool { return re.MatchString(id) && !strings.Contains(id, "..") }
	ids := []string{"", "a", "crashy", "20261123-021235-90f56c", ".hidden", "-x", "_x", "a..b", "a.b", "a/b",
		"a b", "é", "a\n", "A_b-c.d", strings.Repeat("a", 128), strings.Repeat("a", 129), "../etc", "x\x00"}
	alphabet := "aZ9._-/ \x00é"
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				ids = append(ids, string([]rune{a, b, c}))
			}
		}
	}
	for _, id := range ids {
		if got := ValidID(id); got != want(id) {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want(id))
		}
	}
}
