package session

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
)

func TestRecallRanking(t *testing.T) {
	now := time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	ents := []MemoryEntry{
		{Time: now.Add(-6 * day), Summary: "A: added the greet function in greet.go"},
		{Time: now.Add(-5 * day), Summary: "B: fixed the parser test for empty input"},
		{Time: now.Add(-8 * day), Summary: "C: greet greet.go parser test (too old)"},
		{Time: now.Add(-1 * day), Summary: "D: updated the README"},
		{Time: now.Add(-2 * day), Summary: "E: renamed greet to hello in greet.go and greet_test.go"},
		{Time: now.Add(-3 * time.Hour), Summary: "F: bumped the Go version"},
		{Time: now.Add(-4 * day), Summary: "G: made the parser faster"},
	}
	cases := []struct {
		task  string
		limit int
		want  []string // first letters, in order
	}{
		// A and E share "greet" (greet.go splits at the dot; "go" is too
		// short to count): E is newer. The rest share nothing: newest first.
		{"make greet in greet.go say hi", 5, []string{"E", "A", "F", "D", "G"}},
		{"the parser test fails on empty input", 3, []string{"B", "G", "F"}},
		// Nothing shared: the newest.
		{"something unrelated", 2, []string{"F", "D"}},
		{"PARSER", 1, []string{"G"}}, // case-insensitive; G newer than B
	}
	for _, c := range cases {
		t.Run(c.task, func(t *testing.T) {
			got := rank(ents, c.task, now.Add(-DefaultRecallMaxAge), c.limit)
			var letters []string
			for _, g := range got {
				_, rest, _ := strings.Cut(g, ": ")
				letters = append(letters, rest[:1])
			}
			if !reflect.DeepEqual(letters, c.want) {
				t.Fatalf("rank(%q) = %q, want %q\n%s", c.task, letters, c.want, strings.Join(got, "\n"))
			}
		})
	}
}

func TestMemoryThroughTheStore(t *testing.T) {
	now := time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC)
	s, warns := testStore(t, Options{Memory: true, Now: func() time.Time { return now }})
	for _, c := range []struct {
		prompt  string
		res     agent.Result
		changes []Change
	}{
		{"add a greet function", agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true, FilesChanged: []string{"greet.go", "rejected.go"}, Summary: "Added Greet."},
			[]Change{{Path: "greet.go", Created: true}}},
		{"stop halfway", agent.Result{Status: agent.StatusCancelled, Cancelled: true}, nil},
		// A model error after the model answered is work, remembered; one
		// before any answer (a refused key, no server) is a set-up failure,
		// not memory (issue 25).
		{"fix the build", agent.Result{Status: agent.StatusError, Reason: "llm", Error: "model error (HTTP 401): bad key", Steps: 2, Usage: agent.Usage{InputTokens: 10}}, nil},
		{"greet before the key is set", agent.Result{Status: agent.StatusError, Reason: "llm", Error: "model error (HTTP 401): no key"}, nil},
		// A dry run: the agent changed a file, nothing landed (issue 13, item 6).
		{"greet in a dry run", agent.Result{Status: agent.StatusOK, Reason: "done", FilesChanged: []string{"greet.go"}, Summary: "Proposed."}, nil},
	} {
		task, err := s.Begin(Begin{Prompt: c.prompt})
		if err != nil {
			t.Fatal(err)
		}
		if err := task.End(c.res, c.changes); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
	}
	got := s.Memory().Recall(context.Background(), "greet everyone")
	want := []string{
		`2026-11-10: Task "greet in a dry run" ended without changing any file.`,
		`2026-11-10: Task "add a greet function" changed greet.go; the checks passed.`,
		`2026-11-10: Task "fix the build" failed (llm): model error (HTTP 401): bad key.`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Recall:\n%q\nwant (the cancelled task and the set-up failure are not remembered)\n%q", got, want)
	}
	// A week later it is forgotten.
	now = now.Add(8 * 24 * time.Hour)
	if got := s.Memory().Recall(context.Background(), "greet"); len(got) != 0 {
		t.Fatalf("old entries recalled: %q", got)
	}
	if len(*warns) != 0 {
		t.Fatal(*warns)
	}
	// Memory off: nothing kept, nothing recalled.
	off, _ := testStore(t, Options{})
	task, _ := off.Begin(Begin{Prompt: "add a greet function"})
	task.End(agent.Result{Status: agent.StatusOK}, nil)
	if off.Memory() != nil || off.Memory().Recall(context.Background(), "greet") != nil {
		t.Fatal("memory off still recalls")
	}
	if _, err := os.Stat(off.Dir() + "/memory.jsonl"); !os.IsNotExist(err) {
		t.Fatalf("memory off wrote a file: %v", err)
	}
}

