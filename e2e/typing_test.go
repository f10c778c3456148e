package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testkit/lspclient"
)

// The user types at random moments while a scripted task makes 1,000 edits
// to the same buffer. Every keystroke must survive: edits are versioned,
// a rejected one is recomputed on the newer text, and the agent's
// transform only ever touches its own lines.
func TestConcurrentTypingLosesNothing(t *testing.T) {
	rounds := 1000
	if testing.Short() {
		rounds = 100
	}
	var b strings.Builder
	b.WriteString("USER:\n")
	type turn struct {
		ToolCalls []map[string]string `json:"toolCalls,omitempty"`
		Text      string              `json:"text,omitempty"`
	}
	var turns []turn
	for i := 0; i < rounds; i++ {
		fmt.Fprintf(&b, "marker_%04d\n", i)
		args, _ := json.Marshal(map[string]string{"path": "doc.txt", "old_string": fmt.Sprintf("marker_%04d\n", i), "new_string": fmt.Sprintf("MARKER_%04d\n", i)})
		calls := []map[string]string{{"id": fmt.Sprintf("c%d", i), "name": "edit_file", "arguments": string(args)}}
		if i == 0 { // read before edit
			calls = append([]map[string]string{{"id": "r0", "name": "read_file", "arguments": `{"path":"doc.txt"}`}}, calls...)
		}
		turns = append(turns, turn{ToolCalls: calls})
	}
	turns = append(turns, turn{Text: "all done"})
	script, _ := json.Marshal(map[string]any{"turns": turns})
	s := start(t, setup{script: string(script), files: map[string]string{"doc.txt": b.String()},
		settings: map[string]any{"agent": map[string]any{"maxSteps": rounds + 5}}})
	if err := s.Open(s.ctx, "doc.txt"); err != nil {
		t.Fatal(err)
	}
	id, err := s.Run(s.ctx, map[string]any{"task": "shout every marker"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	typed := ""
	done := make(chan lspclient.TaskResult)
	go func() {
		r, _ := s.Wait(s.ctx, id, 5*time.Minute)
		done <- r
	}()
	var r lspclient.TaskResult
loop:
	for {
		select {
		case r = <-done:
			break loop
		case <-time.After(time.Duration(rng.Intn(3000)) * time.Microsecond):
		}
		text, _ := s.Text("doc.txt")
		end := strings.IndexByte(text, '\n') // the end of the USER: line
		ch := string(rune('a' + rng.Intn(26)))
		if err := s.Type(s.ctx, "doc.txt", end, end, ch); err != nil {
			t.Fatal(err)
		}
		typed += ch
	}
	if r.Status != "ok" {
		t.Fatalf("task %+v", r)
	}
	text, _ := s.Text("doc.txt")
	first := text[:strings.IndexByte(text, '\n')]
	if first != "USER:"+typed {
		t.Fatalf("keystrokes lost: typed %d chars, line is %q", len(typed), first)
	}
	applied := strings.Count(text, "MARKER_")
	rejected := len(s.Edits()) - applied
	t.Logf("%d keystrokes typed during %d agent edits: none lost; %d edits applied, %d applyEdit attempts rejected for a stale version and recomputed",
		len(typed), rounds, applied, rejected)
	if applied < rounds*9/10 {
		t.Errorf("only %d of %d agent edits landed", applied, rounds)
	}
	if strings.Count(text, "marker_")+applied != rounds {
		t.Errorf("markers corrupted: %q", text[:min(len(text), 300)])
	}
}
