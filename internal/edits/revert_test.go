package edits

import (
	"strings"
	"testing"
)

func TestRevert(t *testing.T) {
	base := "package main\n\nfunc a() int {\n\treturn 1\n}\n\nfunc b() int {\n\treturn 2\n}\n\nfunc c() int {\n\treturn 3\n}\n"
	// The task edited a and c and added d.
	after := strings.NewReplacer(
		"\treturn 1\n", "\treturn 10\n",
		"\treturn 3\n", "\tx := 3\n\treturn x\n",
	).Replace(base) + "\nfunc d() {}\n"
	type conflict struct {
		line int
		text string // the current text the conflict covers
	}
	for _, tc := range []struct {
		name      string
		base      string
		after     string
		current   string
		want      string
		conflicts []conflict
	}{
		{"user did nothing", base, after, after, base, nil},
		{"task did nothing", base, base, base + "// user\n", base + "// user\n", nil},
		{"user edited elsewhere",
			base, after,
			strings.Replace(after, "\treturn 2\n", "\treturn 20\n", 1) + "// user note\n",
			strings.Replace(base, "\treturn 2\n", "\treturn 20\n", 1) + "// user note\n", nil},
		{"user inserted lines above everything",
			base, after, "// header\n" + after, "// header\n" + base, nil},
		{"user edited a line next to a task hunk",
			base, after,
			strings.Replace(after, "func a() int {\n", "func a() int { // doc\n", 1),
			strings.Replace(base, "func a() int {\n", "func a() int { // doc\n", 1), nil},
		{"user edited inside a task hunk",
			base, after,
			strings.Replace(after, "\treturn 10\n", "\treturn 100\n", 1),
			// a keeps the user's line; c and d are reverted.
			strings.Replace(base, "\treturn 1\n", "\treturn 100\n", 1),
			[]conflict{{4, "\treturn 100\n"}}},
		{"user edit spans a task hunk and more",
			base, after,
			strings.Replace(after, "\tx := 3\n\treturn x\n}\n", "\tx := 4\n\treturn x\n} // four\n", 1),
			// c keeps the user's lines; the user's edit of the line after c's
			// hunk is kept too, and d, added right after it, is removed.
			strings.Replace(base, "\treturn 3\n}\n", "\tx := 4\n\treturn x\n} // four\n", 1),
			[]conflict{{12, "\tx := 4\n\treturn x\n"}}},
		{"user already undid one hunk by hand",
			base, after, strings.TrimSuffix(after, "\nfunc d() {}\n"), base, nil},
		{"task deleted lines, user inserted at that place",
			"a\nb\nc\n", "a\nc\n", "a\nuser\nc\n", "a\nuser\nc\n", []conflict{{2, "user\n"}}},
		{"task deleted lines, user edited the next line",
			"a\nb\nc\n", "a\nc\n", "a\nC\n", "a\nb\nC\n", nil},
		{"task created the file", "", "new\nfile\n", "new\nfile\n", "", nil},
		{"task emptied the file, user typed", "old\n", "", "typed\n", "typed\n", []conflict{{1, "typed\n"}}},
		{"CRLF", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", "a\r\nB\r\nc\r\nd\r\n", "a\r\nb\r\nc\r\nd\r\n", nil},
		{"no final newline", "a\nb", "a\nB", "x\na\nB", "x\na\nb", nil},
		{"emoji in utf-8", "😀 one\nx\n", "😁 one\nx\n", "😁 one\nx\ny\n", "😀 one\nx\ny\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, conflicts := Revert(tc.base, tc.after, tc.current)
			if got != tc.want {
				t.Errorf("Revert =\n%q\nwant\n%q", got, tc.want)
			}
			if len(conflicts) != len(tc.conflicts) {
				t.Fatalf("conflicts = %+v, want %d", conflicts, len(tc.conflicts))
			}
			for i, c := range conflicts {
				w := tc.conflicts[i]
				if c.Line != w.line || tc.current[c.Start:c.End] != w.text || c.Reason == "" {
					t.Errorf("conflict %d = %+v covering %q, want line %d covering %q", i, c, tc.current[c.Start:c.End], w.line, w.text)
				}
			}
			cs, _ := RevertChanges(tc.base, tc.after, tc.current)
			checkChanges(t, tc.current, got, cs)
		})
	}
}

func FuzzRevert(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "x\n")
	f.Add("", "new\n", "")
	f.Add("old\r\n", "", "typed")
	f.Add("😀 one\nx\n", "😁 one\nx\n", "y\n")
	f.Add("a\nb", "a\nB", "z")
	f.Fuzz(func(t *testing.T, base, after, extra string) {
		// The task's changes are undone exactly when the user did nothing.
		got, conflicts := Revert(base, after, after)
		if got != base || len(conflicts) != 0 {
			t.Fatalf("Revert(%q, %q, after) = %q, %v; want base", base, after, got, conflicts)
		}
		// A task that changed nothing leaves the user's text alone.
		if got, conflicts := Revert(base, base, extra); got != extra || len(conflicts) != 0 {
			t.Fatalf("Revert with base == after = %q, %v; want current unchanged", got, conflicts)
		}
		// Lines the user adds at the end of the file, after an unchanged
		// line, survive and everything the task did is undone.
		// (The separator must not occur in the texts, or the task's diff
		// may slide a hunk across it.)
		if strings.HasSuffix(base, "\n") && strings.HasSuffix(after, "\n") && !strings.Contains(extra, "\n") &&
			!strings.Contains(base+after+extra, "keep") {
			sep := "\nkeep\n"
			b, a := base+sep, after+sep
			got, conflicts := Revert(b, a, a+extra+"\n")
			if got != b+extra+"\n" || len(conflicts) != 0 {
				t.Fatalf("Revert(%q, %q, +%q) = %q, %v", b, a, extra, got, conflicts)
			}
		}
		// Whatever the user did, the result is current with some of the
		// task's blocks undone: never anything else.
		current := after + extra
		cs, conflicts := RevertChanges(base, after, current)
		got = ApplyChanges(current, cs)
		for _, c := range conflicts {
			if c.Start < 0 || c.End < c.Start || c.End > len(current) || c.Line < 1 {
				t.Fatalf("conflict out of range: %+v in %d bytes", c, len(current))
			}
		}
		if len(conflicts) == 0 && strings.HasPrefix(current, after) && extra != "" && strings.HasSuffix(after, "\n") && got != base+extra {
			t.Fatalf("Revert(%q, %q, %q) = %q without conflicts, want %q", base, after, current, got, base+extra)
		}
	})
}
