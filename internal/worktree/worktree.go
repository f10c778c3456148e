// Package worktree gives a task a git worktree of its own (agent.isolation
// "worktree"): made from the user's current state (HEAD, the uncommitted
// changes, the editor's unsaved buffers) under agentls's state directory,
// never inside the user's tree; at the end, its whole change as texts to
// propose (base: the snapshot it was made from; proposed: what the task
// left); and its removal with its branch.
//
// Git runs through internal/proc, outside the sandbox (it writes the
// repository's .git), with the repository's hooks and file-system monitor
// off, and for the worktree always with explicit --git-dir and
// --work-tree: the worktree's own .git file is in the model's reach, so it
// never decides which repository git opens. File texts are read with
// go-git from the object store, with no process and no output cap.
//
// It imports no front end and nothing of the task's machine.
package worktree

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// States of a worktree task, as listed.
const (
	StateRunning     = "running"           // its task runs in this server
	StateElsewhere   = "running elsewhere" // another live agentls process runs it
	StateEnded       = "ended"             // its task ended; its change waits for merge or discard
	StateInterrupted = "interrupted"       // the server that ran it stopped mid-task (a crash)
	StateMerged      = "merged"            // everything it proposed was merged or rejected
)

// Tree is one task's worktree, as recorded beside it.
type Tree struct {
	ID     string `json:"id"`     // the session ID: one worktree per session
	Root   string `json:"root"`   // the user's workspace root
	Top    string `json:"top"`    // the user's repository's top directory
	Prefix string `json:"prefix"` // Root relative to Top ("" when equal), slash-separated
	Path   string `json:"path"`   // the worktree's top directory
	GitDir string `json:"gitDir"` // the worktree's admin directory in the user's .git
	Branch string `json:"branch"`
	Base   string `json:"base"` // the snapshot commit
	Task   string `json:"task"` // the first prompt
	// Head is the commit of the task's work when it last ended; "": none yet.
	Head    string    `json:"head,omitempty"`
	Created time.Time `json:"created"`
	PID     int       `json:"pid"`   // the agentls process that runs it
	State   string    `json:"state"` // StateRunning, StateEnded or StateMerged, as last written
	// Notes says what of the user's state the snapshot left out.
	Notes []string `json:"notes,omitempty"`

	stateDir string
}

// Dir is the task's root inside the worktree: where the user's workspace
// root is in it.
func (t *Tree) Dir() string { return filepath.Join(t.Path, filepath.FromSlash(t.Prefix)) }

// Options say what to snapshot.
type Options struct {
	Root     string // the user's workspace root (absolute)
	StateDir string // agentls's state directory
	ID       string // the session ID
	Task     string // the prompt
	// Buffers are the editor's texts of open files, relative to Root
	// (slash-separated): unsaved work the snapshot takes over the disk's.
	Buffers map[string][]byte
}

// Dir is where the worktrees of a state directory live.
func Dir(stateDir string) string { return filepath.Join(stateDir, "worktrees") }

// Check returns an error wrapping ErrNoGit when root cannot have a
// worktree (no git, not in a repository, no commit yet).
func Check(ctx context.Context, root string) error {
	if _, err := runGit(ctx, root, true, "rev-parse", "--show-toplevel"); err != nil {
		if errors.Is(err, ErrNoGit) {
			return err
		}
		return fmt.Errorf("%w: %s is not in a git repository", ErrNoGit, root)
	}
	if _, err := runGit(ctx, root, true, "rev-parse", "--verify", "-q", "HEAD^{commit}"); err != nil {
		return fmt.Errorf("%w: the repository has no commit yet", ErrNoGit)
	}
	return nil
}

// Create makes the worktree of a task: a branch agentls/<id> at a commit
// holding HEAD with the user's uncommitted changes and unsaved buffers
// over it. It returns an error wrapping ErrNoGit when the workspace cannot
// have one.
func Create(ctx context.Context, o Options) (*Tree, error) {
	top, prefix, err := locate(ctx, o)
	if err != nil {
		return nil, err
	}
	t, err := newTree(o, top, prefix)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = t.Discard(context.WithoutCancel(ctx))
		}
	}()
	if err := t.add(ctx, "HEAD"); err != nil {
		return nil, err
	}
	if err := t.save(); err != nil {
		return nil, err
	}
	if err := t.copyState(ctx, o.Buffers); err != nil {
		return nil, err
	}
	base, err := t.commit(ctx, "agentls: snapshot of "+o.Root+" for task "+o.ID)
	if err != nil {
		return nil, err
	}
	t.Base = base
	if err := t.save(); err != nil {
		return nil, err
	}
	ok = true
	return t, nil
}

