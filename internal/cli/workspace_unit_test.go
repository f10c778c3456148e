package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/approval"
	"github.com/agentls/agentls/internal/tools"
)

// newWS is a cliWorkspace on a temporary root holding files.
func newWS(t *testing.T, overlay bool, files map[string]string) (*cliWorkspace, string) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	disk, err := tools.NewDiskWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return newCLIWorkspace(disk, overlay), root
}

// set is an Edit that replaces the text.
func set(text string) func([]byte, bool) ([]byte, error) {
	return func([]byte, bool) ([]byte, error) { return []byte(text), nil }
}

func readDisk(t *testing.T, root, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// In overlay mode (--dry-run, --review) edits stay in memory, later reads
// and edits see them, and the disk is untouched until apply.
func TestOverlayKeepsEditsInMemory(t *testing.T) {
	ctx := context.Background()
	w, root := newWS(t, true, map[string]string{"a.txt": "one\n", "same.txt": "s\n"})
	if err := w.Edit(ctx, "a.txt", func(old []byte, exists bool) ([]byte, error) {
		if !exists || string(old) != "one\n" {
			t.Errorf("first edit saw %q, %v", old, exists)
		}
		return []byte("two\n"), nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Edit(ctx, "a.txt", func(old []byte, exists bool) ([]byte, error) {
		if string(old) != "two\n" || !exists {
			t.Errorf("second edit saw %q, %v", old, exists)
		}
		return append(old, "three\n"...), nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Edit(ctx, "dir/new.txt", func(old []byte, exists bool) ([]byte, error) {
		if exists || len(old) != 0 {
			t.Errorf("a new file seen as %q, %v", old, exists)
		}
		return []byte("new\n"), nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Edit(ctx, "same.txt", set("s\n")); err != nil { // no change
		t.Fatal(err)
	}
	if b, err := w.ReadFile(ctx, "a.txt"); err != nil || string(b) != "two\nthree\n" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	if got, _ := readDisk(t, root, "a.txt"); got != "one\n" {
		t.Errorf("disk changed to %q", got)
	}
	if _, ok := readDisk(t, root, "dir/new.txt"); ok {
		t.Error("the new file was written")
	}
	if got := w.changed(); !slices.Equal(got, []string{"a.txt", "dir/new.txt"}) {
		t.Errorf("changed = %v", got)
	}
	if got := w.OpenFiles(); !slices.Contains(got, "dir/new.txt") || slices.Contains(got, "same.txt") {
		t.Errorf("OpenFiles = %v", got)
	}
	p := w.proposed()
	if len(p) != 2 || string(p["a.txt"]) != "two\nthree\n" || string(p["dir/new.txt"]) != "new\n" {
		t.Errorf("proposed = %q", p)
	}
	if d := w.diff("a.txt"); !strings.Contains(d, "--- a/a.txt\n+++ b/a.txt\n") || !strings.Contains(d, "-one\n") || !strings.Contains(d, "+three\n") {
		t.Errorf("diff:\n%s", d)
	}
	if d := w.diff("dir/new.txt"); !strings.HasPrefix(d, "--- /dev/null\n+++ b/dir/new.txt\n") {
		t.Errorf("a new file's diff:\n%s", d)
	}
	ch := w.sessionChanges([]string{"dir/new.txt"})
	if len(ch) != 1 || ch[0].Path != "dir/new.txt" || !ch[0].Created || !strings.Contains(ch[0].Diff, "+new") {
		t.Errorf("sessionChanges = %+v", ch)
	}

	for _, rel := range w.changed() {
		if err := w.apply(ctx, rel); err != nil {
			t.Fatalf("apply %s: %v", rel, err)
		}
	}
	if got, _ := readDisk(t, root, "a.txt"); got != "two\nthree\n" {
		t.Errorf("applied a.txt = %q", got)
	}
	if got, _ := readDisk(t, root, "dir/new.txt"); got != "new\n" {
		t.Errorf("applied dir/new.txt = %q", got)
	}
}

// An edit that ends where it began is no change: not listed, not diffed.
func TestOverlayEditBackIsNoChange(t *testing.T) {
	ctx := context.Background()
	w, _ := newWS(t, true, map[string]string{"a": "x"})
	if err := w.Edit(ctx, "a", set("y")); err != nil {
		t.Fatal(err)
	}
	if err := w.Edit(ctx, "a", set("x")); err != nil {
		t.Fatal(err)
	}
	if got := w.changed(); len(got) != 0 {
		t.Errorf("changed = %v", got)
	}
}

// Without overlay, edits go to disk at once and are logged for the session.
func TestWriteThroughLogsChanges(t *testing.T) {
	ctx := context.Background()
	w, root := newWS(t, false, map[string]string{"a.txt": "one\n"})
	if err := w.Edit(ctx, "a.txt", set("two\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Edit(ctx, "b.txt", set("b\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := readDisk(t, root, "a.txt"); got != "two\n" {
		t.Errorf("disk a.txt = %q", got)
	}
	if got := w.changed(); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("changed = %v", got)
	}
	if w.proposed() != nil || w.OpenFiles() != nil {
		t.Error("write-through proposes nothing")
	}
	if fc := w.change("a.txt"); fc.Base != "one\n" || fc.After != "two\n" || !fc.Existed {
		t.Errorf("change = %+v", fc)
	}
	if err := w.Delete(ctx, "b.txt"); err != nil {
		t.Fatal(err)
	}
	if err := w.Move(ctx, "a.txt", "c.txt"); err != nil {
		t.Fatal(err)
	}
	if _, ok := readDisk(t, root, "b.txt"); ok {
		t.Error("b.txt not deleted")
	}
	if got, ok := readDisk(t, root, "c.txt"); !ok || got != "two\n" {
		t.Errorf("c.txt = %q, %v", got, ok)
	}
}

// A failed transform, or a cancelled context, changes nothing.
func TestEditErrorsChangeNothing(t *testing.T) {
	boom := errors.New("boom")
	for _, overlay := range []bool{true, false} {
		w, root := newWS(t, overlay, map[string]string{"a": "x"})
		err := w.Edit(context.Background(), "a", func([]byte, bool) ([]byte, error) { return []byte("y"), boom })
		if !errors.Is(err, boom) {
			t.Errorf("overlay %v: err = %v", overlay, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := w.Edit(ctx, "a", set("z")); !errors.Is(err, context.Canceled) {
			t.Errorf("overlay %v, cancelled: err = %v", overlay, err)
		}
		if got, _ := readDisk(t, root, "a"); got != "x" || len(w.changed()) != 0 {
			t.Errorf("overlay %v: disk %q, changed %v", overlay, got, w.changed())
		}
	}
}

// Deleting and moving are not proposals: a dry run or a review refuses
// them with what to say instead, and the files stay.
func TestOverlayRefusesDeleteAndMove(t *testing.T) {
	ctx := context.Background()
	w, root := newWS(t, true, map[string]string{"a": "x"})
	if err := w.Delete(ctx, "a"); err == nil || !strings.Contains(err.Error(), "deleting a is left to the user") {
		t.Errorf("Delete: %v", err)
	}
	if err := w.Move(ctx, "a", "b"); err == nil || !strings.Contains(err.Error(), "moving a is left to the user") {
		t.Errorf("Move: %v", err)
	}
	if _, ok := readDisk(t, root, "a"); !ok {
		t.Error("a is gone")
	}
}

// The model's paths stay beneath the root, in both modes: a path out, or
// a symlink out, is refused and nothing outside is read or written.
func TestWorkspaceConfinement(t *testing.T) {
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, overlay := range []bool{true, false} {
		w, root := newWS(t, overlay, nil)
		if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for _, rel := range []string{"../x", "/etc/passwd", "out/secret", "out/new", "link"} {
			err := w.Edit(ctx, rel, set("pwned"))
			if err == nil {
				// An overlay may hold the text; it must never land.
				err = w.apply(ctx, rel)
			}
			if err == nil {
				t.Errorf("overlay %v: %s was written", overlay, rel)
			}
			if b, err := w.ReadFile(ctx, rel); err == nil && string(b) == "s" {
				t.Errorf("overlay %v: read %s outside the root", overlay, rel)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s" {
			t.Fatalf("overlay %v: the file outside became %q", overlay, b)
		}
		if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
			t.Fatalf("overlay %v: a file was created outside", overlay)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(root), "x")); err == nil {
			t.Fatalf("overlay %v: ../x was created", overlay)
		}
	}
}

// A review's apply writes only onto the text the task started from, and
// not through a directory a command swapped for a symlink out meanwhile.
func TestApplyChecksAtTheWrite(t *testing.T) {
	ctx := context.Background()
	w, root := newWS(t, true, map[string]string{"a.txt": "one\n", "sub/b.txt": "b\n"})
	for rel, text := range map[string]string{"a.txt": "two\n", "sub/b.txt": "B\n", "gone.txt": "g\n"} {
		if err := w.Edit(ctx, rel, set(text)); err != nil {
			t.Fatal(err)
		}
	}
	// The user changes a.txt meanwhile; gone.txt appears on disk.
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(root, "gone.txt"), []byte("theirs\n"), 0o644)
	// A command swaps sub for a symlink out of the workspace.
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(outside, "b.txt"), []byte("b\n"), 0o644)
	if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"a.txt", "gone.txt"} {
		if err := w.apply(ctx, rel); !errors.Is(err, errChangedOnDisk) {
			t.Errorf("apply %s: %v, want errChangedOnDisk", rel, err)
		}
	}
	if err := w.apply(ctx, "sub/b.txt"); err == nil {
		t.Error("apply wrote through a symlink out")
	}
	if got, _ := readDisk(t, root, "a.txt"); got != "mine\n" {
		t.Errorf("a.txt = %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "b.txt")); string(b) != "b\n" {
		t.Errorf("the file outside became %q", b)
	}
}

func TestDiffStat(t *testing.T) {
	d := "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n+C\n c\n"
	if add, del := diffStat(d); add != 2 || del != 1 {
		t.Errorf("diffStat = +%d -%d, want +2 -1", add, del)
	}
	if add, del := diffStat(""); add != 0 || del != 0 {
		t.Errorf("empty: +%d -%d", add, del)
	}
}

// reviewFiles on scripted answers: what each answer writes, what the
// questions and the diffs say.
func TestReviewFiles(t *testing.T) {
	ctx := context.Background()
	w, _ := newWS(t, true, map[string]string{"a": "1\n", "b": "2\n", "c": "3\n", "d": "4\n"})
	for _, rel := range []string{"a", "b", "c", "d"} {
		if err := w.Edit(ctx, rel, func(old []byte, _ bool) ([]byte, error) { return append(old, "token=SECRET\n"...), nil }); err != nil {
			t.Fatal(err)
		}
	}
	files := w.changed()
	redact := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[redacted]") }
	for _, c := range []struct {
		name, input string
		want        []string
		say         []string
	}{
		{"yes and no", "y\nn\nyes\nNO\n", []string{"a", "c"}, []string{"[1/4] apply a (+1 -0)? [y]es [n]o [d]iff [a]ll [q]uit: ", "[4/4] apply d"}},
		{"all", "n\na\n", []string{"b", "c", "d"}, []string{"[2/4] apply b"}},
		{"quit", "y\nq\n", []string{"a"}, nil},
		{"end of input drops the rest", "y\n", []string{"a"}, []string{"end of input: the remaining files are not written"}},
		{"diff then yes, with the secret redacted", "d\ny\nn\nn\nn\n", []string{"a"}, []string{"+token=[redacted]\n[1/4] apply a (+1 -0)?"}},
		{"a bad answer is asked again", "maybe\n y \nq\n", []string{"a"}, []string{"answer y, n, d, a or q"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := reviewFiles(ctx, w, files, newLines(strings.NewReader(c.input)), &out, redact)
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("reviewFiles = %v, %v; want %v\n%s", got, err, c.want, out.String())
			}
			for _, s := range c.say {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output does not say %q:\n%s", s, out.String())
				}
			}
			if strings.Contains(out.String(), "SECRET") {
				t.Errorf("the secret shows:\n%s", out.String())
			}
		})
	}
	// Cancelled while asking: an error, and nothing to write.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	pr, _ := ioPipe(t)
	if got, err := reviewFiles(cctx, w, files, newLines(pr), &bytes.Buffer{}, redact); !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("cancelled: %v, %v", got, err)
	}
}

func TestTerminalAsk(t *testing.T) {
	for _, c := range []struct {
		in   string
		want approval.Answer
	}{{"y\n", approval.AllowOnce}, {"always\n", approval.AllowAlways}, {"n\n", approval.Deny}, {"what\nN\n", approval.Deny}, {"", approval.NoAnswer}} {
		var out bytes.Buffer
		held, resumed := 0, 0
		hold := func() func() { held++; return func() { resumed++ } }
		l := newLines(strings.NewReader(c.in))
		ask := terminalAsk(func() *lines { return l }, &out, hold)
		a, err := ask(context.Background(), "rm -rf build", "why")
		if err != nil || a != c.want {
			t.Errorf("answer %q: %v, %v; want %v", c.in, a, err, c.want)
		}
		if held != 1 || resumed != 1 {
			t.Errorf("answer %q: held %d, resumed %d", c.in, held, resumed)
		}
		if !strings.Contains(out.String(), "agentls wants to run:\n  rm -rf build\n") {
			t.Errorf("asked %q", out.String())
		}
	}
}
