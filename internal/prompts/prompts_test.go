package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadReadsFrontMatterAndBody(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".agentls/commands/fix-issue.md", "---\ndescription: \"Fix a GitHub issue\"\nargument-hint: <number>\nallowed-tools: bash\n---\nFix issue $ARGUMENTS and add a test.\n")
	write(t, root, ".agentls/commands/explain.md", "# Explain the selection\n\nExplain what this code does.\n")
	write(t, root, ".agentls/commands/notes.txt", "not a command")
	cmds, err := Load(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || cmds[0].Name != "explain" || cmds[1].Name != "fix-issue" {
		t.Fatalf("commands = %+v", cmds)
	}
	fx := cmds[1]
	if fx.Description != "Fix a GitHub issue" || fx.ArgumentHint != "<number>" || fx.Path != ".agentls/commands/fix-issue.md" {
		t.Fatalf("fix-issue = %+v", fx)
	}
	if got := fx.Expand(" 42 "); got != "Fix issue 42 and add a test." {
		t.Fatalf("Expand = %q", got)
	}
	if cmds[0].Description != "Explain the selection" {
		t.Fatalf("description from the first line = %q", cmds[0].Description)
	}
	if got := cmds[0].Expand("only the loop"); !strings.HasSuffix(got, "\n\nonly the loop") {
		t.Fatalf("args not appended: %q", got)
	}
}

func TestLoadWithoutFolderIsEmpty(t *testing.T) {
	cmds, err := Load(t.TempDir(), nil)
	if err != nil || cmds != nil {
		t.Fatalf("got %v, %v", cmds, err)
	}
}

// A command file is read beneath the root: a link to a file outside it is
// left out with an error, the other commands stay.
func TestLoadRefusesALinkOutOfTheWorkspace(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.md", "TOP SECRET")
	write(t, root, ".agentls/commands/ok.md", "fine")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, ".agentls/commands/leak.md")); err != nil {
		t.Fatal(err)
	}
	cmds, err := Load(root, nil)
	if err == nil || !strings.Contains(err.Error(), "leak.md") {
		t.Fatalf("err = %v", err)
	}
	if len(cmds) != 1 || cmds[0].Name != "ok" {
		t.Fatalf("commands = %+v", cmds)
	}
	for _, c := range cmds {
		if strings.Contains(c.Body, "SECRET") {
			t.Fatal("a file outside the workspace became a command")
		}
	}
}

func TestLoadRefusesHugeAndBinaryFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".agentls/commands/big.md", strings.Repeat("x", MaxFileBytes+1))
	write(t, root, ".agentls/commands/bin.md", "\xff\xfe")
	write(t, root, ".agentls/commands/good.md", "do it")
	cmds, err := Load(root, nil)
	if err == nil || !strings.Contains(err.Error(), "big.md") || !strings.Contains(err.Error(), "bin.md") {
		t.Fatalf("err = %v", err)
	}
	if len(cmds) != 1 || cmds[0].Name != "good" {
		t.Fatalf("commands = %+v", cmds)
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		line, name, args string
		ok               bool
	}{
		{"/fix-issue 42", "fix-issue", "42", true},
		{"  /explain", "explain", "", true},
		{"/review\nthe diff", "review", "the diff", true},
		{"/usr/bin is empty", "", "", false},
		{"fix it", "", "", false},
		{"/", "", "", false},
	} {
		name, args, ok := Split(tc.line)
		if name != tc.name || args != tc.args || ok != tc.ok {
			t.Errorf("Split(%q) = %q, %q, %v", tc.line, name, args, ok)
		}
	}
}
