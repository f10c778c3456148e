package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/need"
)

// repo makes a git repository with one commit of files.
func repo(t testing.TB, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		need.Missing(t, "no git")
	}
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		if _, err := runGit(context.Background(), dir, false, args...); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func read(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func branches(t *testing.T, dir string) string {
	out, err := runGit(context.Background(), dir, true, "branch", "--list", "--format=%(refname:short)", "agentls/*")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// The worktree holds HEAD, the uncommitted changes (modified, untracked,
// deleted) and the unsaved buffers; the task's change comes back against
// that snapshot; discard leaves no worktree, branch or record.
func TestSnapshotFinishDiscard(t *testing.T) {
	root := repo(t, map[string]string{"a.go": "package a\n", "b.txt": "b\n", "gone.txt": "gone\n", ".gitignore": "secret.env\n"})
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a // uncommitted\n"), 0o644)
	os.WriteFile(filepath.Join(root, "new.txt"), []byte("untracked\n"), 0o644)
	os.WriteFile(filepath.Join(root, "secret.env"), []byte("KEY=1\n"), 0o644)
	os.Remove(filepath.Join(root, "gone.txt"))
	state := t.TempDir()
	ctx := context.Background()
	tr, err := Create(ctx, Options{Root: root, StateDir: state, ID: "s1", Task: "do it",
		Buffers: map[string][]byte{"b.txt": []byte("b unsaved\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tr.Path, Dir(state)) {
		t.Fatalf("worktree at %s, not under the state directory", tr.Path)
	}
	for rel, want := range map[string]string{"a.go": "package a // uncommitted\n", "b.txt": "b unsaved\n", "new.txt": "untracked\n"} {
		if got := read(t, filepath.Join(tr.Dir(), rel)); got != want {
			t.Errorf("%s in the worktree: %q, want %q", rel, got, want)
		}
	}
	for _, rel := range []string{"gone.txt", "secret.env"} {
		if _, err := os.Stat(filepath.Join(tr.Dir(), rel)); err == nil {
			t.Errorf("%s is in the worktree", rel)
		}
	}
	// The user's tree is untouched.
	if got := read(t, filepath.Join(root, "b.txt")); got != "b\n" {
		t.Errorf("the user's b.txt became %q", got)
	}

	os.WriteFile(filepath.Join(tr.Dir(), "a.go"), []byte("package a // task\n"), 0o644)
	os.WriteFile(filepath.Join(tr.Dir(), "c.txt"), []byte("made\n"), 0o644)
	os.Remove(filepath.Join(tr.Dir(), "new.txt"))
	changes, notes, err := tr.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes: %v", notes)
	}
	got := map[string]Change{}
	for _, c := range changes {
		got[c.Rel] = c
	}
	if c := got["a.go"]; c.Base != "package a // uncommitted\n" || c.Proposed != "package a // task\n" || !c.Existed {
		t.Errorf("a.go: %+v", c)
	}
	if c := got["c.txt"]; c.Existed || c.Proposed != "made\n" {
		t.Errorf("c.txt: %+v", c)
	}
	if c := got["new.txt"]; !c.Deleted || c.Base != "untracked\n" {
		t.Errorf("new.txt: %+v", c)
	}
	if len(got) != 3 {
		t.Errorf("changes %v, want a.go, c.txt, new.txt", got)
	}

	list, err := List(state, root)
	if err != nil || len(list) != 1 || list[0].ID != "s1" {
		t.Fatalf("List = %v, %v", list, err)
	}
	if b := branches(t, root); b != "agentls/s1" {
		t.Errorf("branches %q", b)
	}
	if err := tr.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tr.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if b := branches(t, root); b != "" {
		t.Errorf("branches left: %q", b)
	}
	if list, _ := List(state, root); len(list) != 0 {
		t.Errorf("still listed: %v", list)
	}
	if out, _ := runGit(ctx, root, true, "worktree", "list", "--porcelain"); strings.Contains(out, tr.Path) {
		t.Errorf("git still lists the worktree:\n%s", out)
	}
}

// A worktree whose record says it runs, under a process that is gone, is
// listed as interrupted and can be discarded.
func TestInterruptedIsListedAndDiscarded(t *testing.T) {
	root := repo(t, map[string]string{"a.txt": "a\n"})
	state := t.TempDir()
	tr, err := Create(context.Background(), Options{Root: root, StateDir: state, ID: "s2"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	tr.PID = cmd.Process.Pid // exited and reaped
	if err := tr.save(); err != nil {
		t.Fatal(err)
	}
	list, err := List(state, root)
	if err != nil || len(list) != 1 || list[0].State != StateInterrupted {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if err := list[0].Discard(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tr.Path); !os.IsNotExist(err) {
		t.Errorf("worktree left: %v", err)
	}
	if b := branches(t, root); b != "" {
		t.Errorf("branch left: %q", b)
	}
}

// The worktree's .git file is in the model's reach; pointing it at
// another repository changes nothing of what agentls's git does: the
// task's commit still lands on its own branch, and the other repository
// gets nothing.
func TestPlantedGitFileIsIgnored(t *testing.T) {
	root := repo(t, map[string]string{"a.txt": "a\n"})
	decoy := repo(t, map[string]string{"d.txt": "d\n"})
	state := t.TempDir()
	ctx := context.Background()
	tr, err := Create(ctx, Options{Root: root, StateDir: state, ID: "s3"})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tr.Path, ".git"), []byte("gitdir: "+filepath.Join(decoy, ".git")+"\n"), 0o644)
	os.WriteFile(filepath.Join(tr.Path, "a.txt"), []byte("changed\n"), 0o644)
	changes, _, err := tr.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Rel != "a.txt" || changes[0].Proposed != "changed\n" {
		t.Errorf("changes %+v", changes)
	}
	log, _ := runGit(ctx, decoy, true, "log", "--oneline")
	if n := len(strings.Split(strings.TrimSpace(log), "\n")); n != 1 {
		t.Errorf("the decoy repository got commits:\n%s", log)
	}
	_ = tr.Discard(ctx)
}

// A workspace that is not in a git repository has no worktree: ErrNoGit.
func TestNotARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		need.Missing(t, "no git")
	}
	_, err := Create(context.Background(), Options{Root: t.TempDir(), StateDir: t.TempDir(), ID: "s4"})
	if err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Fatalf("err = %v", err)
	}
}

// A workspace that is a directory of its repository: the task works in
// that directory of the worktree, its changes are named relative to the
// workspace, and a change outside it is a note, not a proposal.
func TestWorkspaceInASubdirectory(t *testing.T) {
	top := repo(t, map[string]string{"sub/a.txt": "a\n", "b.txt": "b\n"})
	root := filepath.Join(top, "sub")
	state := t.TempDir()
	ctx := context.Background()
	tr, err := Create(ctx, Options{Root: root, StateDir: state, ID: "s5", Buffers: map[string][]byte{"a.txt": []byte("unsaved\n")}})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Discard(ctx)
	if got := read(t, filepath.Join(tr.Dir(), "a.txt")); got != "unsaved\n" {
		t.Fatalf("the buffer in the worktree: %q", got)
	}
	os.WriteFile(filepath.Join(tr.Dir(), "a.txt"), []byte("task\n"), 0o644)
	os.WriteFile(filepath.Join(tr.Path, "b.txt"), []byte("outside\n"), 0o644)
	changes, notes, err := tr.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Rel != "a.txt" || changes[0].Base != "unsaved\n" || changes[0].Proposed != "task\n" {
		t.Errorf("changes %+v", changes)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "b.txt is outside the workspace root") {
		t.Errorf("notes %q", notes)
	}
}

// hostile makes repo's configuration and worktree name programs that
// leave a marker file when they run: a filter (clean, smudge and a
// long-running process) that .gitattributes turns on for every file, a
// textconv diff driver, a merge driver, and every hook git runs on the
// commands agentls uses. It returns the marker's directory.
func hostile(t *testing.T, root string) string {
	t.Helper()
	marks := t.TempDir()
	prog := func(name string) string {
		p := filepath.Join(marks, "bin-"+name)
		os.WriteFile(p, []byte("#!/bin/sh\ntouch "+filepath.Join(marks, "RAN-"+name)+"\ncat\n"), 0o755)
		return p
	}
	for _, kv := range [][2]string{
		{"filter.x.clean", prog("clean")}, {"filter.x.smudge", prog("smudge")}, {"filter.y.process", prog("process")},
		{"diff.x.textconv", prog("textconv")}, {"diff.x.command", prog("diffcommand")}, {"merge.x.driver", prog("merge")},
		{"core.fsmonitor", prog("fsmonitor")}, {"core.pager", prog("pager")},
	} {
		if out, err := exec.Command("git", "-C", root, "config", kv[0], kv[1]).CombinedOutput(); err != nil {
			t.Fatalf("git config: %v %s", err, out)
		}
	}
	os.WriteFile(filepath.Join(root, ".gitattributes"), []byte("* filter=x diff=x merge=x\n*.bin filter=y\n"), 0o644)
	hooks := filepath.Join(root, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout", "reference-transaction", "post-index-change", "pre-auto-gc"} {
		os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\ntouch "+filepath.Join(marks, "RAN-hook-"+h)+"\n"), 0o755)
	}
	return marks
}

// The git agentls runs for a worktree task never runs a program the
// repository names (issue 30, item 7): making the worktree (checkout:
// smudge, post-checkout, reference-transaction), its snapshot and the
// task's commits (add: clean; commit: every commit hook), the change's
// diff (textconv, external diff) and discard. Before, the filters ran on
// every command; with the hooks turned back on (core.hooksPath), the
// hooks' markers appear and this test fails.
func TestGitRunsNoProgramOfTheRepository(t *testing.T) {
	root := repo(t, map[string]string{"a.txt": "a\n", "b.bin": "b\n"})
	marks := hostile(t, root)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a uncommitted\n"), 0o644)
	os.WriteFile(filepath.Join(root, "new.txt"), []byte("untracked\n"), 0o644)
	ctx := context.Background()
	tr, err := Create(ctx, Options{Root: root, StateDir: t.TempDir(), ID: "s1", Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tr.Dir(), "a.txt"), []byte("a changed by the task\n"), 0o644)
	os.WriteFile(filepath.Join(tr.Dir(), "c.bin"), []byte("c\n"), 0o644)
	changes, _, err := tr.Finish(ctx)
	if err != nil || len(changes) != 2 {
		t.Fatalf("finish: %v %+v", err, changes)
	}
	if err := tr.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(marks)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "RAN-") {
			t.Errorf("git ran the repository's program: %s", strings.TrimPrefix(e.Name(), "RAN-"))
		}
	}
}