// git runs git on the worktree with its admin directory named, never
// found through the worktree's .git file.
func (t *Tree) git(ctx context.Context, quiet bool, args ...string) (string, error) {
	return runGit(ctx, t.Path, quiet, append([]string{"--git-dir=" + t.GitDir, "--work-tree=" + t.Path}, args...)...)
}

// commit records everything in the worktree and returns the commit.
func (t *Tree) commit(ctx context.Context, msg string) (string, error) {
	if _, err := t.git(ctx, false, "add", "--all", "--", "."); err != nil {
		return "", err
	}
	if _, err := t.git(ctx, false, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", msg); err != nil {
		return "", err
	}
	head, err := t.git(ctx, true, "rev-parse", "HEAD")
	return strings.TrimSpace(head), err
}

// copyState carries the user's uncommitted changes (those git sees: not
// ignored files) and the editor's buffers into the worktree.
func (t *Tree) copyState(ctx context.Context, buffers map[string][]byte) error {
	out, err := runGit(ctx, t.Top, true, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules")
	if err != nil {
		return err
	}
	src, err := os.OpenRoot(t.Top)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenRoot(t.Path)
	if err != nil {
		return err
	}
	defer dst.Close()
	for _, e := range strings.Split(out, "\x00") {
		if len(e) < 4 {
			continue
		}
		rel := filepath.FromSlash(e[3:])
		if !filepath.IsLocal(rel) || isGitPath(rel) {
			continue
		}
		fi, err := src.Lstat(rel)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := dst.Remove(rel); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("worktree: %w", err)
			}
		case err != nil:
			return fmt.Errorf("worktree: %w", err)
		case fi.Mode().IsRegular():
			b, err := src.ReadFile(rel)
			if err != nil {
				return fmt.Errorf("worktree: %w", err)
			}
			if err := writeBeneath(dst, rel, b, fi.Mode().Perm()); err != nil {
				return err
			}
		default:
			t.Notes = append(t.Notes, filepath.ToSlash(rel)+" is not a regular file; the worktree has it as committed")
		}
	}
	for _, rel := range sortedKeys(buffers) {
		local := filepath.Join(filepath.FromSlash(t.Prefix), filepath.FromSlash(rel))
		if !filepath.IsLocal(filepath.FromSlash(rel)) || isGitPath(local) {
			continue
		}
		mode := os.FileMode(0o644)
		if fi, err := dst.Lstat(local); err == nil {
			if !fi.Mode().IsRegular() {
				continue
			}
			mode = fi.Mode().Perm()
		}
		if err := writeBeneath(dst, local, buffers[rel], mode); err != nil {
			return err
		}
	}
	return nil
}

func isGitPath(rel string) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return strings.EqualFold(first, ".git")
}

// writeBeneath writes a file beneath root, making its directories.
func writeBeneath(root *os.Root, rel string, b []byte, mode os.FileMode) error {
	if d := filepath.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("worktree: %w", err)
		}
	}
	_ = root.Remove(rel) // a symlink is replaced, never followed
	if err := root.WriteFile(rel, b, mode); err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// recordPath is the JSON record of a worktree.
func recordPath(stateDir, id string) string { return filepath.Join(Dir(stateDir), id+".json") }

func (t *Tree) save() error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	p := recordPath(t.stateDir, t.ID)
	tmp := p + "." + randHex() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("worktree: %w", err)
	}
	return nil
}

func randHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// SetState records the worktree's state (and this process as its owner
// while it runs).
func (t *Tree) SetState(state string) error {
	t.State = state
	t.PID = os.Getpid()
	return t.save()
}

// Merged records that everything the task proposed was merged: the
// snapshot moves to the task's last commit, so a follow-up in the worktree
// proposes only what it changes after that. The task's branch has served
// (its change is in the user's files now) and is deleted; the worktree
// stays, on a detached HEAD, for a follow-up. HEAD is detached by
// update-ref, which touches no file and runs none of the repository's
// programs, as a checkout would.
func (t *Tree) Merged(ctx context.Context) error {
	if t.Head != "" {
		t.Base = t.Head
	}
	if t.Branch != "" {
		head, err := t.git(ctx, true, "rev-parse", "--verify", "HEAD")
		if err == nil {
			_, err = t.git(ctx, false, "update-ref", "--no-deref", "HEAD", strings.TrimSpace(head))
		}
		if err == nil {
			_, err = runGit(ctx, t.Top, false, "branch", "-D", t.Branch)
		}
		if err != nil {
			return fmt.Errorf("worktree %s: deleting its branch %s: %w", t.ID, t.Branch, err)
		}
		t.Branch = ""
	}
	return t.SetState(StateMerged)
}

