package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/llm/chat"
	"github.com/agentls/agentls/internal/testkit/fakellm"
)

// testStore opens a store for a fresh workspace under a temporary state
// directory, collecting warnings.
func testStore(t *testing.T, opts Options) (*Store, *[]string) {
	t.Helper()
	var mu sync.Mutex
	warns := &[]string{}
	opts.Warn = func(m string) {
		mu.Lock()
		*warns = append(*warns, m)
		mu.Unlock()
	}
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	s, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, warns
}

func msg(role agent.Role, content string) agent.Message {
	return agent.Message{Role: role, Content: content}
}

// runTask runs one task the way the CLI and the server do: a real Driver
// on a fake model server, with the Task as hook and event sink.
func runTask(t *testing.T, s *Store, sessionID, prompt string, turns ...fakellm.Turn) (*Recorder, agent.Result, []fakellm.RecordedRequest) {
	t.Helper()
	srv := fakellm.New(&fakellm.Script{Turns: turns})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	task, err := s.Begin(Begin{Session: sessionID, Prompt: prompt, Model: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	d := &driver.Driver{
		LLM:            chat.NewOpenAI(chat.OpenAIConfig{BaseURL: url, Model: "fake-model"}),
		Model:          "fake-model",
		OnConversation: task.Conversation,
		OnEvent:        task.Event,
		Planner:        driver.WorkspacePlanner{Root: s.Root(), Recall: s.Memory().Recall},
	}
	res := d.Run(context.Background(), driver.Assignment{Prompt: prompt, History: task.History()})
	if err := task.End(res, nil); err != nil {
		t.Fatal(err)
	}
	return task, res, srv.Requests()
}

func TestContinueSession(t *testing.T) {
	s, warns := testStore(t, Options{})
	first, res, _ := runTask(t, s, "", "rename foo to bar", fakellm.Turn{Text: "Renamed foo to bar."})
	if res.Status != agent.StatusOK {
		t.Fatal(res)
	}
	second, _, reqs := runTask(t, s, first.Session(), "now undo that", fakellm.Turn{Text: "Undone."})
	if second.Session() != first.Session() || second.Seq() != 2 || second.ID() != "t2" {
		t.Fatalf("second task %s/%d/%s in session %s", second.Session(), second.Seq(), second.ID(), first.Session())
	}
	// The second task's first request carries the first task's messages
	// between the system prompt and the new task.
	var got []string
	for _, m := range reqs[0].Body.Messages[1:] {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"user: rename foo to bar", "assistant: Renamed foo to bar.", "user: now undo that"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("second request messages:\n%q\nwant\n%q", got, want)
	}
	sess, err := s.Load(first.Session())
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Tasks) != 2 || sess.Tasks[1].Result == nil || sess.Tasks[1].Result.Summary != "Undone." || len(sess.Messages) != 4 {
		t.Fatalf("session %+v", sess)
	}
	if len(*warns) != 0 {
		t.Fatalf("warnings %q", *warns)
	}
}

func TestUnknownSession(t *testing.T) {
	s, _ := testStore(t, Options{})
	for _, b := range []Begin{{Session: "nope"}, {Session: "../../etc/passwd"}, {Session: "../x", Create: true}} {
		if _, err := s.Begin(b); !errors.Is(err, ErrNotFound) {
			t.Errorf("Begin(%+v): err = %v", b, err)
		}
	}
	// The server hands out the ID first and creates the session with the
	// task; a second task continues it.
	id := s.NewID()
	for seq := 1; seq <= 2; seq++ {
		task, err := s.Begin(Begin{Session: id, Create: true, Prompt: "p"})
		if err != nil || task.Session() != id || task.Seq() != seq {
			t.Fatalf("Begin #%d: %v %s %d", seq, err, task.Session(), task.Seq())
		}
		task.End(agent.Result{Status: agent.StatusOK}, nil)
	}
	sess, err := s.Load(id)
	if err != nil || len(sess.Tasks) != 2 || sess.Workspace != s.Root() {
		t.Fatalf("%+v %v", sess, err)
	}
}

// writeSession writes a session with one finished task of the given
// conversation and returns the file's path.
func writeSession(t *testing.T, s *Store, msgs []agent.Message) (*Recorder, string) {
	t.Helper()
	task, err := s.Begin(Begin{Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= len(msgs); i++ {
		task.Conversation(context.Background(), msgs[:i])
	}
	if err := task.End(agent.Result{Status: agent.StatusOK, Reason: "done", Summary: "fine"}, nil); err != nil {
		t.Fatal(err)
	}
	return task, s.sessionPath(task.Session())
}

func TestTornLastLine(t *testing.T) {
	conv := []agent.Message{msg(agent.RoleUser, "p"), msg(agent.RoleAssistant, "a1"), msg(agent.RoleUser, "more"), msg(agent.RoleAssistant, "a2")}
	s, _ := testStore(t, Options{})
	_, path := writeSession(t, s, conv)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	last := lines[len(lines)-2] // the result; lines ends with ""
	prev := lines[len(lines)-3] // the last message
	base := len(full) - len(last) - len(prev)
	// A kill -9 can stop the writer at any byte of the last records.
	for cut := base; cut < len(full); cut++ {
		if err := os.WriteFile(path, full[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		sess, err := s.Load(id)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		tornMsg := cut > base && cut < base+len(prev)-1
		tornRes := cut > base+len(prev) && cut < len(full)-1
		switch {
		case tornMsg || tornRes:
			if len(sess.Warnings) != 1 || !strings.Contains(sess.Warnings[0], "incomplete") {
				t.Fatalf("cut at %d: warnings %q", cut, sess.Warnings)
			}
		case len(sess.Warnings) != 0:
			t.Fatalf("cut at %d: warnings %q", cut, sess.Warnings)
		}
		wantMsgs := 3
		if cut >= base+len(prev)-1 {
			wantMsgs = 4
		}
		// Only the newline of the result is missing: the record is whole.
		wantStatus := "interrupted"
		if cut == len(full)-1 {
			wantStatus = agent.StatusOK
		}
		if len(sess.Messages) != wantMsgs || sess.Tasks[0].Status() != wantStatus {
			t.Fatalf("cut at %d: %d messages, status %s", cut, len(sess.Messages), sess.Tasks[0].Status())
		}
	}
}

func TestAppendAfterTornLine(t *testing.T) {
	s, warns := testStore(t, Options{})
	task, path := writeSession(t, s, []agent.Message{msg(agent.RoleUser, "p"), msg(agent.RoleAssistant, "a1")})
	full, _ := os.ReadFile(path)
	if err := os.WriteFile(path, full[:len(full)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	// Continuing the session must not glue its first record onto the torn
	// line, or that record would be lost too.
	next, err := s.Begin(Begin{Session: task.Session(), Prompt: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "incomplete") {
		t.Fatalf("warnings %q", *warns)
	}
	if got := next.History(); len(got) != 2 || got[1].Content != "a1" {
		t.Fatalf("history %+v", got)
	}
	next.Conversation(context.Background(), append(next.History(), msg(agent.RoleUser, "again"), msg(agent.RoleAssistant, "a2")))
	if err := next.End(agent.Result{Status: agent.StatusOK}, nil); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Load(task.Session())
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Tasks) != 2 || sess.Tasks[1].Result == nil || len(sess.Messages) != 4 || len(sess.Warnings) != 1 {
		t.Fatalf("tasks %d, messages %d, warnings %q", len(sess.Tasks), len(sess.Messages), sess.Warnings)
	}
	if !strings.Contains(sess.Warnings[0], "not a valid record") {
		t.Fatalf("the torn line, now inside the file, should be reported as such: %q", sess.Warnings)
	}
}

func TestCompactedConversationIsReset(t *testing.T) {
	s, _ := testStore(t, Options{})
	task, err := s.Begin(Begin{Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	long := []agent.Message{msg(agent.RoleUser, "p"), msg(agent.RoleAssistant, "a1"), msg(agent.RoleUser, "u2"), msg(agent.RoleAssistant, "a2")}
	task.Conversation(ctx, long)
	task.Conversation(ctx, long) // a retried call: nothing new
	compacted := []agent.Message{msg(agent.RoleUser, "[Summary] a1 u2"), msg(agent.RoleUser, "p"), msg(agent.RoleAssistant, "a2")}
	task.Conversation(ctx, compacted)
	task.Conversation(ctx, append(compacted, msg(agent.RoleAssistant, "a3")))
	if err := task.End(agent.Result{Status: agent.StatusOK}, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.sessionPath(task.Session()))
	if n := strings.Count(string(data), `"type":"message"`); n != 5 {
		t.Errorf("%d message records, want 5 (4, then 1 after the reset)", n)
	}
	sess, err := s.Load(task.Session())
	if err != nil {
		t.Fatal(err)
	}
	want := append(compacted, msg(agent.RoleAssistant, "a3"))
	if !reflect.DeepEqual(sess.Messages, want) {
		t.Fatalf("messages %+v\nwant %+v", sess.Messages, want)
	}
}

func TestRepair(t *testing.T) {
	call := func(ids ...string) agent.Message {
		m := agent.Message{Role: agent.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, agent.ToolCall{ID: id, Name: "read_file"})
		}
		return m
	}
	result := func(id string) agent.Message {
		return agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: "read_file", Content: "r" + id}
	}
	missing := func(id string) agent.Message {
		return agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: "read_file", Content: "(not run: the task ended before this call ran)"}
	}
	u := msg(agent.RoleUser, "u")
	cases := []struct {
		name   string
		in     []agent.Message
		want   []agent.Message
		repair bool
	}{
		{"complete", []agent.Message{u, call("1", "2"), result("1"), result("2")}, []agent.Message{u, call("1", "2"), result("1"), result("2")}, false},
		{"cancelled mid-tools", []agent.Message{u, call("1", "2"), result("1")}, []agent.Message{u, call("1", "2"), result("1"), missing("2")}, true},
		{"no results then a user turn", []agent.Message{u, call("1"), u}, []agent.Message{u, call("1"), missing("1"), u}, true},
		{"orphan result", []agent.Message{u, result("9"), u}, []agent.Message{u, u}, true},
		{"duplicate result", []agent.Message{u, call("1"), result("1"), result("1")}, []agent.Message{u, call("1"), result("1")}, true},
		{"empty", nil, []agent.Message{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Repair(c.in)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Repair:\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}

func TestListNewestFirst(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, _ := testStore(t, Options{Now: clock})
	var ids []string
	for i, p := range []string{"first", "second", "third"} {
		now = now.Add(time.Duration(i+1) * time.Minute)
		task, err := s.Begin(Begin{Prompt: p})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.Session())
		task.End(agent.Result{Status: agent.StatusOK}, nil)
	}
	// Continuing the first makes it the most recent.
	now = now.Add(time.Hour)
	task, err := s.Begin(Begin{Session: ids[0], Prompt: "first again"})
	if err != nil {
		t.Fatal(err)
	}
	task.End(agent.Result{Status: agent.StatusError}, nil)
	infos, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range infos {
		got = append(got, in.LastPrompt+"/"+in.LastStatus)
	}
	if want := []string{"first again/error", "third/ok", "second/ok"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("List = %q, want %q", got, want)
	}
}

func TestWriteFailureKeepsTheTaskGoing(t *testing.T) {
	s, warns := testStore(t, Options{})
	task, err := s.Begin(Begin{Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	task.log.f.Close() // the disk went away
	task.Conversation(context.Background(), []agent.Message{msg(agent.RoleUser, "p")})
	task.Conversation(context.Background(), []agent.Message{msg(agent.RoleUser, "p"), msg(agent.RoleAssistant, "a")})
	if task.Err() == nil || len(*warns) != 1 {
		t.Fatalf("err %v, warnings %q", task.Err(), *warns)
	}
	if err := task.End(agent.Result{Status: agent.StatusOK}, nil); err == nil {
		t.Fatal("End should report the write error")
	}
	// A nil task (the store could not be opened) is usable and silent.
	var none *Recorder
	none.Conversation(context.Background(), []agent.Message{msg(agent.RoleUser, "p")})
	none.Event(agent.Event{Kind: agent.KindText, Text: "x"})
	if none.History() != nil || none.End(agent.Result{}, nil) != nil || none.TranscriptPath() != "" {
		t.Fatal("nil task")
	}
}

func TestOpenFailsOnAnUnusableStateDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := Open(t.TempDir(), Options{StateDir: file}); err == nil {
		t.Fatal("Open under a regular file should fail")
	}
}

func TestRedactedOnDisk(t *testing.T) {
	const key = "sk-secret-key-123456"
	s, _ := testStore(t, Options{Memory: true, Redact: func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }})
	task, err := s.Begin(Begin{Prompt: "use " + key})
	if err != nil {
		t.Fatal(err)
	}
	task.Conversation(context.Background(), []agent.Message{msg(agent.RoleUser, "use "+key)})
	task.Event(agent.Event{Kind: agent.KindText, Step: 1, Text: "your key " + key})
	task.End(agent.Result{Status: agent.StatusOK, Summary: "used " + key}, []Change{NewChange("a.txt", nil, false, []byte(key))})
	err = filepath.Walk(s.Dir(), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), key) {
			t.Errorf("%s holds the key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWorkspaceDir(t *testing.T) {
	a := WorkspaceDir("/state", "/home/u/src/app")
	b := WorkspaceDir("/state", "/home/u/other/app")
	if a == b || !strings.HasPrefix(filepath.Base(a), "app-") || a != WorkspaceDir("/state", "/home/u/src/app/") {
		t.Fatalf("%s / %s", a, b)
	}
	if got := filepath.Base(WorkspaceDir("/s", "/x/my proj:ü")); !strings.HasPrefix(got, "my_proj__-") {
		t.Fatalf("unsafe characters kept: %s", got)
	}
}

func TestStateDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/xdg/state")
	if d, _ := StateDir(); d != "/xdg/state/agentls" {
		t.Errorf("StateDir = %s", d)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if d, _ := StateDir(); d != "/home/u/.local/state/agentls" {
		t.Errorf("StateDir with a relative XDG_STATE_HOME = %s", d)
	}
}

func TestChangeRecorded(t *testing.T) {
	s, _ := testStore(t, Options{})
	task, _ := s.Begin(Begin{Prompt: "p"})
	task.End(agent.Result{Status: agent.StatusOK, FilesChanged: []string{"a.txt", "new.txt"}}, []Change{
		NewChange("a.txt", []byte("one\ntwo\n"), true, []byte("one\n2\n")),
		NewChange("new.txt", nil, false, []byte("hi\n")),
	})
	sess, err := s.Load(task.Session())
	if err != nil {
		t.Fatal(err)
	}
	got := sess.Tasks[0].Changes
	want := []Change{
		{Path: "a.txt", Diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"},
		{Path: "new.txt", Created: true, Diff: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"},
	}
	if !reflect.DeepEqual(got, want) {
		b, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("changes %s", b)
	}
}

// BenchmarkConversationTurn is the cost a turn adds to the driver's loop:
// two new messages compared against a growing conversation, appended and
// fsynced.
func BenchmarkConversationTurn(b *testing.B) {
	s, err := Open(b.TempDir(), Options{StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	task, err := s.Begin(Begin{Prompt: "p"})
	if err != nil {
		b.Fatal(err)
	}
	conv := []agent.Message{msg(agent.RoleUser, "p")}
	body := strings.Repeat("some tool output\n", 100)
	for b.Loop() {
		conv = append(conv, agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c", Name: "read_file", Arguments: `{"path":"a.go"}`}}},
			agent.Message{Role: agent.RoleTool, ToolCallID: "c", Name: "read_file", Content: body})
		if len(conv) > 200 {
			conv = conv[:1]
		}
		task.Conversation(context.Background(), conv)
	}
	if task.Err() != nil {
		b.Fatal(task.Err())
	}
}
