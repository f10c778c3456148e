package edits

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/need"
)

func TestUnifiedExact(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string
		context  int
		want     string
	}{
		{"equal", "a\n", "a\n", 3, ""},
		{"one line", "a\nb\nc\n", "a\nB\nc\n", 3, `--- a/f
+++ b/f
@@ -1,3 +1,3 @@
 a
-b
+B
 c
`},
		{"no newline on both sides", "a\nb", "a\nc", 3, `--- a/f
+++ b/f
@@ -1,2 +1,2 @@
 a
-b
\ No newline at end of file
+c
\ No newline at end of file
`},
		{"newline added at end", "a\nb", "a\nb\n", -1, `--- a/f
+++ b/f
@@ -1,2 +1,2 @@
 a
-b
\ No newline at end of file
+b
`},
		{"unchanged last line without newline as context", "a\nb\nc", "a\nB\nc", 1, `--- a/f
+++ b/f
@@ -1,3 +1,3 @@
 a
-b
+B
 c
\ No newline at end of file
`},
		{"insert at top, no context", "a\nb\n", "x\na\nb\n", 0, `--- a/f
+++ b/f
@@ -0,0 +1 @@
+x
`},
		{"delete in middle, no context", "a\nb\nc\n", "a\nc\n", 0, `--- a/f
+++ b/f
@@ -2 +1,0 @@
-b
`},
		{"two hunks", numbered(20, "%d\n"), strings.NewReplacer("\n2\n", "\ntwo\n", "\n17\n", "\nseventeen\n").Replace(numbered(20, "%d\n")), 2, `--- a/f
+++ b/f
@@ -1,5 +1,5 @@
 0
 1
-2
+two
 3
 4
@@ -16,5 +16,5 @@
 15
 16
-17
+seventeen
 18
 19
`},
		{"close hunks share context", numbered(10, "%d\n"), strings.NewReplacer("\n2\n", "\ntwo\n", "\n6\n", "\nsix\n").Replace(numbered(10, "%d\n")), 2, `--- a/f
+++ b/f
@@ -1,9 +1,9 @@
 0
 1
-2
+two
 3
 4
 5
-6
+six
 7
 8
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unified("a/f", "b/f", tc.old, tc.new, tc.context); got != tc.want {
				t.Errorf("Unified =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// gitApply applies patch with git apply in a fresh directory holding files,
// and returns the directory's files afterwards.
func gitApply(t *testing.T, files map[string]string, patch string, args ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "change.patch"), []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, check := range []bool{true, false} {
		cmdArgs := append([]string{"apply"}, args...)
		if check {
			cmdArgs = append(cmdArgs, "--check")
		}
		cmd := exec.Command("git", append(cmdArgs, "change.patch")...)
		cmd.Dir = dir
		// Keep git from looking for a repository above the temp dir.
		cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s\npatch:\n%s", strings.Join(cmd.Args[1:], " "), err, out, patch)
		}
	}
	after := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "change.patch" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		after[e.Name()] = string(b)
	}
	return after
}

func TestUnifiedGitApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		need.Missing(t, "git not installed")
	}
	long := numbered(40, "line %d\n")
	for _, tc := range []struct {
		name     string
		old, new string
		context  int
	}{
		{"middle line", long, strings.Replace(long, "line 20\n", "line twenty\n", 1), 3},
		{"several hunks", long, strings.NewReplacer("line 3\n", "", "line 10\n", "ten\nTEN\n", "line 39\n", "end\n").Replace(long), 3},
		{"no newline, last line edited", "a\nb\nc", "a\nb\nC", 3},
		{"newline added at end", "a\nb\nc", "a\nb\nc\n", 3},
		{"newline removed at end", "a\nb\nc\n", "a\nb\nc", 3},
		{"CRLF", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", 3},
		{"CRLF to LF", "a\r\nb\r\n", "a\nb\n", 3},
		{"emoji and CJK", "😀\n中文\nx\n", "😁\n中国\nx\n", 3},
		{"insert at top", long, "first\n" + long, 3},
		{"append at end", long, long + "last\n", 3},
		{"everything replaced", long, numbered(5, "other %d\n"), 3},
		{"emptied", long, "", 3},
		{"from empty", "", "a\nb", 3},
		{"zero context", long, strings.NewReplacer("line 5\n", "five\n", "line 6\n", "", "line 30\n", "line 30\nextra\n").Replace(long), 0},
		{"one line of context", long, strings.NewReplacer("line 5\n", "five\n", "line 8\n", "eight\n").Replace(long), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			if tc.context == 0 {
				args = append(args, "--unidiff-zero")
			}
			patch := Unified("a/f.txt", "b/f.txt", tc.old, tc.new, tc.context)
			got := gitApply(t, map[string]string{"f.txt": tc.old}, patch, args...)
			if got["f.txt"] != tc.new {
				t.Errorf("after git apply: %q, want %q\npatch:\n%s", got["f.txt"], tc.new, patch)
			}
		})
	}
}

func TestUnifiedCreateAndDelete(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		need.Missing(t, "git not installed")
	}
	create := Unified("/dev/null", "b/new file.txt", "", "hello\nworld", 3)
	if !strings.Contains(create, "@@ -0,0 +1,2 @@") {
		t.Errorf("creation hunk header missing:\n%s", create)
	}
	del := Unified("a/old.txt", "/dev/null", "bye\n", "", 3)
	got := gitApply(t, map[string]string{"old.txt": "bye\n"}, create+del)
	if len(got) != 1 || got["new file.txt"] != "hello\nworld" {
		t.Errorf("after git apply: %q, want only \"new file.txt\"", got)
	}
}

// TestUnifiedRandom applies many random diffs with one git apply call.
func TestUnifiedRandom(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		need.Missing(t, "git not installed")
	}
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a\n", "b\n", "c\n", "a", "x\r\n", "\n", "中\n", "😀\n", "  indent\n"}
	text := func() string {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		// Only a file's last line may lack its newline.
		return strings.ReplaceAll(s[:max(0, len(s)-1)], "a", "a\n") + s[max(0, len(s)-1):]
	}
	files, want := map[string]string{}, map[string]string{}
	var patch strings.Builder
	for i := range 60 {
		name := fmt.Sprintf("f%02d.txt", i)
		old, new := text(), text()
		if old == new {
			continue
		}
		files[name], want[name] = old, new
		patch.WriteString(Unified("a/"+name, "b/"+name, old, new, r.IntN(4)+1))
	}
	got := gitApply(t, files, patch.String())
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: after git apply %q, want %q (old %q)\n%s", name, got[name], w, files[name],
				Unified("a/"+name, "b/"+name, files[name], w, 3))
		}
	}
}
