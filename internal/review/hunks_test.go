package review

import (
	"fmt"
	"testing"
)

// Hunks places the proposal's hunks in the text as the user has it now,
// and marks those whose region the user edited.
func TestHunks(t *testing.T) {
	base := "alpha\nline 2\nline 3\nline 4\nomega\n"
	proposed := "ALPHA\nline 2\nline 3\nline 4\nOMEGA\n"
	cases := []struct {
		name    string
		current string
		want    []string // "start-end" in current, "!" for a conflict
	}{
		{"unchanged", base, []string{"0-5", "27-32"}},
		{"line inserted above (adjacent)", "new\n" + base, []string{"!", "31-36"}},
		{"text typed between, two lines apart", "alpha\nline 2\nline 3 and more\nline 4\nomega\n", []string{"0-5", "36-41"}},
		{"typed on the next line (adjacent)", "alpha\nline 2 and more\nline 3\nline 4\nomega\n", []string{"!", "36-41"}},
		{"typed after the last (adjacent)", base + "tail\n", []string{"0-5", "!"}},
		{"hunk region edited", "alpXa\nline 2\nline 3\nline 4\nomega\n", []string{"!", "27-32"}},
		{"same line, other characters", "alpha // note\nline 2\nline 3\nline 4\nomega\n", []string{"!", "35-40"}},
		{"everything deleted", "", []string{"!", "!"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hs := Hunks(File{ReviewBase: base, Proposed: proposed, Proposing: true}, c.current)
			var got []string
			for _, h := range hs {
				if h.Conflict {
					got = append(got, "!")
				} else {
					got = append(got, fmt.Sprintf("%d-%d", h.Cur.Start, h.Cur.End))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			for _, h := range hs {
				if !h.Conflict && c.current[h.Cur.Start:h.Cur.End] != base[h.Change.Start:h.Change.End] {
					t.Errorf("hunk %s placed on %q", h.ID, c.current[h.Cur.Start:h.Cur.End])
				}
			}
		})
	}
}
