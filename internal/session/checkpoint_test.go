package session

import (
	"context"
	"testing"

	"github.com/agentls/agentls/internal/agent"
)

// turn plays one model turn of a task by hand: the assistant's message,
// the files it changed, its tool result, and the next Conversation call.
func turn(tk *Recorder, conv *[]agent.Message, text string, changes map[string][2]string) {
	*conv = append(*conv, agent.Message{Role: agent.RoleAssistant, Content: text, ToolCalls: []agent.ToolCall{{ID: text, Name: "edit_file"}}})
	for path, ch := range changes {
		tk.Changed(path, []byte(ch[0]), ch[0] != "", []byte(ch[1]))
	}
	*conv = append(*conv, agent.Message{Role: agent.RoleTool, ToolCallID: text, Content: "ok"})
	tk.Conversation(context.Background(), *conv)
}

// Steps run on across tasks and across a rewind: a second task after a
// rewind to step 1 numbers its steps on, and a rewind to its step puts
// back the rewound file's text plus the second task's change; step 0 is
// the text before the first task, and a file created later is not there.
func TestCheckpointsAcrossTasksAndRewinds(t *testing.T) {
	s, _ := testStore(t, Options{})
	t1, err := s.Begin(Begin{Prompt: "first"})
	if err != nil {
		t.Fatal(err)
	}
	conv := []agent.Message{msg(agent.RoleUser, "first")}
	t1.Conversation(context.Background(), conv)
	turn(t1, &conv, "s1", map[string][2]string{"a": {"a0", "a1"}})
	turn(t1, &conv, "s2", map[string][2]string{"a": {"a1", "a2"}, "n": {"", "new"}})
	if err := t1.End(agent.Result{Status: agent.StatusOK}, nil); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Load(t1.Session())
	if err != nil {
		t.Fatal(err)
	}
	if st := sess.Steps(); len(st) != 2 || st[0].Summary != "s1" || st[1].Step != 2 {
		t.Fatalf("steps %+v", st)
	}
	p, err := sess.PlanRewind(1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]FileState{
		"a": {{Path: "a", Exists: true, Text: "a2"}, {Path: "a", Exists: true, Text: "a1"}},
		"n": {{Path: "n", Exists: true, Text: "new"}, {Path: "n"}},
	}
	if len(p.Files) != 2 {
		t.Fatalf("plan %+v", p)
	}
	for _, f := range p.Files {
		if w := want[f.Path]; f.From != w[0] || f.To != w[1] {
			t.Errorf("%s: %+v → %+v, want %+v → %+v", f.Path, f.From, f.To, w[0], w[1])
		}
	}
	if len(p.Messages) != 3 || p.Messages[1].Content != "s1" {
		t.Errorf("conversation at step 1: %+v", p.Messages)
	}
	if err := s.Rewound(p); err != nil {
		t.Fatal(err)
	}

	t2, err := s.Begin(Begin{Session: t1.Session(), Prompt: "second"})
	if err != nil {
		t.Fatal(err)
	}
	if h := t2.History(); len(h) != 3 {
		t.Fatalf("history after the rewind: %d messages, want 3", len(h))
	}
	conv = append(t2.History(), msg(agent.RoleUser, "second"))
	turn(t2, &conv, "s3", map[string][2]string{"b": {"b0", "b1"}})
	turn(t2, &conv, "s4", map[string][2]string{"a": {"a1", "a1x"}})
	if err := t2.End(agent.Result{Status: agent.StatusOK}, nil); err != nil {
		t.Fatal(err)
	}
	sess, err = s.Load(t1.Session())
	if err != nil {
		t.Fatal(err)
	}
	if st := sess.Steps(); len(st) != 4 || st[2].Step != 3 || st[2].Task != "t2" {
		t.Fatalf("steps %+v", st)
	}
	p, err = sess.PlanRewind(3)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for _, f := range p.Files {
		got[f.Path] = [2]string{f.From.Text, f.To.Text}
	}
	if got["a"] != [2]string{"a1x", "a1"} || got["b"] != [2]string{"b1", "b1"} || got["n"] != [2]string{"", ""} {
		t.Errorf("rewind to 3: %+v", got)
	}
	p, _ = sess.PlanRewind(0)
	got = map[string][2]string{}
	for _, f := range p.Files {
		got[f.Path] = [2]string{f.From.Text, f.To.Text}
	}
	if got["a"] != [2]string{"a1x", "a0"} || got["b"] != [2]string{"b1", "b0"} || len(p.Messages) != 0 {
		t.Errorf("rewind to 0: %+v, %d messages", got, len(p.Messages))
	}
	if _, err := sess.PlanRewind(5); err == nil {
		t.Error("a rewind to step 5 of 4 was planned")
	}
}

// A deletion is a step's change: a rewind to before it makes the file
// again with its exact bytes (not UTF-8 included) and mode.
func TestCheckpointOfADeletion(t *testing.T) {
	s, _ := testStore(t, Options{})
	t1, err := s.Begin(Begin{Prompt: "first"})
	if err != nil {
		t.Fatal(err)
	}
	conv := []agent.Message{msg(agent.RoleUser, "first")}
	t1.Conversation(context.Background(), conv)
	conv = append(conv, agent.Message{Role: agent.RoleAssistant, Content: "rm", ToolCalls: []agent.ToolCall{{ID: "rm", Name: "run_command"}}})
	t1.Deleted("tool.sh", []byte("#!/bin/sh\n\x00\xff"), 0o751)
	conv = append(conv, agent.Message{Role: agent.RoleTool, ToolCallID: "rm", Content: "ok"})
	t1.Conversation(context.Background(), conv)
	if err := t1.End(agent.Result{Status: agent.StatusOK}, nil); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Load(t1.Session())
	if err != nil {
		t.Fatal(err)
	}
	p, err := sess.PlanRewind(0)
	if err != nil {
		t.Fatal(err)
	}
	want := RewindFile{Path: "tool.sh", From: FileState{Path: "tool.sh"}, To: FileState{Path: "tool.sh", Exists: true, Text: "#!/bin/sh\n\x00\xff", Mode: 0o751}}
	if len(p.Files) != 1 || p.Files[0] != want {
		t.Fatalf("plan %+v, want %+v", p.Files, want)
	}
}