// Load reads the record of the worktree id.
func Load(stateDir, id string) (*Tree, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("worktree: bad id %q", id)
	}
	b, err := os.ReadFile(recordPath(stateDir, id))
	if err != nil {
		return nil, err
	}
	var t Tree
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("worktree %s: %w", id, err)
	}
	t.stateDir = stateDir
	if t.ID != id || filepath.Dir(t.Path) != Dir(stateDir) {
		return nil, fmt.Errorf("worktree %s: its record names another place", id)
	}
	return &t, nil
}

// List returns the worktrees of the workspace root, oldest first, each with
// its state as of now: one whose record says it runs but whose process is
// gone is StateInterrupted.
func List(stateDir, root string) ([]*Tree, error) {
	ents, err := os.ReadDir(Dir(stateDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Tree
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		t, err := Load(stateDir, id)
		if err != nil || t.Root != root {
			continue
		}
		if t.State == StateRunning && t.PID != os.Getpid() {
			t.State = StateInterrupted
			if alive(t.PID) {
				t.State = StateElsewhere
			}
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// alive reports whether a process pid exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.Signal(0)) != nil {
		return false
	}
	// A zombie (killed, not yet reaped) is gone too.
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// Discard removes the worktree, its branch and its record. What is already
// gone is not an error.
func (t *Tree) Discard(ctx context.Context) error {
	var errs []error
	if _, err := os.Lstat(t.Path); err == nil {
		if _, err := runGit(ctx, t.Top, false, "worktree", "remove", "--force", "--force", t.Path); err != nil {
			// A worktree git does not know (half made): remove the files.
			if filepath.Dir(t.Path) == Dir(t.stateDir) {
				if err := os.RemoveAll(t.Path); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	if _, err := runGit(ctx, t.Top, false, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	if t.Branch == "" {
		// Deleted when the change was merged.
	} else if out, _ := runGit(ctx, t.Top, true, "branch", "--list", t.Branch); strings.TrimSpace(out) != "" {
		if _, err := runGit(ctx, t.Top, false, "branch", "-D", t.Branch); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.Remove(recordPath(t.stateDir, t.ID)); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// newTree records a new worktree for o (the repository's top directory,
// the workspace's prefix in it) under the state directory, before git
// makes it: the record first, so a crash from here on leaves something
// List shows and Discard cleans.
func newTree(o Options, top, prefix string) (*Tree, error) {
	dir := Dir(o.StateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("worktree: %w", err)
	}
	path := filepath.Join(dir, o.ID)
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("worktree: %s exists already", path)
	}
	t := &Tree{ID: o.ID, Root: o.Root, Top: top, Prefix: filepath.ToSlash(prefix), Path: path,
		Branch: "agentls/" + o.ID, Task: o.Task, Created: time.Now().UTC(), PID: os.Getpid(), State: StateRunning, stateDir: o.StateDir}
	if err := t.save(); err != nil {
		return nil, err
	}
	return t, nil
}

// locate checks that o's workspace can have a worktree (as Check) and
// returns its repository's top directory and the workspace's prefix in
// it ("" at the top); o.ID must name one directory.
func locate(ctx context.Context, o Options) (top, prefix string, err error) {
	if err := Check(ctx, o.Root); err != nil {
		return "", "", err
	}
	if top, err = Top(ctx, o.Root); err != nil {
		return "", "", err
	}
	realRoot, err := filepath.EvalSymlinks(o.Root)
	if err != nil {
		return "", "", err
	}
	prefix, err = filepath.Rel(top, realRoot)
	if err != nil || !filepath.IsLocal(prefix) && prefix != "." {
		return "", "", fmt.Errorf("%w: the workspace is not inside its repository's top directory %s", ErrNoGit, top)
	}
	if prefix == "." {
		prefix = ""
	}
	if o.ID == "" || strings.ContainsAny(o.ID, `/\`) || strings.HasPrefix(o.ID, ".") {
		return "", "", fmt.Errorf("worktree: bad id %q", o.ID)
	}
	return top, prefix, nil
}

// add has git make t's worktree on its new branch at commit, and reads
// where its git directory is.
func (t *Tree) add(ctx context.Context, commit string) error {
	if _, err := runGit(ctx, t.Top, false, "worktree", "add", "--quiet", "-b", t.Branch, t.Path, commit); err != nil {
		return err
	}
	gd, err := os.ReadFile(filepath.Join(t.Path, ".git"))
	if err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	t.GitDir = strings.TrimSpace(strings.TrimPrefix(string(gd), "gitdir:"))
	if !filepath.IsAbs(t.GitDir) {
		t.GitDir = filepath.Join(t.Path, t.GitDir)
	}
	return nil
}
