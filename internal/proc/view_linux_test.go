package proc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/proc"
)

// The view: the command sees the given texts at the workspace's real
// path, and nothing it writes reaches the disk (except through
// ViewThrough directories).
func TestSandboxViewShowsTextsAndKeepsDiskUnwritten(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	for name, body := range map[string]string{"a.txt": "disk\n", "b.txt": "b\n", "sub/c.txt": "c\n", "target/keep": "k\n"} {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, "run.sh"), []byte("#!/bin/sh\necho disk-script\n"), 0o755)
	view := map[string][]byte{
		"a.txt":       []byte("buffer\n"),
		"new/dir/n.t": []byte("new\n"),
		"run.sh":      []byte("#!/bin/sh\necho view-script\n"),
	}
	cmd := `cat a.txt new/dir/n.t; ./run.sh; pwd; cd sub && pwd && cd ..;
echo x > b.txt; echo y >> a.txt; echo z > sub/c.txt; touch created; rm run.sh; mkdir d;
echo built > target/out; cat b.txt`
	r := run(t, proc.Spec{Shell: cmd, Dir: ws, Sandbox: proc.Sandbox{View: view, ViewThrough: []string{"target", "missing"}}})
	want := "buffer\nnew\nview-script\n" + ws + "\n" + filepath.Join(ws, "sub") + "\nx\n"
	if r.ExitCode != 0 || r.Output != want {
		t.Fatalf("got %+v\nwant output %q", r, want)
	}
	for name, body := range map[string]string{"a.txt": "disk\n", "b.txt": "b\n", "sub/c.txt": "c\n", "run.sh": "#!/bin/sh\necho disk-script\n", "target/out": "built\n"} {
		if b, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(b) != body {
			t.Errorf("disk %s = %q %v, want %q", name, b, err, body)
		}
	}
	for _, name := range []string{"created", "d", "new"} {
		if _, err := os.Lstat(filepath.Join(ws, name)); err == nil {
			t.Errorf("%s reached the disk", name)
		}
	}
	// The unconfined run proves the command writes when it can.
	run(t, proc.Spec{Shell: "echo x > b.txt", Dir: ws, Sandbox: off})
	if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "x\n" {
		t.Fatalf("unconfined write failed: %q", b)
	}
}

func TestSandboxViewRefusesEscapes(t *testing.T) {
	needSandbox(t)
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "f"), []byte("f"), 0o644)
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../x", "/etc/passwd", "link/x", "f/x"} {
		r, err := proc.Run(t.Context(), proc.Spec{Shell: "true", Dir: ws, Sandbox: proc.Sandbox{View: map[string][]byte{name: []byte("x")}}})
		if err == nil {
			t.Errorf("view path %q accepted: %+v", name, r)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("view path %q: error does not name it: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written through the symlink: %v", entries)
	}
}

// With ViewLayer, what the command wrote in its view stays in the caller's
// directory once it has ended (the seam for carrying a command's writes in
// through the write path), and the disk is never written.
func TestSandboxViewLayerKeepsTheWrites(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	write(t, filepath.Join(ws, "keep.txt"), "disk\n", 0o644)
	write(t, filepath.Join(ws, "gone.txt"), "disk\n", 0o644)
	write(t, filepath.Join(ws, "dir/a.txt"), "disk\n", 0o644)
	layer := outsideDir(t)
	sb := proc.Sandbox{View: map[string][]byte{"keep.txt": []byte("buffer\n")}, ViewLayer: layer}
	r := run(t, proc.Spec{Shell: "echo new > new.txt && rm gone.txt && rm -rf dir && cat keep.txt && (ls " + layer + " || echo hidden)", Dir: ws, Sandbox: sb})
	if r.ExitCode != 0 || !strings.Contains(r.Output, "buffer") || !strings.Contains(r.Output, "hidden") {
		t.Fatalf("%+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(layer, "u", "new.txt")); string(b) != "new\n" {
		t.Errorf("the new file is not in the layer: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(layer, "u", "gone.txt")); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the deletion is not a whiteout in the layer: %v %v", fi, err)
	}
	for _, f := range []string{"gone.txt", "dir/a.txt", "keep.txt"} {
		if b, _ := os.ReadFile(filepath.Join(ws, f)); string(b) != "disk\n" {
			t.Errorf("%s on disk: %q", f, b)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Errorf("new.txt reached the disk")
	}
}
