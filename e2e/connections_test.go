package e2e

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// TestConcurrentTasksKeepTheirConnections: four tasks of one language
// server talk to the model at once, each over a connection it keeps for
// all its turns. With Go's default of two idle connections a host, the
// third and fourth task's connections were closed after every answer and
// dialled again (over TLS, a handshake before each request).
func TestConcurrentTasksKeepTheirConnections(t *testing.T) {
	const tasks, turns = 4, 10
	files := map[string]string{}
	var sc fakellm.Script
	for i := 0; i < tasks*turns; i++ {
		name := fmt.Sprintf("f%02d.go", i)
		files[name] = fmt.Sprintf("package p\n\nconst F%d = %d\n", i, i)
		args, _ := json.Marshal(map[string]any{"path": name})
		// The delay keeps the four requests of a round in flight together,
		// so their connections are all busy, then all idle, at once.
		sc.Turns = append(sc.Turns, fakellm.Turn{DelayMs: 30, ToolCalls: []fakellm.ToolCall{{Name: "read_file", Arguments: string(args)}}})
	}
	for i := 0; i < tasks; i++ {
		sc.Turns = append(sc.Turns, fakellm.Turn{Text: "Done."})
	}
	script, _ := json.Marshal(sc)
	s := start(t, setup{script: string(script), files: files})
	var ids []string
	for i := 0; i < tasks; i++ {
		id, err := s.Run(s.ctx, map[string]any{"task": fmt.Sprintf("read the files (%d)", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		r, err := s.Wait(s.ctx, id, time.Minute)
		if err != nil || r.Status != "ok" {
			t.Fatalf("task %s: %+v %v", id, r, err)
		}
	}
	if got := len(s.LLM.Requests()); got != tasks*(turns+1) {
		t.Fatalf("%d requests, want %d", got, tasks*(turns+1))
	}
	// One a task, and one more: a request can start while the answer
	// before it is still handing its connection back, and then dials (the
	// transport keeps whichever connection is ready second).
	if n := s.LLM.Connections(); n > tasks+1 {
		t.Errorf("%d connections for %d requests of %d tasks at once; want one a task", n, tasks*(turns+1), tasks)
	}
}