// A git repository the task planted inside the worktree (sub/.git) makes
// its change unreadable: Finish says so (ErrUnreadable) instead of
// returning a change that leaves out everything below it. Before, a
// planted repository with a commit was a note, and one without made git
// add fail with nothing to tell the task's end.
func TestPlantedRepositoryMakesTheChangeUnreadable(t *testing.T) {
	for _, withCommit := range []bool{false, true} {
		root := repo(t, map[string]string{"a.txt": "a\n"})
		ctx := context.Background()
		tr, err := Create(ctx, Options{Root: root, StateDir: t.TempDir(), ID: "s1", Task: "t"})
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(tr.Dir(), "sub")
		os.MkdirAll(sub, 0o755)
		os.WriteFile(filepath.Join(sub, "x.go"), []byte("package x\n"), 0o644)
		os.WriteFile(filepath.Join(tr.Dir(), "a.txt"), []byte("a changed\n"), 0o644)
		steps := [][]string{{"init", "-q"}}
		if withCommit {
			steps = append(steps, []string{"add", "-A"}, []string{"commit", "-q", "-m", "planted"})
		}
		for _, args := range steps {
			if _, err := runGit(ctx, sub, false, args...); err != nil {
				t.Fatal(err)
			}
		}
		changes, notes, err := tr.Finish(ctx)
		if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "sub") {
			t.Errorf("with a commit %v: finish = %v, %+v, %v; want ErrUnreadable naming sub", withCommit, err, changes, notes)
		}
		_ = tr.Discard(ctx)
	}
}

// agentls's git reaches no other repository by any transport (file://
// included, which needs no network): protocol.allow is never. Nothing it
// runs fetches, but a fetch would run the repository's ssh or credential
// programs.
func TestGitUsesNoTransport(t *testing.T) {
	root := repo(t, map[string]string{"a.txt": "a\n"})
	other := repo(t, map[string]string{"b.txt": "b\n"})
	out, err := runGit(context.Background(), root, false, "ls-remote", "file://"+other)
	if err == nil || !strings.Contains(out, "not allowed") {
		t.Fatalf("ls-remote of another repository: %v\n%s", err, out)
	}
}