func TestMemoryTrims(t *testing.T) {
	s, _ := testStore(t, Options{Memory: true})
	m := s.Memory()
	long := strings.Repeat("word ", 300)
	for i := range 300 {
		if err := m.Add(MemoryEntry{Time: time.Now(), Task: fmt.Sprint(i), Summary: long}); err != nil {
			t.Fatal(err)
		}
	}
	ents, _, err := m.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) >= 300 || len(ents) < 50 || ents[len(ents)-1].Task != "299" {
		t.Fatalf("%d entries, last %s", len(ents), ents[len(ents)-1].Task)
	}
	if fi, _ := os.Stat(m.path); fi.Size() > maxMemoryBytes+int64(len(long))+200 {
		t.Fatalf("memory file is %d bytes", fi.Size())
	}
}

func TestSummarize(t *testing.T) {
	many := make([]string, 10)
	for i := range many {
		many[i] = fmt.Sprintf("f%d.go", i)
	}
	cases := []struct {
		res  agent.Result
		want string
	}{
		// Memory is what happened, not what the model said: a task that
		// changed nothing and answered "Done." is not remembered as done.
		{agent.Result{Status: agent.StatusOK, Reason: "done", Summary: "Done."}, `Task "t" ended without changing any file.`},
		{agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true, Summary: "Fixed the bug."}, `Task "t" ended without changing any file.`},
		{agent.Result{Status: agent.StatusOK, Reason: "verifyFailed", FilesChanged: []string{"a.go"}, Summary: "Tried."}, `Task "t" changed a.go; the checks still failed.`},
		{agent.Result{Status: agent.StatusOK, Reason: "done", Verified: true, FilesChanged: many}, `Task "t" changed f0.go, f1.go, f2.go, f3.go, f4.go, f5.go, f6.go, f7.go and 2 more; the checks passed.`},
		{agent.Result{Status: agent.StatusOK, Reason: "done", FilesChanged: []string{"a.go"}, Outcome: "awaiting review", Summary: "Done."}, `Task "t" changed a.go; no check ran (awaiting review).`},
		{agent.Result{Status: agent.StatusError, Reason: "maxSteps", Error: "stopped after 25 model turns", FilesChanged: []string{"b.go"}, Summary: "ignored"}, `Task "t" failed (maxSteps): stopped after 25 model turns; it had changed b.go.`},
		{agent.Result{Status: agent.StatusCancelled, Cancelled: true, FilesChanged: []string{"c.go"}}, `Task "t" was cancelled after changing c.go.`},
	}
	for _, c := range cases {
		if got := Summarize("t", c.res); got != c.want {
			t.Errorf("Summarize(%+v)\n got %s\nwant %s", c.res, got, c.want)
		}
	}
}

func BenchmarkRecall(b *testing.B) {
	s, err := Open(b.TempDir(), Options{StateDir: b.TempDir(), Memory: true})
	if err != nil {
		b.Fatal(err)
	}
	m := s.Memory()
	for i := range keepMemoryEntries {
		m.Add(MemoryEntry{Time: time.Now(), Summary: fmt.Sprintf("Task %d changed parser.go and lexer_%d.go to handle empty input; the checks passed.", i, i)})
	}
	b.ResetTimer()
	for b.Loop() {
		if len(m.Recall(context.Background(), "make the parser handle empty input")) != DefaultRecallLimit {
			b.Fatal("recall")
		}
	}
}
