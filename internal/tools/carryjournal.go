package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A carry journal makes carrying a command's layer into the tree whole or
// reported: before the first file is written, the plan (each file's text
// as the carry found it and the text it writes, or its deletion) is
// written and fsynced under the state directory; each file is then
// written atomically beneath the root; the journal is removed when all
// are. A process killed mid-way (kill -9) leaves the journal, and the
// next start of agentls finishes it where every file is still either as
// the plan found it or as it writes it (RecoverCarries), and otherwise
// keeps it aside and names the files.

// carryEntry is one file of a carry's plan.
type carryEntry struct {
	Rel     string      `json:"rel"`
	Old     []byte      `json:"old,omitempty"`
	Existed bool        `json:"existed"`
	Next    []byte      `json:"next,omitempty"`
	Delete  bool        `json:"delete,omitempty"`
	Perm    fs.FileMode `json:"perm,omitempty"`
	// OldPerm is Old's mode (a deleted file's, for undo and rewind).
	OldPerm fs.FileMode `json:"oldPerm,omitempty"`
}

// carryJournal is the plan of one carry.
type carryJournal struct {
	Root  string       `json:"root"`
	Files []carryEntry `json:"files"`
}

// carryDelay is a test hook that slows each file's write
// (AGENTLS_TEST_CARRY_DELAY_MS, test-only: the e2e test that kills
// agentls mid-carry needs a carry that takes long enough).
func carryDelay() time.Duration {
	ms, err := strconv.Atoi(os.Getenv("AGENTLS_TEST_CARRY_DELAY_MS"))
	if err != nil || ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// writeJournal writes j durably to a new file in dir and returns its path
// and the open file, whose lock marks the carry as in progress until it is
// closed (after the journal is removed).
func writeJournal(dir string, j carryJournal) (string, *os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	b, err := json.Marshal(j)
	if err != nil {
		return "", nil, err
	}
	f, err := os.CreateTemp(dir, "carry-*.tmp")
	if err != nil {
		return "", nil, err
	}
	tmp := f.Name()
	werr := lockJournal(f)
	if werr == nil {
		_, werr = f.Write(b)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if werr != nil {
		f.Close()
		os.Remove(tmp)
		return "", nil, werr
	}
	p := strings.TrimSuffix(tmp, ".tmp") + ".json"
	if err := os.Rename(tmp, p); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return "", nil, err
	}
	return p, f, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// applyEntry writes (or deletes) one planned file beneath r, atomically.
func applyEntry(r *os.Root, e carryEntry) error {
	if e.Delete {
		if err := r.Remove(filepath.FromSlash(e.Rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeBeneath(r, e.Rel, e.Next, e.Perm)
}

// state says where a planned file is now: "old" (as the plan found it),
// "new" (as it writes it) or "" (neither: someone else changed it).
func (e carryEntry) state(r *os.Root) string {
	cur, err := r.ReadFile(filepath.FromSlash(e.Rel))
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	switch {
	case e.Delete && !exists:
		return "new"
	case !e.Delete && exists && bytes.Equal(cur, e.Next):
		return "new"
	case e.Existed == exists && (!exists || bytes.Equal(cur, e.Old)):
		return "old"
	}
	return ""
}

// RecoverCarries finishes the carries a killed agentls left in dir (the
// state directory's "carry"): a journal whose files are all still as it
// found them or as it writes them is applied whole and removed; another
// is kept aside (renamed *.kept) and reported, naming the files that
// changed meanwhile. It returns what it says to the user.
func RecoverCarries(dir string) []string {
	names, _ := filepath.Glob(filepath.Join(dir, "carry-*.json"))
	sort.Strings(names)
	var msgs []string
	for _, p := range names {
		if m := recoverCarry(p); m != "" {
			msgs = append(msgs, m)
		}
	}
	// A journal being written when the process died never started a carry
	// (one another agentls is writing now is locked).
	tmps, _ := filepath.Glob(filepath.Join(dir, "carry-*.tmp"))
	for _, p := range tmps {
		if f, err := os.Open(p); err == nil {
			if tryLockJournal(f) {
				os.Remove(p)
			}
			f.Close()
		}
	}
	return msgs
}

func recoverCarry(p string) string {
	// A carry another agentls has in progress holds its journal's lock.
	lf, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer lf.Close()
	if !tryLockJournal(lf) {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return "" // finished (removed) while the lock was awaited
	}
	keep := func(why string) string {
		_ = os.Rename(p, strings.TrimSuffix(p, ".json")+".kept")
		return why + " (the plan is kept in " + strings.TrimSuffix(p, ".json") + ".kept)"
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return keep(fmt.Sprintf("agentls: an interrupted carry of a command's writes could not be read: %v", err))
	}
	var j carryJournal
	if err := json.Unmarshal(b, &j); err != nil || j.Root == "" {
		return keep("agentls: an interrupted carry of a command's writes could not be read")
	}
	r, err := os.OpenRoot(j.Root)
	if err != nil {
		return keep(fmt.Sprintf("agentls: a command's writes into %s were interrupted and could not be finished: %v", j.Root, err))
	}
	defer r.Close()
	var changed, pending []string
	for _, e := range j.Files {
		removeTemporaries(r, e.Rel)
		switch e.state(r) {
		case "":
			changed = append(changed, e.Rel)
		case "old":
			pending = append(pending, e.Rel)
		}
	}
	if len(changed) > 0 {
		return keep(fmt.Sprintf("agentls: a command's writes into %s were interrupted (agentls stopped mid-way) and NOT finished, because these files changed since: %s; %d of %d files had been written",
			j.Root, strings.Join(changed, ", "), len(j.Files)-len(pending)-len(changed), len(j.Files)))
	}
	var failed []string
	for _, e := range j.Files {
		if e.state(r) != "old" {
			continue
		}
		if err := carriable(r, e.Rel, protection{}, true); err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", e.Rel, err))
			continue
		}
		if err := applyEntry(r, e); err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", e.Rel, err))
		}
	}
	if len(failed) > 0 {
		return keep(fmt.Sprintf("agentls: a command's interrupted writes into %s could not all be finished: %s", j.Root, strings.Join(failed, ", ")))
	}
	os.Remove(p)
	if len(pending) == 0 {
		return ""
	}
	return fmt.Sprintf("agentls: finished a command's writes into %s that were interrupted (agentls stopped mid-way): %d of %d files written now", j.Root, len(pending), len(j.Files))
}

// removeTemporaries removes what an interrupted atomic write of rel left
// beside it (rel.agentls-tmp of an earlier writeBeneath, writeAtomic's
// .base.agentls-<hex>): never the user's files.
func removeTemporaries(r *os.Root, rel string) {
	name := filepath.FromSlash(rel)
	_ = r.Remove(name + ".agentls-tmp")
	dir, base := filepath.Dir(name), filepath.Base(name)
	d, err := r.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if strings.HasPrefix(n, "."+base+".agentls-") && len(n) == len("."+base+".agentls-")+12 {
			_ = r.Remove(filepath.Join(dir, n))
		}
	}
}
