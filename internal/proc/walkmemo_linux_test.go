package proc_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/proc"
)

// The walk's records of unchanged directories stand in for reading them
// (walkmemo_linux.go). What changed since the last command is seen all
// the same: a secret file written deep in a recorded directory, one in a
// new directory, a nested repository's .git, even with the directory's
// modification time set back. The same commands, unconfined, read the
// secrets and write the hook, so the attack is real.
func TestWalkMemoSeesWhatChangedSinceTheLastCommand(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	for _, d := range []string{"a/b/c", "d/e", "f"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "a/b/c/ok.txt"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recorded := proc.MemoRecorded(t, ws)
	// Only a directory unchanged for MemoAge before a walk is recorded.
	time.Sleep(time.Duration(proc.MemoAge) + 100*time.Millisecond)
	if r := run(t, proc.Spec{Shell: "cat a/b/c/ok.txt", Dir: ws, Sandbox: confined()}); r.ExitCode != 0 {
		t.Fatalf("first command: %+v", r)
	}
	dirs := proc.MemoDirs(ws)
	if recorded {
		for _, d := range []string{"a", "a/b", "a/b/c", "d", "d/e", "f"} {
			if !slices.Contains(dirs, d) {
				t.Fatalf("%s not recorded (records: %q): the test would prove nothing", d, dirs)
			}
		}
	} else {
		t.Logf("no records on this file system (%q)", dirs)
	}

	// The changes, after the records were made.
	old, err := os.Stat(filepath.Join(ws, "a/b/c"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"a/b/c/.env": "SECRET=one\n", "f/new/.env": "SECRET=two\n", "d/e/.git/HEAD": "ref: refs/heads/main\n"} {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(ws, "d/e/.git/hooks"), 0o755)
	// Its modification time as it was: the ctime cannot be set back.
	if err := os.Chtimes(filepath.Join(ws, "a/b/c"), old.ModTime(), old.ModTime()); err != nil {
		t.Fatal(err)
	}
	attack := "cat a/b/c/.env f/new/.env; echo evil > d/e/.git/hooks/pre-commit; true"
	r := run(t, proc.Spec{Shell: attack, Dir: ws, Sandbox: confined()})
	if strings.Contains(r.Output, "SECRET") {
		t.Errorf("a secret written since the last command was read: %q", r.Output)
	}
	if _, err := os.Stat(filepath.Join(ws, "d/e/.git/hooks/pre-commit")); err == nil {
		t.Errorf("a hook was written in a .git made since the last command")
	}
	if slices.Contains(proc.MemoDirs(ws), "a/b/c") {
		t.Errorf("a/b/c changed a moment ago and was recorded")
	}
	// Unconfined, the same command reads both secrets and writes the hook.
	r = run(t, proc.Spec{Shell: attack, Dir: ws, Sandbox: off})
	if strings.Count(r.Output, "SECRET") != 2 {
		t.Fatalf("unconfined: %q, the attack proves nothing", r.Output)
	}
	if _, err := os.Stat(filepath.Join(ws, "d/e/.git/hooks/pre-commit")); err != nil {
		t.Fatalf("unconfined: no hook, the attack proves nothing")
	}
}

// In a view on a fresh layer the records stand for the directories that
// hold no file of the view (those are the real ones as they are): a
// secret written in a recorded directory since, and a view file that is
// a secret, are both masked; unconfined, the same command reads both.
func TestWalkMemoInAView(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	for _, d := range []string{"a/b", "d/e", "f"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	recorded := proc.MemoRecorded(t, ws)
	time.Sleep(time.Duration(proc.MemoAge) + 100*time.Millisecond)
	view := func() proc.Sandbox {
		sb := confined()
		sb.Workspace = ws
		sb.View = map[string][]byte{"f/.env": []byte("SECRET=view\n"), "a/x.go": []byte("package a\n")}
		return sb
	}
	if r := run(t, proc.Spec{Shell: "true", Dir: ws, Sandbox: view()}); r.ExitCode != 0 {
		t.Fatalf("first command: %+v", r)
	}
	dirs := proc.MemoDirs(ws)
	if recorded {
		for _, d := range []string{"a/b", "d", "d/e"} {
			if !slices.Contains(dirs, d) {
				t.Fatalf("%s not recorded (records: %q): the test would prove nothing", d, dirs)
			}
		}
		for _, d := range []string{"a", "f"} {
			if slices.Contains(dirs, d) {
				t.Errorf("%s holds a file of the view and was recorded", d)
			}
		}
	} else {
		t.Logf("no records on this file system (%q)", dirs)
	}
	if err := os.WriteFile(filepath.Join(ws, "d/e/.env"), []byte("SECRET=disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	attack := "cat d/e/.env f/.env; true"
	if r := run(t, proc.Spec{Shell: attack, Dir: ws, Sandbox: view()}); strings.Contains(r.Output, "SECRET") {
		t.Errorf("a secret was read in the view: %q", r.Output)
	}
	// Unconfined there is no view: the buffer's text on disk.
	os.WriteFile(filepath.Join(ws, "f/.env"), []byte("SECRET=view\n"), 0o644)
	if r := run(t, proc.Spec{Shell: attack, Dir: ws, Sandbox: off}); strings.Count(r.Output, "SECRET") != 2 {
		t.Fatalf("unconfined: %q, the attack proves nothing", r.Output)
	}
}
