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
