package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A directory of the path is swapped atomically (renameat2 RENAME_EXCHANGE)
// with a symlink out of the workspace while write_file runs, over and over:
// no write ever lands outside. Before the writes went through os.Root, the
// rename followed the swapped-in link.
func TestWriteFileRacingASymlinkSwapStaysInside(t *testing.T) {
	ws := newDisk(t, map[string]string{"sub/f.txt": "start\n"})
	outside := t.TempDir()
	sub := filepath.Join(ws.Root(), "sub")
	link := filepath.Join(ws.Root(), "sub.link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("no RENAME_EXCHANGE here: %v", err)
	}
	_ = unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
	wf := toolNamed(t, ws, Options{}, "write_file")
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
			runtime.Gosched()
		}
	}()
	const rounds = 3000
	wrote := 0
	for i := range rounds {
		if _, err := call(t, wf, map[string]string{"path": "sub/f.txt", "content": fmt.Sprintf("round %d\n", i)}); err == nil {
			wrote++
		}
	}
	stop.Store(true)
	wg.Wait()
	entries, _ := os.ReadDir(outside)
	if len(entries) > 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("writes landed outside the workspace (%d of %d went through): %s", wrote, rounds, strings.Join(names, " "))
	}
	if wrote == 0 || swaps.Load() < rounds/10 {
		t.Fatalf("the race was not exercised: %d writes, %d swaps", wrote, swaps.Load())
	}
	t.Logf("%d of %d writes went through, %d swaps, none outside", wrote, rounds, swaps.Load())
}

// The same swap while read_file runs: no read ever returns the file
// outside the workspace. Before os.Root, the read followed the link.
func TestReadFileRacingASymlinkSwapStaysInside(t *testing.T) {
	ws := newDisk(t, map[string]string{"sub/f.txt": "inside\n"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "f.txt"), []byte("OUTSIDE-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(ws.Root(), "sub")
	link := filepath.Join(ws.Root(), "sub.link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	rf := toolNamed(t, ws, Options{}, "read_file")
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
			runtime.Gosched()
		}
	}()
	const rounds = 3000
	read, leaked := 0, 0
	for range rounds {
		res, err := call(t, rf, map[string]string{"path": "sub/f.txt"})
		if err != nil {
			continue
		}
		read++
		if strings.Contains(res.Output, "OUTSIDE-SECRET") {
			leaked++
		}
	}
	stop.Store(true)
	wg.Wait()
	if leaked > 0 {
		t.Fatalf("%d of %d reads returned the file outside the workspace", leaked, read)
	}
	if read == 0 || swaps.Load() < rounds/10 {
		t.Fatalf("the race was not exercised: %d reads, %d swaps", read, swaps.Load())
	}
	t.Logf("%d of %d reads went through, %d swaps, none outside", read, rounds, swaps.Load())
}

// grep racing the same swap never returns a line of a file outside the
// workspace: its reads resolve beneath the root without symlinks
// (openat2). Before, it opened the walked path as a path.
func TestGrepRacingASymlinkSwapStaysInside(t *testing.T) {
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("sub/f%02d.txt", i)] = "inside MARK\n"
	}
	ws := newDisk(t, files)
	outside := t.TempDir()
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(outside, fmt.Sprintf("f%02d.txt", i)), []byte("OUTSIDE MARK\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(ws.Root(), "sub")
	link := filepath.Join(ws.Root(), "sub.link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	gr := toolNamed(t, ws, Options{}, "grep")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			_ = unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
			runtime.Gosched()
		}
	}()
	found, leaked := 0, 0
	for range 400 {
		res, err := call(t, gr, map[string]string{"pattern": "MARK"})
		if err != nil {
			continue
		}
		found += strings.Count(res.Output, "inside MARK")
		if strings.Contains(res.Output, "OUTSIDE") {
			leaked++
		}
	}
	stop.Store(true)
	wg.Wait()
	if leaked > 0 {
		t.Fatalf("%d of 400 searches returned lines from outside the workspace", leaked)
	}
	if found == 0 {
		t.Fatal("the race was not exercised: nothing found inside")
	}
}

// A named pipe as .git/info/exclude or as a parent's .gitignore does not
// block list_files or grep (they were read with a plain open).
func TestFIFOGitignoreBlocksNoWalk(t *testing.T) {
	ws := newDisk(t, map[string]string{"a.txt": "MARK\n", ".git/info/keep": ""})
	if err := unix.Mkfifo(filepath.Join(ws.Root(), ".git", "info", "exclude"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := call(t, toolNamed(t, ws, Options{}, "grep"), map[string]string{"pattern": "MARK"})
		if err == nil {
			_, err = call(t, toolNamed(t, ws, Options{}, "list_files"), map[string]string{})
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a FIFO .gitignore blocked the walk")
	}
}

// The swap's link may also point inside the workspace, at a protected
// directory (.git/hooks): the write lands where the policy looked, or
// nowhere. With os.Root alone it followed the link into .git/hooks.
func TestWriteFileRacingASwapIntoGitHooks(t *testing.T) {
	ws := newDisk(t, map[string]string{"sub/pre-commit": "#!/bin/sh\n", ".git/hooks/README": "hooks\n"})
	sub := filepath.Join(ws.Root(), "sub")
	link := filepath.Join(ws.Root(), "sub.link")
	if err := os.Symlink(".git/hooks", link); err != nil {
		t.Fatal(err)
	}
	wf := toolNamed(t, ws, Options{}, "write_file")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			_ = unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
			runtime.Gosched()
		}
	}()
	wrote := 0
	for i := range 3000 {
		if _, err := call(t, wf, map[string]string{"path": "sub/pre-commit", "content": fmt.Sprintf("#!/bin/sh\necho %d\n", i)}); err == nil {
			wrote++
		}
	}
	stop.Store(true)
	wg.Wait()
	entries, _ := os.ReadDir(filepath.Join(ws.Root(), ".git", "hooks"))
	for _, e := range entries {
		if e.Name() != "README" {
			t.Fatalf("a write landed in .git/hooks: %s (%d writes went through)", e.Name(), wrote)
		}
	}
	if wrote == 0 {
		t.Fatal("the race was not exercised: no write went through")
	}
}
