package driver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMentionsAttachFilesAndRanges(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "pkg"), 0o755))
	must(os.WriteFile(filepath.Join(root, "pkg", "a.go"), []byte("l1\nl2\nl3\nl4\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "notes.md"), []byte("hello notes\n"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("TOPSECRET\n"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")))

	prompt := "Fix @pkg/a.go:2-3 like @notes.md says; mail me@example.com; see @missing.go, @../" +
		filepath.Base(outside) + "/secret.txt @link.txt and @" + filepath.Join(outside, "secret.txt")
	ms := Mentions(root, prompt, nil)
	if len(ms) != 2 {
		t.Fatalf("got %d mentions, want 2: %+v", len(ms), ms)
	}
	if ms[0].Path != "pkg/a.go" || ms[0].Text != "l2\nl3\n" || ms[0].Start != 2 || ms[0].End != 3 {
		t.Errorf("range mention = %+v", ms[0])
	}
	if ms[1].Path != "notes.md" || ms[1].Text != "hello notes\n" {
		t.Errorf("file mention = %+v", ms[1])
	}

	p := WorkspacePlanner{Root: root}
	planned, err := p.Plan(context.Background(), Assignment{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, m := range planned.Prefix {
		all.WriteString(m.Content)
	}
	if !strings.Contains(all.String(), "pkg/a.go, lines 2–3:\n```\nl2\nl3\n```") {
		t.Errorf("prefix lacks the range:\n%s", all.String())
	}
	if strings.Contains(all.String(), "TOPSECRET") {
		t.Errorf("a mention escaped the workspace:\n%s", all.String())
	}
}

// A mention that is not read is not dropped without a word: the plan's
// notices say which and why; a word that is no path ("@someone") is not.
func TestMentionsNotReadAreNamed(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("K=v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := func(rel string) bool { return rel == ".env" }
	prompt := "ask @someone about @a.txt, @../outside.txt, @missing.go, @.env, @dir/ and @a.txt:0"
	planned, err := WorkspacePlanner{Root: root, Secret: secret}.Plan(context.Background(), Assignment{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"@../outside.txt was not read: outside the workspace",
		"@missing.go was not read: no such file in the workspace",
		"@.env was not read: a secret file (tools.secretFiles)",
		"@dir/ was not read: not a regular file",
		"@a.txt:0 was not read: not a line range",
	}
	if strings.Join(planned.Notices, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(planned.Notices, "\n"), strings.Join(want, "\n"))
	}
}

// A secret file stays out of the prompt by any name: its own, a symlink to
// it, a path through a directory link, or as a context file.
func TestMentionsAndContextFilesSkipSecrets(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "keys"), 0o755))
	must(os.WriteFile(filepath.Join(root, "keys", "id"), []byte("SECRETKEY\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "ok.md"), []byte("fine\n"), 0o644))
	must(os.Symlink("keys/id", filepath.Join(root, "AGENTS.md")))
	must(os.Symlink("keys", filepath.Join(root, "k")))
	must(os.Symlink("keys/id", filepath.Join(root, "alias")))
	secret := func(rel string) bool { return rel == "keys/id" }
	p := WorkspacePlanner{Root: root, Secret: secret}
	planned, err := p.Plan(context.Background(), Assignment{Prompt: "see @keys/id @k/id @alias @ok.md"})
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, m := range planned.Prefix {
		all.WriteString(m.Content)
	}
	if !strings.Contains(all.String(), "fine") || strings.Contains(all.String(), "SECRETKEY") {
		t.Errorf("prefix:\n%s", all.String())
	}
}
