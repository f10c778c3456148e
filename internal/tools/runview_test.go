package tools

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/proc"
	"github.com/agentls/agentls/internal/testkit/need"
)

type fakeViewer struct{ wrote map[string]string }

func (v *fakeViewer) View(context.Context) map[string][]byte { return nil }
func (v *fakeViewer) Wrote(_ context.Context, rel string, _, next []byte) (string, error) {
	v.wrote[rel] = string(next)
	return "", nil
}

// The exchange directory lies where the command may write, so carry takes
// nothing from it on trust: a forged archive cannot write into .git, a
// protected file, through a symlink or out of the workspace, and a FIFO
// left in place of a listing cannot hang it.
func TestCarryRefusesAForgedExchange(t *testing.T) {
	root, x := t.TempDir(), t.TempDir()
	for _, d := range []string{".git/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, ".git"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "keep.txt"), []byte("keep\n"), 0o644)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range []string{"./.git/hooks/pre-commit", "./.agentls.json", "./.vscode/settings.json", "./link/hooks/post-checkout", "../escape.txt", "./src/ok.go", "./held.txt"} {
		body := "#!/bin/sh\necho pwned\n"
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	os.WriteFile(filepath.Join(x, "changed.tar"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(x, "before"), []byte("./keep.txt\x00./.git/config\x00./link\x00"), 0o644)
	os.WriteFile(filepath.Join(x, "after"), []byte(""), 0o644)
	v := &fakeViewer{wrote: map[string]string{}}
	note, err := carry(context.Background(), Options{}, v, root, x, map[string][]byte{"held.txt": []byte("old\n")}, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".git/hooks/pre-commit", ".agentls.json", ".vscode/settings.json", ".git/hooks/post-checkout", "../escape.txt"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "src/ok.go")); err != nil || !strings.Contains(string(b), "pwned") {
		t.Errorf("an ordinary file was not carried: %v", err)
	}
	if v.wrote["held.txt"] == "" {
		t.Error("the held file did not go to the Viewer")
	}
	if _, err := os.Lstat(filepath.Join(root, "link")); err != nil {
		t.Error("the symlink was deleted")
	}
	if _, err := os.Stat(filepath.Join(root, "keep.txt")); err == nil {
		t.Error("keep.txt, listed before and not after, was not deleted")
	}
	if !strings.Contains(note, "not carried") {
		t.Errorf("note %q says nothing of what was refused", note)
	}

	// A FIFO in place of a listing is an error, not a hang.
	os.Remove(filepath.Join(x, "before"))
	if err := syscall.Mkfifo(filepath.Join(x, "before"), 0o644); err != nil {
		t.Skip("no FIFOs here")
	}
	if _, err := carry(context.Background(), Options{}, v, root, x, nil, time.Now().Add(time.Hour), nil); err == nil {
		t.Error("a FIFO listing was read")
	}
}

// heldDisk is a disk workspace whose one file the "editor" holds with
// other text, so run_command runs in a view.
type heldDisk struct {
	*DiskWorkspace
	rel, text string
}

func (h heldDisk) View(context.Context) map[string][]byte {
	return map[string][]byte{h.rel: []byte(h.text)}
}
func (h heldDisk) Wrote(context.Context, string, []byte, []byte) (string, error) { return "", nil }

// The cost of the view on a workspace of 2,000 files: `true` on the disk,
// and in a view with one buffer (mount, two listings, the archive).
func BenchmarkRunCommandView(b *testing.B) {
	if ok, why := proc.Available(); !ok {
		b.Skip(why)
	}
	files := map[string]string{}
	for i := 0; i < 2000; i++ {
		files[fmt.Sprintf("pkg%d/f%d.go", i%50, i)] = "package p\n"
	}
	files["a.txt"] = "saved\n"
	disk := newDisk(b, files)
	for _, c := range []struct {
		name string
		ws   agent.Workspace
	}{{"disk", disk}, {"view", heldDisk{disk, "a.txt", "unsaved\n"}}} {
		rc := toolNamed(b, c.ws, Options{Approver: allowAll}, "run_command")
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := call(b, rc, `{"command":"true"}`); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// What a command wrote in the editor's view is not carried to where a
// protected symlink leads (.husky -> tools/husky): a file there is a git
// hook as surely as .husky/pre-commit. Before, only names were checked and
// tools/husky/post-commit was carried to disk.
func TestCarryRefusesWhereAProtectedLinkLeads(t *testing.T) {
	root, x := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "tools", "husky"), 0o755)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	if err := os.Symlink("tools/husky", filepath.Join(root, ".husky")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range []string{"./tools/husky/post-commit", "./src/ok.go"} {
		body := "#!/bin/sh\necho pwned\n"
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	os.WriteFile(filepath.Join(x, "changed.tar"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(x, "before"), nil, 0o644)
	os.WriteFile(filepath.Join(x, "after"), []byte("./tools/husky/post-commit\x00./src/ok.go\x00"), 0o644)
	note, err := carry(context.Background(), Options{}, &fakeViewer{wrote: map[string]string{}}, root, x, nil, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "tools/husky/post-commit")); err == nil {
		t.Errorf("the hook was carried to disk; note %q", note)
	}
	if _, err := os.Stat(filepath.Join(root, "src/ok.go")); err != nil {
		t.Errorf("an ordinary file was not carried: %v", err)
	}
	if !strings.Contains(note, ".husky") {
		t.Errorf("note %q does not say why", note)
	}
}

// Issue 31: a command ran in its view while another task's edit wrote a
// file; the command's own change to that file (it saw the older text, or
// deleted it) is not carried over the edit. On main carry wrote and deleted
// without looking.
func TestCarryKeepsWhatChangedWhileTheCommandRan(t *testing.T) {
	root, x := t.TempDir(), t.TempDir()
	for name, text := range map[string]string{"edited.txt": "v0\n", "gone.txt": "v0\n", "plain.txt": "v0\n", "old.txt": "v0\n"} {
		os.WriteFile(filepath.Join(root, name), []byte(text), 0o644)
	}
	past := time.Now().Add(-time.Minute)
	for _, name := range []string{"plain.txt", "old.txt"} {
		os.Chtimes(filepath.Join(root, name), past, past)
	}
	started := time.Now().Add(-time.Second)
	// Another task's edits while the command ran.
	os.WriteFile(filepath.Join(root, "edited.txt"), []byte("v1 by the edit\n"), 0o644)
	os.WriteFile(filepath.Join(root, "gone.txt"), []byte("v1 by the edit\n"), 0o644)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range []string{"./edited.txt", "./plain.txt"} {
		body := "by the command\n"
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	os.WriteFile(filepath.Join(x, "changed.tar"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(x, "before"), []byte("./edited.txt\x00./gone.txt\x00./plain.txt\x00./old.txt\x00"), 0o644)
	os.WriteFile(filepath.Join(x, "after"), []byte("./edited.txt\x00./plain.txt\x00"), 0o644)
	note, err := carry(context.Background(), Options{}, &fakeViewer{wrote: map[string]string{}}, root, x, nil, started, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"edited.txt": "v1 by the edit\n", "gone.txt": "v1 by the edit\n", "plain.txt": "by the command\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "old.txt")); err == nil {
		t.Error("old.txt, deleted by the command and untouched since, is still there")
	}
	if !strings.Contains(note, "edited.txt (changed by someone else") || !strings.Contains(note, "gone.txt (deleted by the command, but changed") {
		t.Errorf("note %q does not say what was kept", note)
	}
}

// A view that cannot be mounted (the editor holds a file behind a symlink
// that leads out of the workspace) never sends the command to the real
// tree: it runs in a view of the saved files, whose writes are carried
// like any other view's, and the model is told. Before, it ran a second
// time straight on the disk, where its writes bypassed the carry.
func TestCommandNeverRunsOnTheTreeWhenItsViewFails(t *testing.T) {
	if ok, why := proc.Available(); !ok {
		need.Missing(t, "sandbox unavailable here: %s", why)
	}
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "held.txt"), []byte("saved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	disk, err := NewDiskWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	ws := heldDisk{DiskWorkspace: disk, rel: "out/held.txt", text: "typed\n"}
	o := Options{Sandbox: proc.Sandbox{Mode: proc.ModeWorkspaceWrite}}
	out, _, err := runCommandIn(context.Background(), ws, o, "grep -c ' overlay ' /proc/self/mountinfo; echo made > made.txt", time.Minute, false)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
	if !strings.Contains(out, "ran on the saved files") {
		t.Fatalf("the view with the held text mounted after all, so this test shows nothing:\n%s", out)
	}
	if first, _, _ := strings.Cut(out, "\n[exit"); strings.Contains(first, "\n0\n") || !strings.Contains(out, "\n1\n") {
		t.Errorf("the command did not run in an overlay view:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(root, "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("made.txt was not carried out of the view: %q %v", b, err)
	}
}
