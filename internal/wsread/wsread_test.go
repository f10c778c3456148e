package wsread

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadKeepsTheRules(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".env", "TOKEN=hunter2")
	write("AGENTS.md", "be kind")
	write("sub/notes.md", "0123456789")
	os.WriteFile(filepath.Join(outside, "x"), []byte("outside"), 0o644)
	os.Symlink("../.env", filepath.Join(root, "sub", "AGENTS.md"))
	os.MkdirAll(filepath.Join(root, ".agentls", "commands"), 0o755)
	os.Symlink("../../.env", filepath.Join(root, ".agentls", "commands", "leak.md"))
	os.Symlink(filepath.Join(outside, "x"), filepath.Join(root, "abs.md"))
	os.Symlink("../"+filepath.Base(outside)+"/x", filepath.Join(root, "rel-out.md"))
	os.Symlink("notes.md", filepath.Join(root, "sub", "alias.md"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Reader{Root: root} // nil Secret: the default secret files
	cases := []struct {
		rel  string
		want error
		text string
	}{
		{"AGENTS.md", nil, "be kind"},
		{"sub/alias.md", nil, "0123456789"},
		{".env", ErrSecret, ""},
		{"sub/AGENTS.md", ErrSecret, ""},
		{".agentls/commands/leak.md", ErrSecret, ""},
		{"abs.md", ErrOutside, ""},
		{"rel-out.md", ErrOutside, ""},
		{"../x", ErrOutside, ""},
		{"fifo.md", ErrNotRegular, ""},
		{"sub", ErrNotRegular, ""},
	}
	for _, c := range cases {
		f, err := r.Read(c.rel, 100)
		if c.want == nil {
			if err != nil || string(f.Data) != c.text {
				t.Errorf("%s: %q, %v", c.rel, f.Data, err)
			}
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v (%q), want %v", c.rel, err, f.Data, c.want)
		}
	}
	f, err := r.Read("sub/notes.md", 4)
	if err != nil || string(f.Data) != "0123" || !f.More || f.Real != "sub/notes.md" {
		t.Errorf("limit: %+v %v", f, err)
	}
	// New with patterns: only what they name is secret.
	if _, err := New(root, []string{"*.md"}).Read("AGENTS.md", 100); !errors.Is(err, ErrSecret) {
		t.Errorf("custom patterns: %v", err)
	}
}

// Where the system does not say where an opened file lies (no /proc:
// macOS, Windows), its place is found by name, and the name must lead to
// the file opened: a link swapped between the open and that look, from
// .env to a harmless file, would otherwise pass .env's text off as the
// harmless file's.
func TestPlaceByNameIsTheFileOpened(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("TOKEN=hunter2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "AGENTS.md")
	if err := os.Symlink(".env", link); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if real, ok := relByName(root, f, "AGENTS.md"); !ok || real != ".env" {
		t.Fatalf("before the swap: %q, %v; want .env", real, ok)
	}
	// The swap, after the open.
	os.Remove(link)
	if err := os.Symlink("notes.md", link); err != nil {
		t.Fatal(err)
	}
	if real, ok := relByName(root, f, "AGENTS.md"); ok {
		t.Errorf("after the swap: the file opened (.env) was placed at %q", real)
	}
}
