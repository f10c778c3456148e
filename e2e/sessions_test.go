package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// 8 tasks across 4 sessions: all complete; tasks of one session run one
// after the other in the order given; different sessions overlap.
func TestConcurrentSessions(t *testing.T) {
	var turns []string
	for i := 0; i < 8; i++ {
		turns = append(turns, `{"text":"working on it, slowly","chunkSize":4,"chunkDelayMs":40}`)
	}
	s := start(t, setup{script: `{"turns":[` + strings.Join(turns, ",") + `]}`,
		settings: map[string]any{"sessions": map[string]any{"maxConcurrent": 4}}})
	type run struct{ id, session string }
	var runs []run
	for i := 0; i < 8; i++ {
		sess := fmt.Sprintf("sess-%d", i%4)
		id, err := s.Run(s.ctx, map[string]any{"task": fmt.Sprintf("task %d", i), "session": sess})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{id, sess})
	}
	var statuses []string
	for _, r := range runs {
		res, err := s.Wait(s.ctx, r.id, 60*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != "ok" || res.Session != r.session {
			t.Errorf("task %s: %+v", r.id, res)
		}
		statuses = append(statuses, res.Status)
	}
	// Reconstruct each task's span from the event stream, in wire order.
	first, last := map[string]int{}, map[string]int{}
	for i, n := range s.Notes("agentls/event") {
		var id string
		if j := strings.Index(string(n.Params), `"taskId":"`); j >= 0 {
			rest := string(n.Params)[j+10:]
			id = rest[:strings.IndexByte(rest, '"')]
		}
		if _, ok := first[id]; !ok {
			first[id] = i
		}
		last[id] = i
	}
	for i := 0; i+4 < len(runs); i++ {
		a, b := runs[i], runs[i+4]
		if first[b.id] < last[a.id] {
			t.Errorf("session %s: %s started (event %d) before %s ended (event %d)", a.session, b.id, first[b.id], a.id, last[a.id])
		}
	}
	maxRunning := 0
	for _, r := range runs {
		at := first[r.id]
		running := 0
		for _, o := range runs {
			if first[o.id] <= at && last[o.id] > at {
				running++
			}
		}
		maxRunning = max(maxRunning, running)
	}
	t.Logf("statuses %v; at most %d tasks ran at once", statuses, maxRunning)
	if maxRunning < 2 || maxRunning > 4 {
		t.Errorf("%d tasks ran at once; want 2..4", maxRunning)
	}
}
