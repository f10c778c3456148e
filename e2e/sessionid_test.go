package e2e

import (
	"path/filepath"
	"testing"
)

// Two language servers on one workspace (two editors, one state
// directory) hand out different session IDs, so neither editor's task
// continues the other's conversation. The IDs were s<unix%100000>-<seq>,
// equal for the first task of two servers started in the same second.
func TestTwoServersNeverShareASessionID(t *testing.T) {
	root := copyWorkspace(t, "")
	state := "XDG_STATE_HOME=" + filepath.Join(t.TempDir(), "state")
	a := start(t, setup{root: root, env: []string{state}, script: `{"turns":[{"text":"one."}]}`})
	b := start(t, setup{root: root, env: []string{state}, script: `{"turns":[{"text":"two."}]}`})
	// Both tasks start before either is waited for: the same second.
	ida, erra := a.Run(a.ctx, map[string]any{"task": "first editor"})
	idb, errb := b.Run(b.ctx, map[string]any{"task": "second editor"})
	if erra != nil || errb != nil {
		t.Fatal(erra, errb)
	}
	ra, erra := a.Wait(a.ctx, ida, testWait)
	rb, errb := b.Wait(b.ctx, idb, testWait)
	if erra != nil || errb != nil {
		t.Fatal(erra, errb)
	}
	if ra.Status != "ok" || rb.Status != "ok" {
		t.Fatalf("tasks ended %+v and %+v", ra, rb)
	}
	if ra.Session == rb.Session {
		t.Fatalf("both servers named their session %q", ra.Session)
	}
}
