package edits

import (
	"strings"
	"testing"
)

// Merge3 judges by lines, as git merge-file: changes to the same or to
// adjacent lines conflict, whatever characters they touch; changes two or
// more lines apart merge.
func TestMerge3(t *testing.T) {
	base := "func add(a, b int) int {\n\treturn a + b\n}\n\nfunc one() int { return 1 }\n"
	cases := []struct {
		name         string
		ours, theirs string
		want         string // the merge when clean
		conflicts    int
	}{
		{
			name:      "same line, characters apart (issue 31's made-up line)",
			ours:      strings.Replace(base, "return a + b\n", "return a + b // A: sum\n", 1),
			theirs:    strings.Replace(base, "return a + b\n", "return b + a\n", 1),
			conflicts: 1,
		},
		{
			name:      "adjacent lines",
			ours:      strings.Replace(base, "func add(a, b int) int {", "func add(a, b int) (sum int) {", 1),
			theirs:    strings.Replace(base, "return a + b", "return b + a", 1),
			conflicts: 1,
		},
		{
			name:   "two lines apart",
			ours:   strings.Replace(base, "func add(a, b int) int {", "func add(a, b int) (sum int) {", 1),
			theirs: strings.Replace(base, "}\n\nfunc one", "}\n\n// one is one.\nfunc one", 1),
			want:   "func add(a, b int) (sum int) {\n\treturn a + b\n}\n\n// one is one.\nfunc one() int { return 1 }\n",
		},
		{
			name:   "the same change on both sides",
			ours:   strings.Replace(base, "a + b", "b + a", 1),
			theirs: strings.Replace(base, "a + b", "b + a", 1),
			want:   strings.Replace(base, "a + b", "b + a", 1),
		},
		{
			name:   "one side only",
			ours:   base,
			theirs: base + "// end\n",
			want:   base + "// end\n",
		},
		{
			name:      "both insert at one place",
			ours:      base + "// ours\n",
			theirs:    base + "// theirs\n",
			conflicts: 1,
		},
		{
			name:      "an insertion right below a changed line",
			ours:      strings.Replace(base, "a + b\n", "a + b\n\t// added\n", 1),
			theirs:    strings.Replace(base, "return a + b", "return b + a", 1),
			conflicts: 1,
		},
		{
			name:   "an insertion a line below a changed line",
			ours:   strings.Replace(base, "}\n\n", "}\n// added\n\n", 1),
			theirs: strings.Replace(base, "return a + b", "return b + a", 1),
			want:   "func add(a, b int) int {\n\treturn b + a\n}\n// added\n\nfunc one() int { return 1 }\n",
		},
		{
			name:   "deleted apart from a change",
			ours:   strings.Replace(base, "func one() int { return 1 }\n", "", 1),
			theirs: strings.Replace(base, "return a + b", "return b + a", 1),
			want:   "func add(a, b int) int {\n\treturn b + a\n}\n\n",
		},
		{
			name:   "no newline at the end",
			ours:   "x\ny\nz",
			theirs: "X\ny\nz",
			want:   "X\ny\nz",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := base
			if c.name == "no newline at the end" {
				b = "x\ny\nz"
			}
			m := Merge3(b, c.ours, c.theirs)
			if len(m.Conflicts) != c.conflicts {
				t.Fatalf("%d conflicts %+v, want %d; merged:\n%s", len(m.Conflicts), m.Conflicts, c.conflicts, m.Text)
			}
			if c.conflicts == 0 && m.Text != c.want {
				t.Errorf("merged\n%q\nwant\n%q", m.Text, c.want)
			}
			if c.conflicts > 0 {
				// A conflict keeps ours; both sides are reported.
				if m.Text != c.ours {
					t.Errorf("a conflicting merge made\n%q\nnot ours", m.Text)
				}
				cf := m.Conflicts[0]
				if cf.Ours == cf.Theirs || !strings.Contains(c.ours, cf.Ours) || !strings.Contains(c.theirs, cf.Theirs) {
					t.Errorf("conflict %+v does not show both sides", cf)
				}
			}
			// Symmetric: the same conflicts the other way round.
			if r := Merge3(b, c.theirs, c.ours); len(r.Conflicts) != c.conflicts || (c.conflicts == 0 && r.Text != c.want) {
				t.Errorf("swapped sides: %d conflicts, %q", len(r.Conflicts), r.Text)
			}
		})
	}
}

func TestMerge3Markers(t *testing.T) {
	base := "a\nb\nc\n"
	m := Merge3Markers(base, "a\nB1\nc\n", "a\nB2\nc\n", Markers{Ours: "yours", Theirs: "task"})
	want := "a\n<<<<<<< yours\nB1\n=======\nB2\n>>>>>>> task\nc\n"
	if m.Text != want || len(m.Conflicts) != 1 || m.Conflicts[0].Line != 2 || m.Conflicts[0].Lines != 5 {
		t.Errorf("got %q %+v, want %q", m.Text, m.Conflicts, want)
	}
}
