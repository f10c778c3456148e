package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/agent"
	"github.com/agentls/agentls/internal/session"
	"github.com/agentls/agentls/internal/tools"
)

// sessionsFixture is a workspace with a store in a temporary state
// directory (XDG_STATE_HOME, which Sessions reads too).
type sessionsFixture struct {
	t     *testing.T
	root  string
	store *session.Store
	disk  *tools.DiskWorkspace
}

func newSessionsFixture(t *testing.T, files map[string]string) *sessionsFixture {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	w, root := newWS(t, false, files)
	store, err := session.Open(root, session.Options{StateDir: filepath.Join(state, "agentls")})
	if err != nil {
		t.Fatal(err)
	}
	return &sessionsFixture{t: t, root: root, store: store, disk: w.disk}
}

// task runs one task in session id ("" a new one) whose turns each write
// files through the tracked workspace, as the driver would, and ends it
// with res. It returns the session's ID.
func (f *sessionsFixture) task(id, prompt string, res agent.Result, turns ...map[string]string) string {
	f.t.Helper()
	ctx := context.Background()
	rec, err := f.store.Begin(session.Begin{Session: id, Prompt: prompt, Model: "m"})
	if err != nil {
		f.t.Fatal(err)
	}
	ws := rec.Track(f.disk)
	conv := append(rec.History(), agent.Message{Role: agent.RoleUser, Content: prompt})
	rec.Conversation(ctx, conv)
	var changes []session.Change
	for i, files := range turns {
		callID := prompt + string(rune('a'+i))
		conv = append(conv, agent.Message{Role: agent.RoleAssistant, Content: "turn " + callID, ToolCalls: []agent.ToolCall{{ID: callID, Name: "edit_file"}}})
		for rel, text := range files {
			old, existed := readDisk(f.t, f.root, rel)
			if err := ws.Edit(ctx, rel, set(text)); err != nil {
				f.t.Fatal(err)
			}
			changes = append(changes, session.NewChange(rel, []byte(old), existed, []byte(text)))
		}
		conv = append(conv, agent.Message{Role: agent.RoleTool, ToolCallID: callID, Content: "ok"})
		rec.Conversation(ctx, conv)
	}
	if err := rec.End(res, changes); err != nil {
		f.t.Fatal(err)
	}
	return rec.Session()
}

func (f *sessionsFixture) read(rel string) string {
	got, ok := readDisk(f.t, f.root, rel)
	if !ok {
		return "<none>"
	}
	return got
}

var okResult = agent.Result{Status: agent.StatusOK, Reason: "done", Summary: "did it", FilesChanged: []string{"a.txt"}}

