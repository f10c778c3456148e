package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agentls/agentls/internal/policy"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// The walker behind list_files and grep: a pool of workers reads
// directories in parallel, applies .gitignore rules (nested files with their
// own directory as domain, negations, .git/info/exclude) and hands files to a
// visit function, in batches so one huge directory still spreads over the
// pool. It never follows symlinks (no loops, no escapes), never enters .git,
// and never hands out secret files.

// fileBatch bounds how many files one task carries: big enough to make the
// queue cheap, small enough to balance a directory of thousands of files.
const fileBatch = 64

// walkEntry is one file found by the walk.
type walkEntry struct {
	rel     string // '/'-separated, relative to the workspace root
	symlink bool
}

type walkTask struct {
	// A directory to read, with the ignore patterns in force above it...
	dirRel   string
	dirParts []string
	patterns []ignoreRule
	// ...or a batch of files to visit.
	files []walkEntry
}

type walkQueue struct {
	mu      sync.Mutex
	cond    sync.Cond
	items   []walkTask
	pending int // pushed but not finished
}

func (q *walkQueue) push(t walkTask) {
	q.mu.Lock()
	q.items = append(q.items, t)
	q.pending++
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *walkQueue) pop() (walkTask, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && q.pending > 0 {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return walkTask{}, false
	}
	// LIFO: depth first keeps the queue short on wide trees.
	t := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return t, true
}

func (q *walkQueue) done() {
	q.mu.Lock()
	q.pending--
	last := q.pending == 0
	q.mu.Unlock()
	if last {
		q.cond.Broadcast()
	}
}

// walker walks one directory tree of a workspace.
type walker struct {
	root   string // absolute workspace root
	policy Policy
	// visit is called for every file, concurrently from the workers; state is
	// the worker's own value from newState (a reusable read buffer).
	visit    func(state any, e walkEntry)
	newState func() any
	// batch hands files to the pool in batches instead of visiting them on
	// the worker that read their directory: worth it when visiting costs a
	// file read (grep), not when it is an append (list_files).
	batch bool

	secret policy.Secrets
}

// walkWorkers: directory reads and small-file reads block in syscalls, so
// more workers than cores keeps the disk (or page cache) busy.
func walkWorkers() int {
	return min(16, max(4, 4*runtime.GOMAXPROCS(0)))
}

// walk visits the files below startRel ("." for the root). When startRel is
// itself ignored, the caller asked for it by name: it is walked anyway, with
// only the .gitignore files inside it applying. It reports whether that
// happened.
func (w *walker) walk(ctx context.Context, startRel string) (startIgnored bool, err error) {
	var parts []string
	if startRel != "." && startRel != "" {
		parts = strings.Split(startRel, "/")
	}
	patterns := readIgnoreFile(filepath.Join(w.root, ".git", "info", "exclude"), nil)
	// The rules of the directories above the start, root first.
	for i := 0; i < len(parts); i++ {
		patterns = append(slices.Clip(patterns), readIgnoreFile(filepath.Join(w.root, filepath.FromSlash(strings.Join(parts[:i], "/")), ".gitignore"), parts[:i])...)
		if ignored(patterns, parts[:i+1], true, nil) {
			startIgnored = true
		}
	}
	if startIgnored {
		patterns = nil
	}

	w.secret = w.policy.compileSecrets()
	q := &walkQueue{}
	q.cond.L = &q.mu
	q.push(walkTask{dirRel: startRel, dirParts: parts, patterns: patterns})
	var (
		wg       sync.WaitGroup
		panicked sync.Once
		crash    error // set once, read after wg.Wait
		failed   atomic.Bool
	)
	workers := walkWorkers()
	if !w.batch {
		workers = min(workers, 2*runtime.GOMAXPROCS(0))
	}
	// run does one task. A panic in it (reading a directory, visiting a
	// file) ends the walk with an error, never the process; the task
	// still counts as done so the other workers do not wait for it.
	run := func(t walkTask, state any) {
		defer q.done()
		defer func() {
			if p := recover(); p != nil {
				panicked.Do(func() { crash = fmt.Errorf("internal error walking %s: %v", displayRel(startRel), p) })
				failed.Store(true)
			}
		}()
		if ctx.Err() != nil || failed.Load() {
			return
		}
		if t.files != nil {
			for _, e := range t.files {
				w.visit(state, e)
			}
		} else {
			w.readDir(q, t, state)
		}
	}
	for range workers {
		wg.Go(func() {
			var state any
			if w.newState != nil {
				state = w.newState()
			}
			for {
				t, ok := q.pop()
				if !ok {
					return
				}
				run(t, state)
			}
		})
	}
	wg.Wait()
	if crash != nil {
		return startIgnored, crash
	}
	return startIgnored, ctx.Err()
}

