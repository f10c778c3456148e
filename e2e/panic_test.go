package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	store "github.com/agentls/agentls/internal/session"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// A panic in a task's event path, its end, or review publishing ends that
// task with status error, reason internal, logs the stack, and the server
// serves the next task. AGENTLS_TEST_PANIC is a test-only hook: a task
// whose prompt says "panic:<place>" panics there.
func TestPanicEndsOnlyItsTask(t *testing.T) {
	var turns []string
	for i := 0; i < 12; i++ {
		turns = append(turns, `{"text":"done."}`)
	}
	s := start(t, setup{files: map[string]string{"f.txt": fText},
		env:    []string{"AGENTLS_TEST_PANIC=onEvent,finishTask,publishReview"},
		script: `{"turns":[` + strings.Join(turns, ",") + `]}`})
	for _, where := range []string{"onEvent", "finishTask", "publishReview"} {
		bad := s.run(t, map[string]any{"task": "please panic:" + where, "review": where == "publishReview"})
		if bad.Status != "error" || bad.Reason != "internal" {
			t.Errorf("%s: task ended %s/%s (%s), want error/internal", where, bad.Status, bad.Reason, bad.Error)
		}
		if !s.WaitFor(testWait, func() bool { return progressEnded(s, bad.TaskID) }) {
			t.Errorf("%s: the task's progress never ended", where)
		}
		good := s.run(t, map[string]any{"task": "an ordinary task"})
		if good.Status != "ok" {
			t.Fatalf("after a panic in %s the next task ended %+v", where, good)
		}
	}
	log := s.Stderr()
	if !strings.Contains(log, "test hook: panic in onEvent") || !strings.Contains(log, "goroutine") && !strings.Contains(log, ".go:") {
		t.Errorf("the panic and its stack are not in the log")
	}
}

// The task history is bounded: over many tasks that each replace a 64 KB
// file, the server's live heap stays flat and the task list stops growing.
func TestHistoryStaysBounded(t *testing.T) {
	if raceBuild {
		// The race detector's shadow memory and its slowdown (90 s for
		// 200 tasks) measure nothing about the server's own history; the
		// full pass, without it, runs this.
		t.Skip("a memory bound is measured without the race detector (make test's full e2e pass)")
	}
	n := 1000
	if testing.Short() {
		n = 200
	}
	const warm = 120
	var script fakellm.Script
	for i := 0; i < n; i++ {
		body := strings.Repeat(fmt.Sprintf("task %d writes this line of the big file.\n", i), 1600)
		args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": body})
		script.Turns = append(script.Turns,
			fakellm.Turn{ChunkSize: 1 << 20, ToolCalls: []fakellm.ToolCall{{ID: "w", Name: "write_file", Arguments: string(args)}}},
			fakellm.Turn{Text: "written"})
	}
	raw, _ := json.Marshal(script)
	s := start(t, setup{env: []string{"AGENTLS_TEST_PANIC=debug"}, script: string(raw),
		settings: map[string]any{"agent": map[string]any{"memory": false}}})
	type heap struct {
		HeapAlloc uint64
		Tasks     int
	}
	measure := func() heap {
		var h heap
		if err := s.Command(s.ctx, "agentls.debug.heap", map[string]any{}, &h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	var before heap
	for i := 0; i < n; i++ {
		if r := s.run(t, map[string]any{"task": fmt.Sprintf("write %d", i)}); r.Status != "ok" {
			t.Fatalf("task %d: %+v", i, r)
		}
		if i == warm-1 {
			before = measure()
		}
	}
	after := measure()
	t.Logf("heap after %d tasks: %d KB; after %d: %d KB; tasks listed: %d", warm, before.HeapAlloc>>10, n, after.HeapAlloc>>10, after.Tasks)
	// Each task holds 2 × 64 KB of text while it is undoable; unbounded,
	// the heap would grow by (n-warm) × 128 KB.
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 4<<20 {
		t.Errorf("heap grew by %d KB over %d tasks", grown>>10, n-warm)
	}
	if after.Tasks > 100 {
		t.Errorf("%d tasks listed; the history keeps 100", after.Tasks)
	}
}

// A panic in any of the hooks leaves nothing locked behind it: after it,
// accepting an earlier task's proposal and running another task both
// complete (a panic while proposals were published used to leave the
// review lock held, and every accept, reject and undo hung).
func TestPanicLeavesReviewUsable(t *testing.T) {
	for _, where := range []string{"onEvent", "finishTask", "publishReview", "announceEnd"} {
		t.Run(where, func(t *testing.T) {
			s := start(t, setup{files: map[string]string{"f.txt": fText},
				env: []string{"AGENTLS_TEST_PANIC=" + where},
				script: `{"turns":[
 {"toolCalls":[{"id":"c1r","name":"read_file","arguments":"{\"path\":\"f.txt\"}"},{"id":"c1","name":"edit_file","arguments":"{\"path\":\"f.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}"}]},
 {"text":"proposed."},{"text":"done."},{"text":"done."},{"text":"done."}]}`})
			if err := s.Open(s.ctx, "f.txt"); err != nil {
				t.Fatal(err)
			}
			good := s.run(t, map[string]any{"task": "shout", "review": true})
			if good.Status != "ok" {
				t.Fatalf("the review task ended %+v", good)
			}
			bad := s.run(t, map[string]any{"task": "please panic:" + where, "review": true})
			if where != "announceEnd" && (bad.Status != "error" || bad.Reason != "internal") {
				t.Errorf("task ended %s/%s (%s), want error/internal", bad.Status, bad.Reason, bad.Error)
			}
			// A deadline so that a lock left held fails the test instead
			// of hanging it.
			ctx, cancel := context.WithTimeout(s.ctx, testWait)
			defer cancel()
			var acc struct {
				Applied  bool `json:"applied"`
				Accepted int  `json:"accepted"`
			}
			if err := s.Command(ctx, "agentls.accept", map[string]any{"taskId": good.TaskID}, &acc); err != nil {
				t.Fatalf("accept after a panic in %s: %v", where, err)
			}
			if !acc.Applied || acc.Accepted != 1 {
				t.Errorf("accept = %+v", acc)
			}
			if got, _ := s.Text("f.txt"); !strings.HasPrefix(got, "ALPHA\n") {
				t.Errorf("f.txt after accept = %q", got)
			}
			if next := s.run(t, map[string]any{"task": "an ordinary task"}); next.Status != "ok" {
				t.Errorf("after a panic in %s the next task ended %+v", where, next)
			}
		})
	}
}

// A task that panicked still closes its session: the session file holds
// its result, so the next look at the session finds it ended, not
// interrupted (and its files and fsync goroutine were released).
func TestPanickedTaskClosesItsSession(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	s := start(t, setup{env: []string{"AGENTLS_TEST_PANIC=finishTask", "XDG_STATE_HOME=" + state},
		script: `{"turns":[{"text":"done."}]}`})
	bad := s.run(t, map[string]any{"task": "please panic:finishTask"})
	if bad.Status != "error" || bad.Reason != "internal" {
		t.Fatalf("task ended %+v", bad)
	}
	st, err := store.Open(s.Root, store.Options{StateDir: filepath.Join(state, "agentls")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(bad.Session)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tasks) != 1 || got.Tasks[0].Status() != "error" {
		t.Fatalf("session %s records %+v; want one task ended with status error", bad.Session, got.Tasks)
	}
}
