package proc

import (
	"slices"
	"strings"
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