func (w *walker) readDir(q *walkQueue, t walkTask, state any) {
	dirAbs := filepath.Join(w.root, filepath.FromSlash(t.dirRel))
	// O_NONBLOCK: a named pipe swapped in for the directory
	// opens at once and fails the listing instead of blocking.
	f, err := os.OpenFile(dirAbs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return // unreadable directories are skipped, as git and ripgrep do
	}
	entries, _ := f.ReadDir(-1)
	f.Close()

	patterns := t.patterns
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			patterns = append(slices.Clip(patterns), readIgnoreFile(filepath.Join(dirAbs, ".gitignore"), t.dirParts)...)
			break
		}
	}
	var scratch []string
	var batch []walkEntry
	childParts := slices.Clip(t.dirParts)
	for _, e := range entries {
		name := e.Name()
		// .git is a directory in a repository and a file in a submodule or
		// worktree; neither is ever shown.
		if name == ".git" {
			continue
		}
		rel := name
		if t.dirRel != "." && t.dirRel != "" {
			rel = t.dirRel + "/" + name
		}
		typ := e.Type()
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() && typ&fs.ModeSymlink == 0 {
			continue // devices, sockets, pipes
		}
		cp := append(childParts, name)
		if ignored(patterns, cp, isDir, &scratch) {
			continue
		}
		if isDir {
			q.push(walkTask{dirRel: rel, dirParts: slices.Clip(cp), patterns: patterns})
			continue
		}
		if w.secret.Match(rel, name) {
			continue
		}
		if typ&fs.ModeSymlink != 0 && !w.fileLinkInside(rel) {
			continue
		}
		e := walkEntry{rel: rel, symlink: typ&fs.ModeSymlink != 0}
		if !w.batch {
			w.visit(state, e)
			continue
		}
		batch = append(batch, e)
		if len(batch) == fileBatch {
			q.push(walkTask{files: batch})
			batch = nil
		}
	}
	if len(batch) > 0 {
		q.push(walkTask{files: batch})
	}
}

// fileLinkInside reports whether the symlink rel ends at a file inside the
// workspace: only those are listed, since reading any other would be refused
// (or, for a directory, would mean following links through the tree).
func (w *walker) fileLinkInside(rel string) bool {
	abs, _, err := w.policy.ResolveRead(rel)
	if err != nil {
		return false
	}
	fi, err := os.Stat(abs)
	return err == nil && fi.Mode().IsRegular()
}

// ignoreRule is one gitignore pattern with the directory it came from.
type ignoreRule struct {
	pattern gitignore.Pattern
	domain  []string
	// name is true for patterns without a slash (other than a trailing
	// one), which git tests against the last path component only.
	name bool
}

// readIgnoreFile parses one .gitignore (or info/exclude) whose directory is
// domain. A missing file has no patterns.
func readIgnoreFile(p string, domain []string) []ignoreRule {
	// Never a plain read: a named pipe named .gitignore would block the
	// walk for good, and a huge file would be read whole.
	data, _, err := ReadRegularFile(p)
	if err != nil {
		return nil
	}
	domain = slices.Clone(domain)
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		body := strings.TrimSuffix(strings.TrimRight(strings.TrimPrefix(line, "!"), " "), "/")
		rules = append(rules, ignoreRule{
			pattern: gitignore.ParsePattern(line, domain),
			domain:  domain,
			name:    !strings.Contains(body, "/"),
		})
	}
	return rules
}

// ignored applies rules (lowest priority first) to a path, as git does: the
// last rule that matches decides. go-git's Pattern tests a slash-less
// pattern against every component of the path, so "!logs" would re-include
// logs/x.log; git tests it against the last component only, and the walk
// never enters an ignored directory anyway. So such patterns get the domain
// plus the last component, which is also much cheaper on deep trees.
// scratch is reused between calls to avoid an allocation per file.
func ignored(rules []ignoreRule, parts []string, isDir bool, scratch *[]string) bool {
	var buf []string
	if scratch != nil {
		buf = *scratch
	}
	defer func() {
		if scratch != nil {
			*scratch = buf
		}
	}()
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		p := parts
		if r.name {
			if len(parts) <= len(r.domain) {
				continue
			}
			buf = append(append(buf[:0], parts[:len(r.domain)]...), parts[len(parts)-1])
			p = buf
		}
		switch r.pattern.Match(p, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// relUnder reports whether rel is dir or below it ('/'-separated; "." is the
// root).
func relUnder(rel, dir string) bool {
	return dir == "." || dir == "" || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// relTo returns rel relative to dir, for glob matching inside the searched
// directory.
func relTo(rel, dir string) string {
	if dir == "." || dir == "" {
		return rel
	}
	return strings.TrimPrefix(strings.TrimPrefix(rel, dir), "/")
}
