package proc

import (
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// MemoDirs lists the directories (relative to ws) the walk's records
// for ws hold now, sorted.
func MemoDirs(ws string) []string {
	memos.Lock()
	defer memos.Unlock()
	var out []string
	for k, b := range memos.byKey {
		if !strings.HasPrefix(k, ws+"\x00") {
			continue
		}
		m, err := decodeMemo(b)
		if err != nil {
			continue
		}
		for rel := range m {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// MemoAge is how long a directory must be unchanged to be recorded.
const MemoAge = memoAge

// WarmRuns is how many commands ran in a warm launcher so far.
func WarmRuns() int64 { return warmRuns.Load() }

// WaitWarm waits (up to 5 s) until a warm launcher waits for a command:
// the last command's release, which starts it, may come a moment after
// its Run returned (a kill at its timeout releases it).
func WaitWarm() bool {
	for range 500 {
		warmPool.Lock()
		n, idle := len(warmPool.starting), len(warmPool.idle)
		warmPool.Unlock()
		if n == 0 && idle > 0 {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// WarmPIDs are the process ids of the warm launchers waiting now.
func WarmPIDs() []int {
	warmPool.Lock()
	defer warmPool.Unlock()
	var pids []int
	for _, w := range warmPool.idle {
		pids = append(pids, w.cmd.Process.Pid)
	}
	return pids
}

// MemoRecorded reports whether the walk keeps records for the file
// system ws is on (memoFS).
func MemoRecorded(t testing.TB, ws string) bool {
	var fs unix.Statfs_t
	if err := unix.Statfs(ws, &fs); err != nil {
		t.Fatal(err)
	}
	return memoFS[int64(fs.Type)]
}