func TestListSessions(t *testing.T) {
	f := newSessionsFixture(t, map[string]string{"a.txt": "0\n"})
	var out, errb bytes.Buffer
	if code := listSessions(f.store, false, &out, &errb); code != exitOK || out.Len() != 0 || !strings.Contains(errb.String(), "no sessions yet for "+f.root) {
		t.Errorf("empty: %d, %q, %q", code, out.String(), errb.String())
	}
	out.Reset()
	if code := listSessions(f.store, true, &out, &errb); code != exitOK || strings.TrimSpace(out.String()) != "[]" {
		t.Errorf("empty JSON: %d, %q", code, out.String())
	}

	id := f.task("", "first   task\nwith two lines", okResult, map[string]string{"a.txt": "1\n"})
	out.Reset()
	if code := listSessions(f.store, false, &out, &errb); code != exitOK {
		t.Fatalf("list: %d %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "SESSION") || !strings.HasPrefix(lines[1], id) {
		t.Fatalf("list:\n%s", out.String())
	}
	if !strings.Contains(lines[1], "first task with two lines") || !strings.Contains(lines[1], "ok") {
		t.Errorf("the row does not show the task on one line and its status: %q", lines[1])
	}
	out.Reset()
	listSessions(f.store, true, &out, &errb)
	var infos []session.Info
	if err := json.Unmarshal(out.Bytes(), &infos); err != nil || len(infos) != 1 || infos[0].ID != id {
		t.Errorf("JSON %s: %+v, %v", out.String(), infos, err)
	}
}

func TestShowSession(t *testing.T) {
	f := newSessionsFixture(t, map[string]string{"a.txt": "0\n"})
	failed := agent.Result{Status: agent.StatusError, Reason: "llm", Error: "the model\n\nwent away", Steps: 1}
	id := f.task("", "change a", okResult, map[string]string{"a.txt": "1\n"}, map[string]string{"b.txt": "new\n"})
	f.task(id, "again", failed)
	var out, errb bytes.Buffer
	if code := showSession(f.store, id, false, true, &out, &errb); code != exitOK {
		t.Fatalf("show: %d %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"session " + id + " · " + f.root, "2 tasks",
		"#1 t1", "  > change a", "  ok", "summary: did it",
		"  changed a.txt\n", "-0\n+1\n", // --diff
		"  created b.txt\n", "+new\n",
		"#2 t2", "  > again", "error (the model failed)", "error: the model went away",
		"steps (agentls sessions rewind " + id + " STEP):", "  1  t1 · turn change aa · a.txt", "  2  t1 · turn change ab · b.txt",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("show does not say %q:\n%s", want, s)
		}
	}
	out.Reset()
	if showSession(f.store, id, false, false, &out, &errb); strings.Contains(out.String(), "+new\n") {
		t.Errorf("without --diff the diff shows:\n%s", out.String())
	}
	out.Reset()
	if code := showSession(f.store, id, true, false, &out, &errb); code != exitOK {
		t.Fatalf("show --json: %d", code)
	}
	var sess session.Session
	if err := json.Unmarshal(out.Bytes(), &sess); err != nil || sess.ID != id || len(sess.Tasks) != 2 || len(sess.StepList) != 2 {
		t.Errorf("JSON: %+v, %v", sess, err)
	}

	for _, bad := range []string{"nope", "../../etc/passwd", "20990101-000000-000000000000"} {
		errb.Reset()
		if code := showSession(f.store, bad, false, false, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "no session") {
			t.Errorf("show %q: %d, %q", bad, code, errb.String())
		}
	}
}

// A task the process never ended shows as interrupted.
func TestShowSessionInterrupted(t *testing.T) {
	f := newSessionsFixture(t, nil)
	rec, err := f.store.Begin(session.Begin{Prompt: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.End(agent.Result{}, nil)
	var out, errb bytes.Buffer
	if code := showSession(f.store, rec.Session(), false, false, &out, &errb); code != exitOK || !strings.Contains(out.String(), "interrupted: no result was recorded") {
		t.Errorf("%d:\n%s", code, out.String())
	}
}

func TestRewindSession(t *testing.T) {
	f := newSessionsFixture(t, map[string]string{"a.txt": "l1\nl2\nl3\nl4\nl5\nl6\n", "keep.txt": "k\n"})
	id := f.task("", "edit", okResult,
		map[string]string{"a.txt": "l1\nL2\nl3\nl4\nl5\nl6\n"},
		map[string]string{"a.txt": "l1\nL2\nl3\nl4\nl5\nL6\n", "new.txt": "n\n"})
	// The user changes a.txt afterwards, far from the task's lines.
	if err := os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("l1\nL2\nl3\nmine\nl5\nL6\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	var out, errb bytes.Buffer
	if code := rewindSession(f.store, id, "1", false, &out, &errb); code != exitOK {
		t.Fatalf("rewind: %d %s", code, errb.String())
	}
	if got := f.read("a.txt"); got != "l1\nL2\nl3\nmine\nl5\nl6\n" {
		t.Errorf("a.txt at step 1, the user's line kept = %q", got)
	}
	if got := f.read("new.txt"); got != "<none>" {
		t.Errorf("new.txt, created at step 2, = %q", got)
	}
	if got := f.read("keep.txt"); got != "k\n" {
		t.Errorf("keep.txt = %q", got)
	}
	for _, want := range []string{"session " + id + " rewound to step 1: 2 files changed back (", "a.txt", "new.txt", "continue from there: agentls run --session " + id} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output does not say %q:\n%s", want, out.String())
		}
	}
	sess, err := f.store.Load(id)
	if err != nil || sess.Rewound != 1 {
		t.Fatalf("after the rewind: %+v, %v", sess, err)
	}
	out.Reset()
	showSteps(sess, &out)
	if !strings.Contains(out.String(), "  1  t1 · turn edita · a.txt  ← rewound here") {
		t.Errorf("steps:\n%s", out.String())
	}

	// Step 0 is before the first task, in JSON; a second rewind to the
	// same place changes nothing.
	out.Reset()
	if code := rewindSession(f.store, id, "0", true, &out, &errb); code != exitOK {
		t.Fatalf("rewind 0: %d %s", code, errb.String())
	}
	var res struct {
		Session string
		Step    int
		Files   []string
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Session != id || res.Step != 0 || len(res.Files) != 1 || res.Files[0] != "a.txt" {
		t.Errorf("JSON %s: %+v, %v", out.String(), res, err)
	}
	if got := f.read("a.txt"); got != "l1\nl2\nl3\nmine\nl5\nl6\n" {
		t.Errorf("a.txt at step 0 = %q", got)
	}
	out.Reset()
	if code := rewindSession(f.store, id, "0", true, &out, &errb); code != exitOK || !strings.Contains(out.String(), `"files": []`) {
		t.Errorf("again: %d %s", code, out.String())
	}
}

// Where the user changed the lines the rewind would put back, their text
// stays and the conflict is reported.
func TestRewindSessionKeepsConflicts(t *testing.T) {
	f := newSessionsFixture(t, map[string]string{"a.txt": "one\n"})
	id := f.task("", "edit", okResult, map[string]string{"a.txt": "two\n"})
	os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("mine\n"), 0o644)
	var out, errb bytes.Buffer
	if code := rewindSession(f.store, id, "0", false, &out, &errb); code != exitOK {
		t.Fatalf("rewind: %d %s", code, errb.String())
	}
	if got := f.read("a.txt"); got != "mine\n" {
		t.Errorf("a.txt = %q, want the user's text", got)
	}
	if !strings.Contains(out.String(), "  kept a.txt:1: ") {
		t.Errorf("no conflict reported:\n%s", out.String())
	}
}

func TestRewindSessionBadInput(t *testing.T) {
	f := newSessionsFixture(t, map[string]string{"a.txt": "one\n"})
	id := f.task("", "edit", okResult, map[string]string{"a.txt": "two\n"})
	for _, c := range []struct {
		id, step string
		code     int
		say      string
	}{
		{id, "-1", exitUsage, "STEP must be a step number"},
		{id, "two", exitUsage, `not "two"`},
		{id, "9", exitUsage, "9"},
		{"nope", "0", exitUsage, `no session "nope"`},
	} {
		var out, errb bytes.Buffer
		if code := rewindSession(f.store, c.id, c.step, false, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.say) {
			t.Errorf("rewind %s %s: %d, %q; want %d saying %q", c.id, c.step, code, errb.String(), c.code, c.say)
		}
	}
	if got := f.read("a.txt"); got != "two\n" {
		t.Errorf("a refused rewind changed a.txt to %q", got)
	}
}

// The command line of `agentls sessions`: sub-commands, flags anywhere,
// and usage errors.
func TestSessionsCommand(t *testing.T) {
	f := newSessionsFixture(t, map[string]string{"a.txt": "one\n"})
	id := f.task("", "edit", okResult, map[string]string{"a.txt": "two\n"})
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--workspace", f.root}, exitOK, id},
		{[]string{"list", "--workspace", f.root, "--json"}, exitOK, `"id": "` + id},
		{[]string{"show", id, "--workspace", f.root}, exitOK, "#1 t1"},
		{[]string{"rewind", "--workspace", f.root, id, "0"}, exitOK, "rewound to step 0"},
		{[]string{"show", "--workspace", f.root}, exitUsage, ""},
		{[]string{"frob", "--workspace", f.root}, exitUsage, ""},
		{[]string{"list", "--nope"}, exitUsage, ""},
		{[]string{"-h"}, exitOK, ""},
	} {
		var out, errb bytes.Buffer
		code := Sessions(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String(), c.out) {
			t.Errorf("sessions %q: %d\n%s%s", c.args, code, out.String(), errb.String())
		}
		if code == exitUsage && !strings.Contains(errb.String(), "usage:") && !strings.Contains(errb.String(), "nope") {
			t.Errorf("sessions %q: no usage shown: %q", c.args, errb.String())
		}
	}
	if got := f.read("a.txt"); got != "one\n" {
		t.Errorf("after the rewind a.txt = %q", got)
	}
}
